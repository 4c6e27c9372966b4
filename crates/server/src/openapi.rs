//! The OpenAPI 3.1 document served at `/openapi.json`, built from one table of the public
//! routes (a test requests every documented path to prove it exists).

use serde_json::{Map, Value, json};

/// A parameter of a documented route.
struct P(&'static str, &'static str, bool, &'static str, &'static str);

/// A documented route: method, path, scopes, summary, parameters, request body kind.
struct Op(
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static [P],
    Option<&'static str>,
);

const IDEMPOTENCY_KEY: P = P(
    "Idempotency-Key",
    "string",
    false,
    "header",
    "1 to 255 characters: a retry with the same key gets the same report, also after a restart",
);
const ACCOUNT: P = P(
    "account_id",
    "string",
    true,
    "",
    "Account id from GET /v1/accounts",
);
const START: P = P(
    "start_date",
    "string",
    false,
    "date",
    "First day (default: 30 days before end_date; 84 for brand analytics)",
);
const END: P = P(
    "end_date",
    "string",
    false,
    "date",
    "Last day (default and upper bound: the latest complete data day)",
);
const LIMIT: P = P(
    "limit",
    "integer",
    false,
    "",
    "Page size, 1-500 (default 100)",
);
const CURSOR: P = P(
    "cursor",
    "string",
    false,
    "",
    "next_cursor of the previous page, with the same filters",
);
const ASIN: P = P("asin", "string", false, "", "Only this child ASIN");

const OPS: &[Op] = &[
    Op(
        "get",
        "/health",
        &[],
        "Liveness with build, engine and evidence versions",
        &[],
        None,
    ),
    Op(
        "post",
        "/oauth/token",
        &[],
        "Mint an access token (client_credentials; HTTP Basic or form client authentication)",
        &[],
        Some("form"),
    ),
    Op(
        "get",
        "/.well-known/oauth-authorization-server",
        &[],
        "OAuth authorization server metadata (RFC 8414)",
        &[],
        None,
    ),
    Op(
        "get",
        "/.well-known/oauth-protected-resource",
        &[],
        "Protected resource metadata for the service (RFC 9728)",
        &[],
        None,
    ),
    Op(
        "get",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "Protected resource metadata for the MCP endpoint (RFC 9728)",
        &[],
        None,
    ),
    Op(
        "post",
        "/mcp",
        &[],
        "MCP Streamable HTTP: JSON-RPC messages, session era or 2026-07-28 (docs/mcp.md); each tool checks its own scopes",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/mcp",
        &[],
        "MCP: a session's event stream (Mcp-Session-Id)",
        &[],
        None,
    ),
    Op(
        "delete",
        "/mcp",
        &[],
        "MCP: end a session (Mcp-Session-Id)",
        &[],
        None,
    ),
    Op(
        "get",
        "/mcp/sse",
        &[],
        "MCP legacy HTTP+SSE (2024-11-05): opens the stream; its endpoint event names where to POST",
        &[],
        None,
    ),
    Op(
        "post",
        "/mcp/sse",
        &[],
        "MCP legacy HTTP+SSE: a message for the session named by session_id",
        &[],
        Some("json"),
    ),
    Op("get", "/openapi.json", &[], "This document", &[], None),
    Op(
        "get",
        "/api/marketplace/merchants",
        &["retail:read"],
        "One row per connected account and marketplace: sellerId, legacySellerId, marketplace",
        &[],
        None,
    ),
    Op(
        "get",
        "/api/marketplace/spapi/operations",
        &["retail:read"],
        "The selling-side operation catalog, with merchantIdentifiers",
        &[],
        None,
    ),
    Op(
        "post",
        "/api/marketplace/spapi/call",
        &["retail:read"],
        "Run one catalogued selling-side operation for a merchant: { operation, legacySellerId | sellerId [+ marketplace], query }",
        &[IDEMPOTENCY_KEY],
        Some("json"),
    ),
    Op(
        "get",
        "/api/marketplace/ads/operations",
        &["ads:read"],
        "The advertising operation catalog, with requiredItemFields",
        &[],
        None,
    ),
    Op(
        "get",
        "/api/marketplace/ads/profiles",
        &["ads:read"],
        "Advertising profiles of each connected advertising login",
        &[],
        None,
    ),
    Op(
        "post",
        "/api/marketplace/ads/call",
        &["ads:read"],
        "Run one catalogued advertising operation: { operation, profileId | merchant selector, query }",
        &[IDEMPOTENCY_KEY],
        Some("json"),
    ),
    Op(
        "post",
        "/api/marketplace/reports",
        &["retail:read"],
        "Create a selling-side report once: { merchant selector, reportType, dataStartTime?, dataEndTime?, reportOptions? }; Idempotency-Key makes a retry safe",
        &[IDEMPOTENCY_KEY],
        Some("json"),
    ),
    Op(
        "get",
        "/api/marketplace/reports/{id}",
        &["retail:read"],
        "A report's status (queued, running, done, failed, cancelled) with a reason on every terminal report",
        &[],
        None,
    ),
    Op(
        "get",
        "/api/marketplace/reports/{id}/document",
        &["retail:read"],
        "A done report's document as a short-lived presigned URL",
        &[],
        None,
    ),
    Op(
        "post",
        "/api/marketplace/pricing/competitive-summary",
        &["retail:read"],
        "Competitive Summary for up to 100 ASINs, inline: { merchant selector, asins } (provider batches of 20, paced)",
        &[],
        Some("json"),
    ),
    Op(
        "post",
        "/api/marketplace/pricing/competitive-summary/start",
        &["retail:read"],
        "A background Competitive Summary run of any size: 202 with runId",
        &[],
        Some("json"),
    ),
    Op(
        "post",
        "/api/marketplace/pricing/featured-offer-expected-price",
        &["retail:read"],
        "Featured Offer Expected Price for up to 200 SKUs, inline: { merchant selector, skus } (provider batches of 40, paced)",
        &[],
        Some("json"),
    ),
    Op(
        "post",
        "/api/marketplace/pricing/featured-offer-expected-price/start",
        &["retail:read"],
        "A background Featured Offer Expected Price run of any size: 202 with runId",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/api/marketplace/pricing/runs/{id}",
        &["retail:read"],
        "A pricing run: status, progress, batches, an estimate of the time left",
        &[],
        None,
    ),
    Op(
        "delete",
        "/api/marketplace/pricing/runs/{id}",
        &["retail:read"],
        "Cancel an unfinished pricing run; items answered so far stay readable",
        &[],
        None,
    ),
    Op(
        "get",
        "/api/marketplace/pricing/runs/{id}/result",
        &["retail:read"],
        "A pricing run's per-item answers in input order (partial while it runs)",
        &[
            P(
                "offset",
                "integer",
                false,
                "",
                "First answer to return (default 0)",
            ),
            P(
                "limit",
                "integer",
                false,
                "",
                "Answers per page, 1 to 5000 (default 1000)",
            ),
        ],
        None,
    ),
    Op(
        "get",
        "/v1/me",
        &["account:read"],
        "Tenant, person label and granted scopes",
        &[],
        None,
    ),
    Op(
        "get",
        "/v1/accounts",
        &["account:read"],
        "Every account exposed, with brands, currency, per-domain status and data_through",
        &[],
        None,
    ),
    Op(
        "get",
        "/v1/ads/account-summary",
        &["ads:read"],
        "Window totals and per-ad-product totals",
        &[ACCOUNT, START, END],
        None,
    ),
    Op(
        "get",
        "/v1/ads/account-pacing",
        &["ads:read"],
        "Month-to-date spend against budget",
        &[
            ACCOUNT,
            P(
                "month",
                "string",
                false,
                "",
                "YYYY-MM (default: the month of the latest complete day)",
            ),
        ],
        None,
    ),
    Op(
        "get",
        "/v1/ads/campaign-performance",
        &["ads:read"],
        "Per-campaign aggregates, by campaign id",
        &[
            ACCOUNT,
            START,
            END,
            P(
                "ad_product",
                "string",
                false,
                "",
                "SPONSORED_PRODUCTS, SPONSORED_BRANDS or SPONSORED_DISPLAY",
            ),
            LIMIT,
            CURSOR,
        ],
        None,
    ),
    Op(
        "get",
        "/v1/ads/search-terms",
        &["ads:read"],
        "Per search term and keyword aggregates",
        &[
            ACCOUNT,
            START,
            END,
            P("campaign_id", "integer", false, "", "Only this campaign"),
            LIMIT,
            CURSOR,
        ],
        None,
    ),
    Op(
        "get",
        "/v1/ads/asin-performance",
        &["ads:read"],
        "Per advertised ASIN aggregates",
        &[ACCOUNT, START, END, LIMIT, CURSOR],
        None,
    ),
    Op(
        "get",
        "/v1/retail/sales",
        &["retail:read"],
        "Daily ordered sales, units and orders with window totals",
        &[ACCOUNT, START, END, ASIN],
        None,
    ),
    Op(
        "get",
        "/v1/retail/traffic",
        &["retail:read"],
        "Daily sessions, page views, buy-box and unit-session percentages with window totals",
        &[ACCOUNT, START, END, ASIN],
        None,
    ),
    Op(
        "get",
        "/v1/retail/inventory",
        &["retail:read"],
        "FBA inventory snapshot per SKU with health alert",
        &[
            ACCOUNT,
            P(
                "at_risk_only",
                "boolean",
                false,
                "",
                "Only out_of_stock and low_stock",
            ),
            P(
                "days_of_supply_lte",
                "number",
                false,
                "",
                "Only SKUs with at most this many days of supply",
            ),
            LIMIT,
            CURSOR,
        ],
        None,
    ),
    Op(
        "get",
        "/v1/retail/inventory-history",
        &["retail:read"],
        "Daily on-hand series",
        &[ACCOUNT, START, END, ASIN],
        None,
    ),
    Op(
        "get",
        "/v1/brand-analytics/search-query-performance",
        &["brand_analytics:read"],
        "Weekly search query performance with shares",
        &[
            ACCOUNT,
            START,
            END,
            P("search_query", "string", false, "", "Only this query"),
            LIMIT,
            CURSOR,
        ],
        None,
    ),
    Op(
        "get",
        "/api/context/manifest",
        &["context:read"],
        "Brands with their documents, lifecycle and retired_count",
        &[P(
            "lifecycle",
            "string",
            false,
            "",
            "active omits retired brands; all (default) includes them",
        )],
        None,
    ),
    Op(
        "put",
        "/api/context/docs/{brand}/{kind}",
        &["context:read", "context:write"],
        "Write a context document replacing base_revision (0 for new); 409 conflict when stale",
        &[
            P("brand", "string", true, "path", "Brand slug"),
            P(
                "kind",
                "string",
                true,
                "path",
                "overview, positioning, audience, products, competitors or guidelines",
            ),
        ],
        Some("json"),
    ),
    Op(
        "put",
        "/api/context/docs/{brand}/{kind}/{name}",
        &["context:read", "context:write"],
        "Write a named corpus document",
        &[
            P("brand", "string", true, "path", "Brand slug"),
            P("kind", "string", true, "path", "corpus"),
            P("name", "string", true, "path", "Document name"),
        ],
        Some("json"),
    ),
    Op(
        "post",
        "/api/context/lifecycle",
        &["context:read", "context:write"],
        "Retire or restore a brand",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/v1/context/docs",
        &["context:read"],
        "Manifest of every brand (lifecycle is ignored)",
        &[],
        None,
    ),
    Op(
        "get",
        "/v1/context/doc",
        &["context:read"],
        "One context document",
        &[
            P("brand", "string", true, "", "Brand slug"),
            P("type", "string", true, "", "Document type"),
            P("name", "string", false, "", "Corpus documents only"),
        ],
        None,
    ),
    Op(
        "get",
        "/v1/timeline",
        &["timeline:read"],
        "Timeline events newest first, with filters and a cursor",
        &[
            P("brand", "string", false, "", "Brand slug"),
            P("family", "string", false, "", "native or ads_change"),
            P(
                "kind",
                "string",
                false,
                "",
                "stake, comment, action_outcome, corroboration, structural.brand_retired and others",
            ),
            START,
            END,
            P("category", "string", false, "", "Stake category"),
            P(
                "source",
                "string",
                false,
                "",
                "api, mcp, demo_world, lifecycle and others",
            ),
            P(
                "status",
                "string",
                false,
                "",
                "proposed, corroborated or closed",
            ),
            P(
                "affects",
                "string",
                false,
                "",
                "A metric or label the stake affects",
            ),
            P("tag", "string", false, "", "A tag"),
            P(
                "overlaps_start",
                "string",
                false,
                "date",
                "With overlaps_end: stakes whose window overlaps",
            ),
            P(
                "overlaps_end",
                "string",
                false,
                "date",
                "With overlaps_start",
            ),
            P(
                "future",
                "boolean",
                false,
                "",
                "Stakes starting after today",
            ),
            LIMIT,
            CURSOR,
        ],
        None,
    ),
    Op(
        "post",
        "/v1/timeline/event",
        &["timeline:read", "timeline:write"],
        "Append a stake, comment or action outcome",
        &[],
        Some("json"),
    ),
    Op(
        "post",
        "/v1/timeline/event/{id}/corroborate",
        &["timeline:read", "timeline:write"],
        "Corroborate a stake",
        &[P("id", "integer", true, "path", "Stake id")],
        Some("json"),
    ),
    Op(
        "get",
        "/api/app-state/forecasting/doc",
        &["corrections:write"],
        "One forecast state document (corrections:write or appstate:write)",
        &[P(
            "key",
            "string",
            true,
            "",
            "fb:override:<scopeId>:<YYYY-MM-01>, fb:account:<scopeId> or fb:scope_def:<scopeId>",
        )],
        None,
    ),
    Op(
        "get",
        "/api/app-state/forecasting/docs",
        &["corrections:write"],
        "Documents by key prefix, in key order",
        &[
            P(
                "prefix",
                "string",
                true,
                "",
                "fb:<kind>:src:<database>:<merchant> (also matches the merchant's sub-brands)",
            ),
            P("scope_id", "string", false, "", "Only this exact scope"),
            P(
                "after",
                "string",
                false,
                "",
                "next_after of the previous page",
            ),
            P("limit", "integer", false, "", "1-500 (default 200)"),
        ],
        None,
    ),
    Op(
        "post",
        "/api/app-state/forecasting/batch",
        &["corrections:write"],
        "Atomic, optimistic batch of writes and deletes",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/api/app-state/forecasting/scopes",
        &["corrections:write"],
        "Sub-brand and item-group definitions",
        &[P(
            "legacy_seller_id",
            "integer",
            false,
            "",
            "Only this merchant's",
        )],
        None,
    ),
    Op(
        "post",
        "/api/app-state/forecasting/scopes",
        &["corrections:write"],
        "Create a sub-brand or item-group definition (the service mints its key)",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/api/app-state/forecasting/revisions",
        &["corrections:write"],
        "Change log of a scope's month rows",
        &[
            P(
                "scope_id",
                "string",
                true,
                "",
                "src:<database>:<merchant>[:scope:<key>]",
            ),
            P("month", "string", false, "", "YYYY-MM-01"),
            P("after", "string", false, "", "A revision id"),
            P("limit", "integer", false, "", "1-500 (default 200)"),
        ],
        None,
    ),
    Op(
        "post",
        "/api/query",
        &[
            "account:read",
            "retail:read",
            "ads:read",
            "brand_analytics:read",
            "sql:query",
        ],
        "Read-only SQL against the caller's warehouse",
        &[],
        Some("json"),
    ),
    Op(
        "get",
        "/api/tables",
        &[
            "account:read",
            "retail:read",
            "ads:read",
            "brand_analytics:read",
            "sql:query",
        ],
        "Tables and views of the caller's warehouse",
        &[],
        None,
    ),
    Op(
        "get",
        "/api/table/{name}",
        &[
            "account:read",
            "retail:read",
            "ads:read",
            "brand_analytics:read",
            "sql:query",
        ],
        "Columns and indexes of one table",
        &[P("name", "string", true, "path", "Table name")],
        None,
    ),
];

fn param(p: &P) -> Value {
    let mut schema = json!({ "type": p.1 });
    let loc = match p.3 {
        "path" | "header" => p.3,
        _ => "query",
    };
    if p.3 == "date" {
        schema["format"] = json!("date");
    }
    json!({ "name": p.0, "in": loc, "required": p.2, "schema": schema, "description": p.4 })
}

fn operation(op: &Op) -> Value {
    let error = if op.1.starts_with("/v1/") {
        "#/components/schemas/V1Error"
    } else {
        "#/components/schemas/ApiError"
    };
    let mut o = json!({
        "summary": op.3,
        "parameters": op.4.iter().map(param).collect::<Vec<_>>(),
        "responses": {
            "200": { "description": "Success" },
            "default": { "description": "Failure (see docs/errors.md)", "content": { "application/json": { "schema": { "$ref": error } } } },
        },
    });
    if op.1.starts_with("/mcp") {
        // a bearer token of any credential holding one tool's scopes; each tool checks its own
        o["security"] = json!([{ "oauth2": [] }]);
    } else if op.2.is_empty() {
        o["security"] = json!([]);
    } else {
        o["security"] = json!([{ "oauth2": op.2 }]);
        o["x-required-scopes"] = json!(op.2);
    }
    if let Some(kind) = op.5 {
        let media = if kind == "form" {
            "application/x-www-form-urlencoded"
        } else {
            "application/json"
        };
        o["requestBody"] =
            json!({ "required": true, "content": { media: { "schema": { "type": "object" } } } });
    }
    o
}

/// The document for a server reached at `base`.
pub fn document(base: &str) -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for op in OPS {
        let entry = paths.entry(op.1.to_owned()).or_insert_with(|| json!({}));
        entry[op.0] = operation(op);
    }
    json!({
        "openapi": "3.1.0",
        "info": { "title": "Partner Platform", "version": pp_core::BUILD_VERSION, "description": "One OAuth 2.0 bearer credential over a tenant's warehouse and accounts. /v1 is the contract-stable partner surface; /api is not under the /v1 contract." },
        "servers": [{ "url": base }],
        "paths": paths,
        "components": {
            "securitySchemes": { "oauth2": { "type": "oauth2", "flows": { "clientCredentials": { "tokenUrl": format!("{base}/oauth/token"), "scopes": pp_core::Scope::ALL.iter().map(|s| (s.as_str().to_owned(), json!(s.as_str()))).collect::<Map<_, _>>() } } } },
            "schemas": {
                "V1Error": { "type": "object", "required": ["error"], "properties": { "error": { "type": "object", "required": ["code", "message"], "properties": { "code": { "type": "string" }, "message": { "type": "string" } } } } },
                "ApiError": { "type": "object", "required": ["ok", "kind", "source", "retryable", "friendly", "message"], "properties": {
                    "ok": { "const": false }, "kind": { "type": "string" }, "source": { "enum": ["request", "account", "amazon_rejected", "amazon_unavailable", "mixshift"] },
                    "retryable": { "type": "boolean" }, "friendly": { "type": "string" }, "message": { "type": "string" }, "fix": { "type": "string" } } },
            },
        },
    })
}

/// Every documented (method, path), for tests.
pub fn documented() -> Vec<(&'static str, &'static str)> {
    OPS.iter().map(|o| (o.0, o.1)).collect()
}

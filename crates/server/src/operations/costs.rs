//! Profit's tenant data (docs/profit.md): cost periods (`GET`/`POST /api/costs`, the SKUs
//! sold without a cost at `GET /api/costs/missing`), euro reference rates
//! (`GET`/`POST /api/exchange-rates`), the reporting currency (`GET`/`PUT
//! /api/profit/settings`) and the audit log of all three (`GET /api/costs/changes`). Reads
//! need `retail:read`; writes `costs:write` with it. Tools: `costs_list`, `costs_missing`,
//! `costs_write`, `exchange_rates_list`.

use axum::extract::{Extension, State};
use pp_core::{Principal, Scope};
use pp_profit::{
    ChangesQuery, CostsQuery, CostsWrite, MissingQuery, RatesImport, RatesQuery, SettingsWrite,
};
use serde_json::{Map, Value, json};

use super::schema::{api, array, boolean, closed, int, nullable, number, object, string, text};
use super::{Ctx, Endpoint, Fut, Hints, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const READS: &[Scope] = &[Scope::RetailRead];
const WRITES: &[Scope] = &[Scope::CostsWrite, Scope::RetailRead];

/// A batch that replaces what it names: sending it again changes nothing.
const SET: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
    open_world: false,
};

async fn list(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<CostsQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.costs(&p, q).await?)?)
}

async fn write(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<CostsWrite>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.write_costs(&p, req).await?)?)
}

async fn missing(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<MissingQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.missing(&p, q).await?)?)
}

async fn changes(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<ChangesQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.changes(&p, q).await?)?)
}

async fn rates(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<RatesQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.rates(&p, q).await?)?)
}

async fn import_rates(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<RatesImport>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.import_rates(&p, req).await?)?)
}

async fn settings(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.settings(&p).await?)?)
}

async fn set_settings(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<SettingsWrite>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.profit.set_settings(&p, req).await?)?)
}

fn list_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.profit.costs(&ctx.principal, args(a)?).await })
}

fn missing_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.profit.missing(&ctx.principal, args(a)?).await })
}

fn write_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.profit.write_costs(&ctx.principal, args(a)?).await })
}

fn rates_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.profit.rates(&ctx.principal, args(a)?).await })
}

/// A money amount: a number or decimal text, at most two decimals.
fn amount() -> Value {
    json!({ "anyOf": [{ "type": "number" }, { "type": "string" }], "description": "Per unit, at most two decimals (12.34)" })
}

fn period_input() -> Value {
    closed(
        &[
            ("sellerId", text("The merchant token")),
            ("marketplaceId", string()),
            ("sku", string()),
            ("validFrom", text("First day the cost applies, YYYY-MM-DD")),
            ("currency", text("Three capital letters (USD)")),
            ("unitCost", amount()),
            ("freight", amount()),
            ("duties", amount()),
        ],
        &[
            "sellerId",
            "marketplaceId",
            "sku",
            "validFrom",
            "currency",
            "unitCost",
            "freight",
            "duties",
        ],
    )
}

fn period_ref() -> Value {
    closed(
        &[
            ("sellerId", string()),
            ("marketplaceId", string()),
            ("sku", string()),
            ("validFrom", string()),
        ],
        &["sellerId", "marketplaceId", "sku", "validFrom"],
    )
}

fn write_input() -> Value {
    closed(
        &[
            ("periods", array(period_input())),
            ("remove", array(period_ref())),
            (
                "reason",
                text("One line kept in the audit log with every change"),
            ),
        ],
        &[],
    )
}

fn copy_schema() -> Value {
    json!({ "oneOf": [
        { "type": "string", "enum": ["updated", "external"] },
        object(&[("failed", string())], &["failed"]),
    ]})
}

fn written_schema() -> Value {
    object(
        &[
            ("added", int()),
            ("changed", int()),
            ("removed", int()),
            ("unchanged", int()),
            ("warehouseCopy", copy_schema()),
        ],
        &["added", "changed", "removed", "unchanged", "warehouseCopy"],
    )
}

fn periods_schema() -> Value {
    let period = object(
        &[
            ("sellerId", string()),
            ("marketplaceId", string()),
            ("sku", string()),
            ("validFrom", string()),
            ("validThrough", nullable(string())),
            ("currency", string()),
            ("unitCost", number()),
            ("freight", number()),
            ("duties", number()),
            ("landedCost", number()),
            ("updatedBy", string()),
            ("updatedAt", string()),
        ],
        &[
            "sellerId",
            "marketplaceId",
            "sku",
            "validFrom",
            "validThrough",
            "currency",
            "unitCost",
            "freight",
            "duties",
            "landedCost",
        ],
    );
    object(&[("periods", array(period))], &["periods"])
}

fn missing_schema() -> Value {
    let sku = object(
        &[
            ("sku", string()),
            ("asin", string()),
            ("firstSold", string()),
            ("lastSold", string()),
            ("units", int()),
            ("sales", number()),
            ("costFrom", nullable(string())),
        ],
        &["sku", "firstSold", "lastSold", "units", "sales", "costFrom"],
    );
    object(
        &[
            ("sellerId", string()),
            ("marketplaceId", string()),
            ("currency", string()),
            ("from", string()),
            ("to", string()),
            ("skusSold", int()),
            ("skusCosted", int()),
            ("missing", array(sku)),
        ],
        &[
            "sellerId",
            "marketplaceId",
            "currency",
            "from",
            "to",
            "skusSold",
            "skusCosted",
            "missing",
        ],
    )
}

fn rates_schema() -> Value {
    let rate = object(
        &[
            ("date", string()),
            ("currency", string()),
            ("perEur", string()),
        ],
        &["date", "currency", "perEur"],
    );
    let coverage = object(
        &[
            ("currency", string()),
            ("from", string()),
            ("through", string()),
            ("days", int()),
        ],
        &["currency", "from", "through", "days"],
    );
    object(
        &[
            ("base", string()),
            ("from", string()),
            ("to", string()),
            ("rates", array(rate)),
            ("coverage", array(coverage)),
        ],
        &["base", "from", "to", "rates", "coverage"],
    )
}

fn rates_input() -> Value {
    let rate = closed(
        &[
            ("date", text("YYYY-MM-DD")),
            ("currency", text("Three capital letters; not EUR, the base")),
            (
                "perEur",
                json!({ "anyOf": [{ "type": "number" }, { "type": "string" }], "description": "Units of the currency one euro buys, at most six decimals" }),
            ),
        ],
        &["date", "currency", "perEur"],
    );
    closed(
        &[
            (
                "source",
                text("Where the rates come from (the file's name), kept in the audit log"),
            ),
            ("rates", array(rate)),
        ],
        &["source", "rates"],
    )
}

fn settings_schema() -> Value {
    object(
        &[
            ("reportingCurrency", string()),
            ("set", boolean()),
            ("updatedBy", nullable(string())),
            ("updatedAt", nullable(string())),
        ],
        &["reportingCurrency", "set"],
    )
}

fn changes_schema() -> Value {
    let change = object(
        &[
            ("id", int()),
            ("at", string()),
            ("actor", string()),
            ("what", string()),
            ("subject", string()),
            ("before", json!({})),
            ("after", json!({})),
            ("reason", nullable(string())),
        ],
        &["id", "at", "actor", "what", "subject"],
    );
    object(
        &[("changes", array(change)), ("nextBefore", nullable(int()))],
        &["changes", "nextBefore"],
    )
}

fn merchant_args() -> Vec<(&'static str, Value)> {
    vec![
        ("sellerId", text("The merchant token")),
        ("marketplaceId", text("The marketplace id")),
    ]
}

pub fn endpoints() -> Vec<Endpoint> {
    let day = json!({ "type": "string", "format": "date" });
    let mut list_args = merchant_args();
    list_args.push(("sku", string()));
    let mut missing_args = merchant_args();
    missing_args.push(("from", text("YYYY-MM-DD; default 90 days before to")));
    missing_args.push(("to", text("YYYY-MM-DD; default today (UTC)")));
    vec![
        Endpoint::get("/api/costs", "The account's landed-cost periods", list)
            .needs(READS)
            .query(
                "sellerId",
                false,
                string(),
                "A merchant token (with marketplaceId)",
            )
            .query(
                "marketplaceId",
                false,
                string(),
                "A marketplace id (with sellerId)",
            )
            .query("sku", false, string(), "One SKU")
            .answers(200, api(periods_schema()))
            .tool(Tool {
                name: "costs_list",
                title: "List product costs",
                description: "The account's landed cost per unit of each SKU over dated periods \
(unit cost, inbound freight and duties, in a currency; a period runs until the SKU's next one \
starts), who last set each. Narrow by sellerId with marketplaceId, and by sku. Same answer as \
GET /api/costs.",
                input: closed(&list_args, &[]),
                output: None,
                hints: READ,
                run: list_tool,
            }),
        Endpoint::post(
            "/api/costs",
            "Set and remove landed-cost periods (one audited batch)",
            write,
        )
        .needs(WRITES)
        .json_body(write_input())
        .answers(200, api(written_schema()))
        .tool(Tool {
            name: "costs_write",
            title: "Set product costs",
            description: "Sets landed-cost periods (a period with the same seller, marketplace, \
SKU and validFrom is replaced) and removes others, in one batch: all of it is written or, if any \
row is wrong, nothing. Every change is kept in the audit log under this credential with the \
reason given. Amounts are per unit with at most two decimals; none may be left out (a cost of \
zero must be said). Needs costs:write.",
            input: write_input(),
            output: None,
            hints: SET,
            run: write_tool,
        }),
        Endpoint::get(
            "/api/costs/missing",
            "The SKUs a merchant sold on days no cost period covers",
            missing,
        )
        .needs(READS)
        .query("sellerId", true, string(), "The merchant token")
        .query("marketplaceId", true, string(), "The marketplace id")
        .query(
            "from",
            false,
            day.clone(),
            "First day (default 90 days before to)",
        )
        .query("to", false, day.clone(), "Last day (default today, UTC)")
        .answers(200, api(missing_schema()))
        .tool(Tool {
            name: "costs_missing",
            title: "Find SKUs without a cost",
            description: "The SKUs of one merchant that sold in a window (default the last 90 \
days) on a day no cost period covers: their margin cannot be known until a cost is entered. \
Each with its first and last day sold, units, sales, and the first day a period covers (null: \
none at all).",
            input: closed(&missing_args, &["sellerId", "marketplaceId"]),
            output: None,
            hints: READ,
            run: missing_tool,
        }),
        Endpoint::get(
            "/api/costs/changes",
            "The audit log of costs, rates and the reporting currency, newest first",
            changes,
        )
        .needs(READS)
        .query(
            "before",
            false,
            string(),
            "Changes older than this id (the last page's nextBefore)",
        )
        .query(
            "limit",
            false,
            json!({ "type": "integer", "minimum": 1, "maximum": 500 }),
            "At most this many (default 100)",
        )
        .answers(200, api(changes_schema())),
        Endpoint::get(
            "/api/exchange-rates",
            "The account's euro reference rates",
            rates,
        )
        .needs(READS)
        .query("currency", false, string(), "One currency")
        .query(
            "from",
            false,
            day.clone(),
            "First day (default 31 days before to)",
        )
        .query("to", false, day, "Last day (default today, UTC)")
        .answers(200, api(rates_schema()))
        .tool(Tool {
            name: "exchange_rates_list",
            title: "List exchange rates",
            description: "The account's euro reference rates (units of each currency one euro \
buys, per working day; a day without one takes the latest of the seven before it) in a window, \
and the days held of each currency. Profit answers convert each amount at its posted day's rates.",
            input: closed(
                &[
                    ("currency", string()),
                    ("from", text("YYYY-MM-DD")),
                    ("to", text("YYYY-MM-DD")),
                ],
                &[],
            ),
            output: None,
            hints: READ,
            run: rates_tool,
        }),
        Endpoint::post(
            "/api/exchange-rates",
            "Import euro reference rates (one audited batch)",
            import_rates,
        )
        .needs(WRITES)
        .json_body(rates_input())
        .answers(
            200,
            api(object(
                &[
                    ("added", int()),
                    ("changed", int()),
                    ("unchanged", int()),
                    ("warehouseCopy", copy_schema()),
                ],
                &["added", "changed", "unchanged", "warehouseCopy"],
            )),
        ),
        Endpoint::get(
            "/api/profit/settings",
            "The account's reporting currency",
            settings,
        )
        .needs(READS)
        .answers(200, api(settings_schema())),
        Endpoint::put(
            "/api/profit/settings",
            "Set the account's reporting currency (audited)",
            set_settings,
        )
        .needs(WRITES)
        .json_body(closed(
            &[("reportingCurrency", text("Three capital letters"))],
            &["reportingCurrency"],
        ))
        .answers(200, api(settings_schema())),
    ]
}

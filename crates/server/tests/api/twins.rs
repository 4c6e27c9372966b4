//! Every MCP tool against its REST twin: one table, one row per tool, each sending the same
//! request both ways and comparing the answers once what differs by nature is removed (the
//! `/api` envelope's `ok`, the surface an event records, ids and times of things each call
//! makes). A tool without a row fails the test, so a new tool comes with its twin check.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};
use crate::mcp::Mcp;

/// Fields that differ by nature between two calls that did the same thing.
const VARYING: &[&str] = &[
    "ok",
    "surface",
    "source",
    "id",
    "event_id",
    "runId",
    "createdAt",
    "updatedAt",
    "finishedAt",
    "created_at",
    "updated_at",
    "at",
    "changed_at",
    "durationMs",
    "computeMs",
    "estimatedSecondsLeft",
    "reused",
    "url",
    "checkedAt",
    "auditId",
    "planId",
    "changeSetId",
    "submissionId",
];

fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !VARYING.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// A REST request: method, path (with its query string), JSON body.
struct Rest(Method, String, Option<Value>);

struct Twins {
    app: TestApp,
    token: String,
    mcp: Mcp,
    seen: BTreeSet<String>,
}

impl Twins {
    async fn rest(&self, r: &Rest) -> (u16, Value) {
        let mut b = self
            .app
            .http
            .request(r.0.clone(), self.app.url(&r.1))
            .bearer_auth(&self.token);
        if let Some(body) = &r.2 {
            b = b.json(body);
        }
        let res = b.send().await.unwrap();
        (
            res.status().as_u16(),
            res.json().await.unwrap_or(Value::Null),
        )
    }

    async fn tool(&mut self, name: &str, args: Value) -> Value {
        self.seen.insert(name.to_owned());
        let (result, text) = self.mcp.call(name, args).await;
        assert_eq!(result["isError"], false, "{name}: {result}");
        text
    }

    /// Sends `args` to tool `name` and `rest` over HTTP; both answers, checked equal.
    async fn same(&mut self, name: &str, args: Value, rest: Rest) -> Value {
        let via_mcp = self.tool(name, args).await;
        let (status, via_rest) = self.rest(&rest).await;
        assert!(
            (200..300).contains(&status),
            "{name}'s twin {} {}: {status} {via_rest}",
            rest.0,
            rest.1
        );
        assert_eq!(
            strip(&via_mcp),
            strip(&via_rest),
            "{name} and {} {} disagree",
            rest.0,
            rest.1
        );
        via_mcp
    }
}

fn get(path: impl Into<String>) -> Rest {
    Rest(Method::GET, path.into(), None)
}

fn post(path: impl Into<String>, body: Value) -> Rest {
    Rest(Method::POST, path.into(), Some(body))
}

#[tokio::test]
async fn every_tool_answers_like_its_rest_twin() {
    // no job workers: runs stay queued, so their views are the same whenever they are read
    let mut o = Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    };
    o.jobs.workers = 0;
    let app = TestApp::start_market_options(o).await;
    let c = app.credential(
        "acme",
        Some("account:read retail:read listings:write ads:read ads:write brand_analytics:read sql:query context:read context:write timeline:read timeline:write intelligence:read costs:write"),
    ).await;
    let token = app.token(&c).await;
    let mut mcp = Mcp::with_token(&app, token.clone());
    mcp.initialize("2025-11-25").await;
    let mut t = Twins {
        app,
        token,
        mcp,
        seen: BTreeSet::new(),
    };

    // warehouse
    let sql = json!({"sql": "SELECT ID, Marketplace FROM seller WHERE ID < ? ORDER BY ID", "params": [3]});
    t.same("legacy_query", sql.clone(), post("/api/query", sql))
        .await;
    t.same("warehouse_list_tables", json!({}), get("/api/tables"))
        .await;
    t.same(
        "warehouse_describe_table",
        json!({"table": "seller"}),
        get("/api/table/seller"),
    )
    .await;
    t.same(
        "warehouse_sync_status",
        json!({}),
        get("/api/warehouse/sync"),
    )
    .await;
    t.same(
        "events_list",
        json!({"type": "ads.*", "limit": 5}),
        get("/api/events?type=ads.*&limit=5"),
    )
    .await;

    // profit's tenant data: a batch set once, then sent to both (each answers it unchanged)
    let batch = json!({"periods": [{
        "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "sku": "TWIN-SKU-1",
        "validFrom": "2026-01-01", "currency": "USD", "unitCost": 4.5, "freight": "0.40", "duties": 0
    }]});
    let (status, set) = t.rest(&post("/api/costs", batch.clone())).await;
    assert_eq!((status, set["added"].as_i64()), (200, Some(1)), "{set}");
    let again = t
        .same("costs_write", batch.clone(), post("/api/costs", batch))
        .await;
    assert_eq!(again["unchanged"], 1, "{again}");
    t.same(
        "costs_list",
        json!({"sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER"}),
        get("/api/costs?sellerId=A2DEMOSELLER01&marketplaceId=ATVPDKIKX0DER"),
    )
    .await;
    t.same(
        "costs_missing",
        json!({"sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "from": "2026-10-01", "to": "2026-11-21"}),
        get("/api/costs/missing?sellerId=A2DEMOSELLER01&marketplaceId=ATVPDKIKX0DER&from=2026-10-01&to=2026-11-21"),
    )
    .await;
    t.same(
        "exchange_rates_list",
        json!({"from": "2026-10-01", "to": "2026-11-21"}),
        get("/api/exchange-rates?from=2026-10-01&to=2026-11-21"),
    )
    .await;

    // the live marketplace
    t.same(
        "marketplace_list_merchants",
        json!({}),
        get("/api/marketplace/merchants"),
    )
    .await;
    t.same(
        "marketplace_spapi_operations",
        json!({"prefix": "promotions."}),
        get("/api/marketplace/spapi/operations?prefix=promotions."),
    )
    .await;
    t.same(
        "marketplace_ads_operations",
        json!({"prefix": "sp."}),
        get("/api/marketplace/ads/operations?prefix=sp."),
    )
    .await;
    let call = json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": 1});
    t.same(
        "marketplace_spapi_call",
        call.clone(),
        post("/api/marketplace/spapi/call", call),
    )
    .await;
    let profiles = t
        .same(
            "marketplace_ads_profiles",
            json!({}),
            get("/api/marketplace/ads/profiles"),
        )
        .await;
    let profile = profiles["logins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["profiles"].as_array().cloned().unwrap_or_default())
        .find_map(|p| p["profileId"].as_i64())
        .expect("a profile");
    let ads = json!({"operation": "sp.list_campaigns", "profileId": profile});
    let listed = t
        .same(
            "marketplace_ads_call",
            ads.clone(),
            post("/api/marketplace/ads/call", ads),
        )
        .await;
    // an audited write: each door commits its own plan of the same change
    let campaign = listed["data"]["campaigns"][0]["campaignId"].clone();
    let write = json!({"operation": "sp.update_campaigns", "profileId": profile,
        "query": {"body": {"campaigns": [{"campaignId": campaign, "name": "renamed by a twin"}]}}});
    let plan = |p: &Value| {
        let mut c = write.clone();
        c["planId"] = p["plan"]["planId"].clone();
        c["planHash"] = p["plan"]["planHash"].clone();
        c
    };
    let (_, first) = t
        .rest(&post("/api/marketplace/ads/call", write.clone()))
        .await;
    let mut by_tool = plan(&first);
    by_tool["idempotencyKey"] = "twin-commit".into();
    let via_mcp = t.tool("marketplace_ads_commit", by_tool).await;
    let (_, second) = t
        .rest(&post("/api/marketplace/ads/call", write.clone()))
        .await;
    let (status, via_rest) = t
        .rest(&post("/api/marketplace/ads/commit", plan(&second)))
        .await;
    assert_eq!(status, 200, "{via_rest}");
    assert_eq!(strip(&via_mcp), strip(&via_rest));
    assert_eq!(via_rest["items"][0]["outcome"], "succeeded", "{via_rest}");
    t.same(
        "marketplace_ads_audit",
        json!({"operation": "sp.update_campaigns", "limit": 1}),
        get("/api/marketplace/audit?operation=sp.update_campaigns&limit=1"),
    )
    .await;
    // a commit the policy holds for a person: its approval read by either door
    t.app
        .store
        .policies()
        .put(
            "acme",
            &json!({"approval": {"operations": ["sp.update_campaigns"]}}),
            "twins",
        )
        .await
        .unwrap();
    let (_, third) = t
        .rest(&post("/api/marketplace/ads/call", write.clone()))
        .await;
    let (status, held) = t
        .rest(&post("/api/marketplace/ads/commit", plan(&third)))
        .await;
    assert_eq!(status, 202, "{held}");
    let approval = held["approval"]["approvalId"].as_str().unwrap().to_owned();
    t.same(
        "marketplace_ads_approval",
        json!({"approvalId": approval}),
        get(format!("/api/marketplace/approvals/{approval}")),
    )
    .await;

    // a listing change set: each door commits its own preview of the same change
    let merchants = t.rest(&get("/api/marketplace/merchants")).await.1;
    let one = merchants["merchants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["legacySellerId"] == 1)
        .unwrap()
        .clone();
    let seller = one["sellerId"].as_str().unwrap().to_owned();
    let legacy = one["legacySellerId"].clone();
    t.app
        .store
        .listing_writes()
        .enable(&pp_core::TenantId::parse("acme").unwrap(), &seller, "twins")
        .await
        .unwrap();
    let sku = t.app.skus(&t.token, 1).await[0].clone();
    let edit = json!({"operation": "listings.patch_listings_item", "legacySellerId": legacy,
        "query": {"items": [{"sku": sku, "patches": [{"op": "replace", "path": "/attributes/item_name", "value": [{"value": "Twin title"}]}]}]}});
    let approve = |p: &Value| {
        json!({"legacySellerId": legacy, "changeSetId": p["changeSet"]["changeSetId"],
            "changeSetHash": p["changeSet"]["changeSetHash"]})
    };
    let (_, first) = t
        .rest(&post("/api/marketplace/spapi/call", edit.clone()))
        .await;
    let via_mcp = t.tool("marketplace_listings_commit", approve(&first)).await;
    let (_, second) = t
        .rest(&post("/api/marketplace/spapi/call", edit.clone()))
        .await;
    let mut by_rest = approve(&second);
    by_rest["operation"] = "listings.patch_listings_item".into();
    let (status, via_rest) = t
        .rest(&post("/api/marketplace/listings/commit", by_rest))
        .await;
    assert_eq!(status, 200, "{via_rest}");
    assert_eq!(strip(&via_mcp), strip(&via_rest));
    assert_eq!(via_rest["items"][0]["outcome"], "succeeded", "{via_rest}");
    let cs = second["changeSet"]["changeSetId"]
        .as_str()
        .unwrap()
        .to_owned();
    t.same(
        "marketplace_listings_change_set",
        json!({"changeSetId": cs}),
        get(format!("/api/marketplace/listings/change-sets/{cs}")),
    )
    .await;

    // reports: the same request is the same report, whichever door it came through
    let report = json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
        "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-31T00:00:00Z"});
    let mut with_key = report.clone();
    with_key["idempotencyKey"] = "twin-1".into();
    let created = t
        .same(
            "marketplace_report_create",
            with_key,
            post("/api/marketplace/reports", report),
        )
        .await;
    let id = created["reportId"].as_str().unwrap().to_owned();
    let started = std::time::Instant::now();
    loop {
        let (_, s) = t.rest(&get(format!("/api/marketplace/reports/{id}"))).await;
        if s["documentReady"] == true {
            break;
        }
        assert!(started.elapsed().as_secs() < 30, "report never ready: {s}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    t.same(
        "marketplace_report_status",
        json!({"reportId": id}),
        get(format!("/api/marketplace/reports/{id}")),
    )
    .await;
    t.same(
        "marketplace_report_document",
        json!({"reportId": id}),
        get(format!("/api/marketplace/reports/{id}/document")),
    )
    .await;

    // pricing runs (queued: no workers here)
    let items = json!({"legacySellerId": 1, "asins": ["B000000001", "B000000002", "B000000003"]});
    let mut start = items.clone();
    start["family"] = "competitive-summary".into();
    let run = t
        .same(
            "marketplace_pricing_start",
            start,
            post("/api/marketplace/pricing/competitive-summary/start", items),
        )
        .await;
    let run_id = run["runId"].as_str().unwrap().to_owned();
    t.same(
        "marketplace_pricing_run",
        json!({"runId": run_id}),
        get(format!("/api/marketplace/pricing/runs/{run_id}")),
    )
    .await;
    t.same(
        "marketplace_pricing_result",
        json!({"runId": run_id, "limit": 10}),
        get(format!(
            "/api/marketplace/pricing/runs/{run_id}/result?limit=10"
        )),
    )
    .await;
    let (_, other) = t
        .rest(&post(
            "/api/marketplace/pricing/competitive-summary/start",
            json!({"legacySellerId": 1, "asins": ["B000000001", "B000000002", "B000000003"]}),
        ))
        .await;
    let other = other["runId"].as_str().unwrap().to_owned();
    t.same(
        "marketplace_pricing_cancel",
        json!({"runId": run_id}),
        Rest(
            Method::DELETE,
            format!("/api/marketplace/pricing/runs/{other}"),
            None,
        ),
    )
    .await;

    // brand memory
    let (_, doc) = t
        .rest(&get("/v1/context/doc?brand=northwind&type=overview"))
        .await;
    let base = doc["revision"].as_i64().unwrap_or(0);
    let (s, w) = t
        .rest(&Rest(
            Method::PUT,
            "/api/context/docs/northwind/overview".into(),
            Some(json!({"content": "Twins.", "base_revision": base})),
        ))
        .await;
    assert_eq!(s, 200, "{w}");
    t.same(
        "context_list_docs",
        json!({"lifecycle": "all"}),
        get("/api/context/manifest?lifecycle=all"),
    )
    .await;
    t.same(
        "context_get_doc",
        json!({"brand": "northwind", "type": "overview"}),
        get("/v1/context/doc?brand=northwind&type=overview"),
    )
    .await;
    let retire = json!({"brand_slug": "northwind", "action": "retire", "reason_code": "other", "note": "twins"});
    t.tool("context_set_brand_lifecycle", retire.clone()).await;
    let via_mcp = t
        .tool(
            "context_set_brand_lifecycle",
            json!({"brand_slug": "northwind", "action": "restore"}),
        )
        .await;
    t.rest(&post("/api/context/lifecycle", retire)).await;
    let (_, via_rest) = t
        .rest(&post(
            "/api/context/lifecycle",
            json!({"brand_slug": "northwind", "action": "restore"}),
        ))
        .await;
    assert_eq!(
        strip(&via_mcp),
        strip(&via_rest),
        "context_set_brand_lifecycle and its twin disagree"
    );

    // the timeline
    let stakes = t
        .same(
            "timeline_list",
            json!({"kind": "stake", "limit": 5}),
            get("/v1/timeline?kind=stake&limit=5"),
        )
        .await;
    let stake = stakes["events"][0]["id"].as_i64().expect("a stake");
    let comment = json!({"brand": "northwind", "kind": "comment", "note": "Twins agree.", "occurred_on": "2026-11-01"});
    t.same(
        "timeline_add_event",
        comment.clone(),
        post("/v1/timeline/event", comment),
    )
    .await;
    t.same(
        "timeline_corroborate",
        json!({"event_id": stake, "note": "It holds."}),
        post(
            format!("/v1/timeline/event/{stake}/corroborate"),
            json!({"note": "It holds."}),
        ),
    )
    .await;

    // intelligence
    t.same(
        "intelligence_catalog",
        json!({}),
        get("/api/intelligence/ids"),
    )
    .await;
    let run = json!({"id": "INS-OPS-BRIDGE-01", "params": {"brand": "trailhead", "period": {"start": "2026-09-01", "end": "2026-09-30"}}, "evidence": true});
    let ran = t
        .same(
            "intelligence_run",
            run.clone(),
            post("/api/intelligence/run", run),
        )
        .await;
    let id = ran["runId"].as_str().expect("a run id");
    t.same(
        "intelligence_poll",
        json!({"runId": id, "waitSeconds": 0}),
        get(format!("/api/intelligence/runs/{id}")),
    )
    .await;
    t.same(
        "intelligence_get",
        json!({"runId": id}),
        get(format!("/api/intelligence/runs/{id}/result")),
    )
    .await;

    // every tool the server lists has its row above
    let (_, list) = t.mcp.rpc("tools/list", json!({})).await;
    let listed: BTreeSet<String> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, t.seen, "every tool is checked against its twin");
}

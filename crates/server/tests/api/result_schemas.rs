//! Every intelligence request's result, as a run answers it, holds to the schema the OpenAPI
//! document gives it under its id — the schema derived from the engine's result type — checked
//! by Python's `jsonschema` (Draft 2020-12, `$PP_MCP_PYTHON`, as `.ci/run` provides): over
//! each request, with forecast corrections applied, and with a published copy served.

use serde_json::{Value, json};

use crate::common::TestApp;

const SCOPES: &str = "intelligence:read ads:read ads:write sql:query account:read retail:read brand_analytics:read timeline:read appstate:write corrections:write";

fn seller(extra: Value) -> Value {
    let mut p = json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER" });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p
}

/// The requests run, each with the parameters that reach a different shape of its result.
fn requests(campaigns: &Value) -> Vec<(&'static str, Value)> {
    let sept = json!({ "start": "2026-09-01", "end": "2026-09-30" });
    vec![
        (
            "INS-OPS-BRIDGE-01",
            seller(json!({ "period": sept, "top": 3 })),
        ),
        ("INS-ADS-BRIDGE-01", seller(json!({ "period": sept }))),
        (
            "INS-ADS-BRIDGE-01",
            seller(json!({ "period": sept, "grain": "search_term", "top": 5 })),
        ),
        ("INS-DUO-01", seller(json!({ "period": sept }))),
        (
            "INS-LOSTSALES-01",
            seller(json!({ "period": { "start": "2026-06-01", "end": "2026-11-20" } })),
        ),
        ("INS-MONTHLY-01", seller(json!({ "month": "2026-10" }))),
        ("INS-MONTHLY-01", seller(json!({ "month": "2026-11" }))),
        (
            "INS-CHANGE-OUTCOME-01",
            seller(json!({ "date": "2026-10-05", "campaignIds": campaigns })),
        ),
        (
            "INS-CHANGE-OUTCOME-01",
            seller(json!({ "date": "2026-10-05" })),
        ),
        ("INS-PROFIT-01", seller(json!({}))),
        (
            "INS-PROFIT-01",
            seller(json!({ "period": sept, "interval": "day", "top": 3 })),
        ),
        ("INS-PAYOUT-01", seller(json!({}))),
        (
            "INS-PROFIT-BRIDGE-01",
            seller(json!({ "period": sept, "top": 2 })),
        ),
        ("FCT-READINESS-01", seller(json!({}))),
        ("FCT-BASELINE-01", seller(json!({}))),
        ("FCT-BASELINE-01", seller(json!({ "measure": "units" }))),
        ("FCT-TRACK-01", seller(json!({ "month": "2026-10" }))),
        (
            "FCT-TRACK-01",
            seller(json!({ "month": "2026-11", "measure": "units" })),
        ),
        ("PLN-BUDGET-PACING-01", seller(json!({ "budget": 5000 }))),
        ("PLN-DAYPART-01", seller(json!({}))),
    ]
}

/// Runs every request; answers (label, id, result) for each.
async fn run_all(app: &TestApp, t: &str, tag: &str, reqs: &[(&str, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (id, params) in reqs {
        let (s, run) = app
            .post(
                t,
                "/api/intelligence/run",
                json!({ "id": id, "params": params }),
            )
            .await;
        assert_eq!(s, 200, "{tag} {id} {params}: {run}");
        out.push(
            json!({ "label": format!("{tag} {id} {params}"), "id": id, "result": run["result"] }),
        );
    }
    out
}

#[tokio::test]
async fn every_result_holds_to_its_schema_in_the_openapi_document() {
    let Some(python) = std::env::var_os("PP_MCP_PYTHON") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must set PP_MCP_PYTHON (a Python with jsonschema)"
        );
        eprintln!("skipped: PP_MCP_PYTHON is not set, the result schemas were not checked");
        return;
    };
    let app = TestApp::start_market().await;
    let c = app.credential("acme", Some(SCOPES)).await;
    let t = app.token(&c).await;
    let (_, camps) = app
        .query(
            &t,
            json!({ "sql": "SELECT CampaignID FROM ads_campaign WHERE SellerID = 1 LIMIT 2" }),
        )
        .await;
    let campaigns: Vec<String> = camps["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["CampaignID"].to_string())
        .collect();
    let reqs = requests(&json!(campaigns));
    let mut runs = run_all(&app, &t, "plain", &reqs).await;
    let scope = "src:acme:1";
    let (s, v) = app.post(&t, "/api/app-state/forecasting/batch", json!({ "writes": [
        { "key": format!("fb:override:{scope}:2026-12-01"), "expected_version": 0, "doc": { "scopeId": scope, "month": "2026-12-01", "sales": { "mode": "replace", "value": 12345.5 }, "units": { "mode": "replace", "value": 700 }, "status": "final", "note": "a note", "adBudget": { "mode": "replace", "value": 4000 } } },
        { "key": format!("fb:override:{scope}:2027-01-01"), "expected_version": 0, "doc": { "scopeId": scope, "month": "2027-01-01", "sales": { "mode": "suppress" }, "units": { "mode": "suppress" }, "status": "draft" } },
    ] })).await;
    assert_eq!(s, 200, "{v}");
    runs.extend(run_all(&app, &t, "corrected", &reqs).await);
    let (s, v) = app
        .post(&t, "/api/app-state/forecasting/publish", seller(json!({})))
        .await;
    assert_eq!(s, 200, "{v}");
    runs.extend(run_all(&app, &t, "published", &reqs).await);

    let (s, doc) = app.get(&t, "/openapi.json").await;
    assert_eq!(s, 200);
    let each = doc["paths"]["/api/intelligence/run"]["post"]["responses"]["200"]["content"]
        ["application/json"]["schema"]["properties"]["result"]["anyOf"]
        .as_array()
        .unwrap_or_else(|| panic!("the run's result is one schema per request"))
        .clone();
    let checks: Vec<Value> = runs
        .iter()
        .map(|r| {
            let one = each
                .iter()
                .find(|s| s["title"] == r["id"])
                .unwrap_or_else(|| panic!("no result schema for {}", r["id"]));
            let schema = json!({ "$ref": one["$ref"], "components": doc["components"] });
            json!({ "label": r["label"], "schema": schema, "instance": r["result"] })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("checks.json");
    std::fs::write(&file, Value::Array(checks).to_string()).unwrap();
    let script = r#"
import json, sys, jsonschema
bad = []
for c in json.load(open(sys.argv[1])):
    for e in jsonschema.Draft202012Validator(c["schema"]).iter_errors(c["instance"]):
        bad.append(c["label"] + ": " + e.message + " at " + "/".join(map(str, e.absolute_path)))
print("\n".join(bad[:20]))
sys.exit(1 if bad else 0)
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "results break their schemas:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

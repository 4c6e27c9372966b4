//! Closing the loop over the gateway (docs/intelligence.md): `PLN-BUDGET-PACING-01` answers
//! dry-run plans whose daily budgets land the month on its budget to the cent (or say by how
//! much and why not), inside the write policy, committed through the normal commit — and held
//! for a person under an approval policy; `INS-CHANGE-OUTCOME-01` reads a timeline stake's
//! change with its confounders, and an audited write links to its outcome (readable once its
//! window has settled).

use serde_json::{Value, json};

use crate::common::TestApp;
use crate::mcp::Mcp;

const PACER: &str = "intelligence:read ads:read ads:write timeline:read appstate:write";

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or_else(|| panic!("an amount: {v}")) * 100.0).round() as i64
}

fn pacing(budget: Option<f64>) -> Value {
    let mut params = json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER" });
    if let Some(b) = budget {
        params["budget"] = b.into();
    }
    json!({ "id": "PLN-BUDGET-PACING-01", "params": params })
}

async fn run(app: &TestApp, t: &str, body: Value) -> (u16, Value) {
    app.post(t, "/api/intelligence/run", body).await
}

/// Checks what every pacing answer must hold, and answers its result.
fn lands(run: &Value) -> &Value {
    let r = &run["result"];
    let days = r["remainingDays"].as_i64().unwrap();
    let daily: i64 = r["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| cents(&c["proposedBudget"]))
        .sum();
    assert_eq!(daily, cents(&r["dailyTotal"]), "{r}");
    // daily budgets × days left + month to date, and the gap, make the budget to the cent
    let landed = cents(&r["monthToDateSpend"]) + days * daily;
    assert_eq!(landed, cents(&r["landsAt"]));
    assert_eq!(landed + cents(&r["gap"]), cents(&r["budget"]), "{r}");
    if cents(&r["gap"]) != 0 {
        assert!(
            !r["gapWhy"].as_array().unwrap().is_empty(),
            "a gap says why: {r}"
        );
    }
    for c in r["campaigns"].as_array().unwrap() {
        if c["writable"] == true {
            let (p, lo, hi) = (
                cents(&c["proposedBudget"]),
                cents(&c["floor"]),
                cents(&c["ceiling"]),
            );
            assert!(lo <= p && p <= hi, "{c}");
            // the default policy: USD 1 to 10,000, at most ×3 and ÷3 of the current budget
            let cur = cents(&c["currentBudget"]) as f64;
            assert!(
                (100..=1_000_000).contains(&p) && p as f64 <= cur * 3.0 && p as f64 >= cur / 3.0,
                "{c}"
            );
        } else {
            assert_eq!(c["proposedBudget"], c["currentBudget"], "{c}");
        }
    }
    r
}

/// The commit of a pacing plan, as any caller sends it.
fn commit_of(plan: &Value) -> Value {
    let mut c = plan["call"].clone();
    c["planId"] = plan["dryRun"]["plan"]["planId"].clone();
    c["planHash"] = plan["dryRun"]["plan"]["planHash"].clone();
    c
}

#[tokio::test]
async fn a_pacing_plan_lands_the_month_on_its_budget_and_commits_through_the_normal_commit() {
    let app = TestApp::start_market().await;
    let c = app.credential("acme", Some(PACER)).await;
    let t = app.token(&c).await;
    // a first look: month to date, the days left, the budgets in force
    let (s, first) = run(&app, &t, pacing(Some(100_000.0))).await;
    assert_eq!(s, 200, "{first}");
    let r = lands(&first);
    assert_eq!(r["month"], "2026-11");
    assert_eq!(r["remainingFrom"], "2026-11-22");
    let days = r["remainingDays"].as_i64().unwrap();
    assert_eq!(days, 9);
    // 100,000 is more than every campaign's ceiling allows: at the ceilings, and it says so
    assert!(r["gapWhy"][0].as_str().unwrap().contains("ceiling"), "{r}");
    let current: i64 = r["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| cents(&c["currentBudget"]))
        .sum();
    // a budget the campaigns can meet: a fifth more than they are set to spend
    let budget = (cents(&r["monthToDateSpend"]) + days * current * 6 / 5) as f64 / 100.0;
    let (s, run1) = run(&app, &t, pacing(Some(budget))).await;
    assert_eq!(s, 200, "{run1}");
    let r = lands(&run1);
    assert!(
        cents(&r["gap"]).abs() < days,
        "only whole cents stand between it and the budget: {r}"
    );
    assert_eq!(r["budgetSource"], "request");
    let plans = r["plans"].as_array().unwrap();
    assert!(!plans.is_empty(), "{r}");
    for p in plans {
        assert_eq!(p["dryRun"]["dryRun"], true);
        assert_eq!(p["dryRun"]["valid"], true, "{p}");
        assert_eq!(p["dryRun"]["policy"]["allowed"], true, "{p}");
    }
    // the request wrote nothing: each plan is committed through the normal commit
    let sp = plans
        .iter()
        .find(|p| p["operation"] == "sp.update_campaigns")
        .unwrap();
    let (s, done) = app
        .post(&t, "/api/marketplace/ads/commit", commit_of(sp))
        .await;
    assert_eq!(s, 200, "{done}");
    assert!(
        done["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["outcome"] == "succeeded"),
        "{done}"
    );
    let audit_id = done["commit"]["auditId"].as_str().unwrap().to_owned();
    // the provider holds the proposed budgets now
    let listed = app
        .post(&t, "/api/marketplace/ads/call", json!({ "operation": "sp.list_campaigns", "profileId": sp["profileId"], "query": { "body": {} } }))
        .await
        .1;
    for id in sp["campaignIds"].as_array().unwrap() {
        let live = listed["data"]["campaigns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["campaignId"] == *id)
            .unwrap();
        let proposed = r["campaigns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["campaignId"] == *id)
            .unwrap();
        assert_eq!(
            cents(&live["budget"]["budget"]),
            cents(&proposed["proposedBudget"]),
            "{live}"
        );
    }
    // the audited write links to its outcome, readable once its window settles
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_campaigns&limit=1",
        )
        .await;
    let rec = &audit["records"][0];
    assert_eq!(rec["auditId"], audit_id.as_str());
    assert_eq!(rec["outcome"]["request"], "INS-CHANGE-OUTCOME-01");
    assert_eq!(rec["outcome"]["params"]["auditId"], audit_id.as_str());
    let (_, tl) = app.get(&t, "/v1/timeline?family=ads_change&limit=1").await;
    assert_eq!(
        tl["events"][0]["payload"]["outcome"], rec["outcome"],
        "{tl}"
    );
    // the warehouse runs through 2026-11-21: the change's weeks are not there yet
    let (s, e) = run(&app, &t, json!({ "id": "INS-CHANGE-OUTCOME-01", "params": { "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "auditId": audit_id } })).await;
    assert_eq!(s, 404, "{e}");
    assert_eq!(e["kind"], "no_data_for_period", "{e}");
    assert_eq!(e["readableFrom"], rec["outcome"]["readableFrom"], "{e}");
}

#[tokio::test]
async fn under_an_approval_policy_a_pacing_plan_waits_for_a_person() {
    let app = TestApp::start_market().await;
    let admin = pp_admin::Admin::new(app.store.clone());
    admin
        .policies(&pp_admin::Operator::service("admin:test"))
        .set("acme", &json!({ "approval": { "operations": ["sp.update_campaigns", "sb.update_campaigns"] } }))
        .await
        .unwrap();
    let c = app.credential("acme", Some(PACER)).await;
    let t = app.token(&c).await;
    // the month's budget from forecast state this time
    let key = "fb:override:src:acme:1:2026-11-01";
    let (s, w) = app
        .post(&t, "/api/app-state/forecasting/batch", json!({ "writes": [{ "key": key, "expected_version": 0,
            "doc": { "scopeId": "src:acme:1", "month": "2026-11-01", "adBudget": { "mode": "replace", "value": 12_345.67 } } }] }))
        .await;
    assert_eq!(s, 200, "{w}");
    let (s, run1) = run(&app, &t, pacing(None)).await;
    assert_eq!(s, 200, "{run1}");
    let r = lands(&run1);
    assert_eq!(
        (r["budgetSource"].as_str(), cents(&r["budget"])),
        (Some("forecast_state"), 1_234_567)
    );
    let plan = &r["plans"][0];
    let (s, held) = app
        .post(&t, "/api/marketplace/ads/commit", commit_of(plan))
        .await;
    assert_eq!(s, 202, "{held}");
    assert_eq!(held["outcome"], "pending_approval", "{held}");
    assert_eq!(held["approval"]["status"], "pending");
}

#[tokio::test]
async fn a_plan_an_ai_client_asked_for_over_mcp_waits_for_a_person() {
    let app = TestApp::start_market().await;
    let admin = pp_admin::Admin::new(app.store.clone());
    admin
        .policies(&pp_admin::Operator::service("admin:test"))
        .set("acme", &json!({ "approval": { "mcp": true } }))
        .await
        .unwrap();
    let c = app.credential("acme", Some(PACER)).await;
    let t = app.token(&c).await;
    let mut mcp = Mcp::with_token(&app, t.clone());
    mcp.initialize("2025-11-25").await;
    let (result, run) = mcp.call("intelligence_run", pacing(Some(9_000.0))).await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(run["id"], "PLN-BUDGET-PACING-01", "{run}");
    let r = lands(&run);
    // the dry run was made over MCP: its commit waits, even when it comes in over REST
    let (s, held) = app
        .post(&t, "/api/marketplace/ads/commit", commit_of(&r["plans"][0]))
        .await;
    assert_eq!(
        (s, held["outcome"].as_str()),
        (202, Some("pending_approval")),
        "{held}"
    );
    // and the outcome request is the same tool
    let (result, out) = mcp
        .call("intelligence_run", json!({ "id": "INS-CHANGE-OUTCOME-01", "params": {
            "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "date": "2026-09-01" } }))
        .await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(out["result"]["windows"]["days"], 14, "{out}");
    assert_eq!(
        out["result"]["account"].as_array().unwrap().len(),
        2,
        "advertising and retail: {out}"
    );
}

#[tokio::test]
async fn a_pacing_plan_needs_the_write_scope_and_is_never_queued() {
    let app = TestApp::start_market().await;
    let reader = app
        .credential("acme", Some("intelligence:read ads:read"))
        .await;
    let t = app.token(&reader).await;
    let (s, e) = run(&app, &t, pacing(Some(5_000.0))).await;
    assert_eq!(
        (s, e["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{e}"
    );
    let writer = app.credential("acme", Some(PACER)).await;
    let t = app.token(&writer).await;
    let mut queued = pacing(Some(5_000.0));
    queued["async"] = true.into();
    let (s, e) = run(&app, &t, queued).await;
    assert_eq!((s, e["kind"].as_str()), (400, Some("bad_params")), "{e}");
    // no budget anywhere: it says where to put one
    let (s, e) = run(&app, &t, pacing(None)).await;
    assert_eq!(s, 400, "{e}");
    assert!(e["message"].as_str().unwrap().contains("adBudget"), "{e}");
    // a budget the month has already spent past: every campaign at its floor, and why
    let (s, low) = run(&app, &t, pacing(Some(1.0))).await;
    assert_eq!(s, 200, "{low}");
    let r = lands(&low);
    assert!(
        cents(&r["gap"]) < 0 && r["gapWhy"][0].as_str().unwrap().contains("already over"),
        "{r}"
    );
}

#[tokio::test]
async fn a_stakes_outcome_names_what_else_happened() {
    let app = TestApp::start().await;
    let c = app.credential("acme", Some("intelligence:read timeline:read account:read retail:read ads:read brand_analytics:read sql:query")).await;
    let t = app.token(&c).await;
    let (_, tl) = app
        .get(&t, "/v1/timeline?category=budget_change&limit=50")
        .await;
    let stakes = tl["events"].as_array().unwrap();
    assert!(!stakes.is_empty(), "{tl}");
    let mut read = 0;
    for s in stakes {
        let seller = s["payload"]["seller_id"].as_i64().unwrap();
        let (token, market) = match seller {
            1 => ("A2DEMOSELLER01", "ATVPDKIKX0DER"),
            2 => ("A2DEMOSELLER01", "A2EUQ1WTGCTBG2"),
            3 => ("A1DEMOSELLERMX", "A1AM78C64UM0Y8"),
            _ => continue,
        };
        let id = s["id"].as_i64().unwrap();
        let (status, out) = run(&app, &t, json!({ "id": "INS-CHANGE-OUTCOME-01", "params": { "sellerId": token, "marketplaceId": market, "stakeId": id } })).await;
        assert_eq!(status, 200, "{out}");
        let r = &out["result"];
        assert_eq!(r["change"]["stakeId"], id);
        assert_eq!(r["entities"][0]["kind"], "campaign");
        assert_eq!(
            r["entities"][0]["id"],
            s["payload"]["campaign_id"].to_string()
        );
        assert_eq!(r["windows"]["days"], 14);
        // the stake itself is the change, never its own confounder
        assert!(
            r["confounders"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["stakeId"] != id),
            "{r}"
        );
        for section in r["entities"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["account"].as_array().unwrap())
        {
            let b = &section["bridge"];
            for part in ["spend", "sales"] {
                let sum: i64 = b[part]["effects"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(cents)
                    .sum();
                assert_eq!(sum, cents(&b[part]["change"]), "{part}: {b}");
            }
        }
        read += 1;
    }
    assert!(read >= 1);
    // a promotion's first day, read for a campaign of its seller: the promotion is a confounder
    let (_, promos) = app
        .get(&t, "/v1/timeline?category=promotional_window&limit=50")
        .await;
    let p = promos["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["payload"]["seller_id"] == 1 && p["window"]["starts_on"].as_str() > Some("2024-01-15")
        })
        .unwrap_or_else(|| panic!("{promos}"));
    let (_, camps) = app
        .query(
            &t,
            json!({ "sql": "SELECT CampaignID FROM ads_campaign WHERE SellerID = 1 LIMIT 1" }),
        )
        .await;
    let campaign = camps["rows"][0]["CampaignID"].clone();
    assert!(campaign.is_number(), "{camps}");
    let (status, out) = run(
        &app,
        &t,
        json!({ "id": "INS-CHANGE-OUTCOME-01", "params": {
        "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER",
        "date": p["window"]["starts_on"], "campaignIds": [campaign] } }),
    )
    .await;
    assert_eq!(status, 200, "{out}");
    let conf = out["result"]["confounders"].as_array().unwrap();
    assert!(conf.iter().any(|c| c["stakeId"] == p["id"]), "{conf:?}");
    assert!(
        out["limitations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("promotional window")),
        "{out}"
    );
}

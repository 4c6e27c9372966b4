//! `PLN-DAYPART-01` over the gateway (docs/intelligence.md): on five months of streamed hours
//! of omega (synced from acme's world), the plan proposes a schedule bid rule for each enabled
//! Sponsored Products campaign whose best hours it can name; committing the rules' creation
//! through the normal commit makes them at the sandbox; asked again, the plan finds them by
//! name and proposes their associations; committed, the sandbox holds each rule on its
//! campaign, and the plan says every rule is in place. The write policy's `maxRaise` bounds the
//! increase.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{Options, Queues, TestApp};
use crate::streams::{streamed_with, until_streamed_within};

const PLANNER: &str = "intelligence:read ads:read ads:write account:read";
/// Days of hours streamed: enough clicks for the tiny world's busier campaigns to have twelve
/// measured hours of the day.
const DAYS: i64 = 150;

/// The US profile (acme's world's first seller in the US marketplace).
const US_PROFILE: i64 = 3100000001;

async fn plan(app: &TestApp, t: &str, period: &Value) -> Value {
    let (s, r) = app
        .post(
            t,
            "/api/intelligence/run",
            json!({ "id": "PLN-DAYPART-01", "params": {
                "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "period": period,
            } }),
        )
        .await;
    assert_eq!((s, &r["status"]), (200, &json!("succeeded")), "{r}");
    r["result"].clone()
}

/// Commits a plan's dry run as any caller sends it; answers the items' results.
async fn commit(app: &TestApp, t: &str, p: &Value) -> Vec<Value> {
    assert_eq!(p["dryRun"]["dryRun"], true, "{p}");
    assert_eq!(p["dryRun"]["valid"], true, "{p}");
    assert_eq!(p["dryRun"]["policy"]["allowed"], true, "{p}");
    let mut c = p["call"].clone();
    c["planId"] = p["dryRun"]["plan"]["planId"].clone();
    c["planHash"] = p["dryRun"]["plan"]["planHash"].clone();
    let (s, done) = app.post(t, "/api/marketplace/ads/commit", c).await;
    assert_eq!(s, 200, "{done}");
    let items = done["items"].as_array().unwrap().clone();
    assert!(items.iter().all(|i| i["outcome"] == "succeeded"), "{done}");
    items
}

/// The campaigns of a plan at `step`, by id.
fn at_step<'a>(r: &'a Value, step: &str) -> BTreeMap<String, &'a Value> {
    r["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["step"] == step)
        .map(|c| (c["campaignId"].as_str().unwrap().to_owned(), c))
        .collect()
}

#[tokio::test]
async fn the_daypart_plan_commits_in_two_steps_and_the_sandbox_then_holds_the_rules() {
    let (app, t) = streamed_with(Options {
        streams: Some(Queues::Sandbox),
        stream_backfill_days: DAYS,
        ..Options::default()
    })
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{b}");
    // only the US profile's Sponsored Products hours are read: the rest are stopped at once,
    // so five months of them do not crowd the queues
    let listed = app
        .sandbox(reqwest::Method::GET, "/__sandbox/streams", Value::Null)
        .await;
    for sub in listed["subscriptions"].as_array().unwrap() {
        let dataset = sub["subscription"]["dataSetId"].as_str().unwrap();
        if sub["profileId"] != US_PROFILE || !dataset.starts_with("sp-") {
            app.sandbox(
                reqwest::Method::POST,
                "/__sandbox/streams",
                json!({ "paused": true, "subscriptionId": sub["subscription"]["subscriptionId"] }),
            )
            .await;
        }
    }
    until_streamed_within(&app, &t, 1, std::time::Duration::from_secs(600)).await;
    let last: chrono::NaiveDate = app
        .sandbox(reqwest::Method::GET, "/__sandbox/world", Value::Null)
        .await["lastDay"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let period = json!({ "start": last - chrono::Duration::days(DAYS - 1), "end": last });
    let pt = app
        .token(&app.credential("omega", Some(PLANNER)).await)
        .await;

    // a reader cannot ask for a plan of writes
    let reader = app
        .token(
            &app.credential("omega", Some("intelligence:read ads:read"))
                .await,
        )
        .await;
    let (s, r) = app
        .post(
            &reader,
            "/api/intelligence/run",
            json!({ "id": "PLN-DAYPART-01", "params": {
            "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER" } }),
        )
        .await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{r}"
    );

    // step one: the rules to create, one dry run for the profile
    let first = plan(&app, &pt, &period).await;
    let creating = at_step(&first, "create_rule");
    let steps: Vec<(&Value, &Value)> = first["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (&c["campaignId"], &c["step"]))
        .collect();
    eprintln!("PLN-DAYPART-01 over {DAYS} streamed days: {steps:?}");
    assert!(
        !creating.is_empty(),
        "no campaign's best hours were named: {first:#}"
    );
    for c in creating.values() {
        assert_eq!(c["adProduct"], "SPONSORED_PRODUCTS", "{c}");
        let p = c["increasePercent"].as_u64().unwrap();
        assert!((1..=100).contains(&p), "{c}");
        let b = &c["bestHours"];
        assert_eq!(
            b["endHour"].as_u64().unwrap() - b["startHour"].as_u64().unwrap(),
            4,
            "{c}"
        );
        // the increase is the hours' lift, in whole percent
        let lift = ((b["index"].as_f64().unwrap() - 1.0) * 100.0).round() as u64;
        assert_eq!(p, lift.clamp(1, 100), "{c}");
    }
    for c in first["campaigns"].as_array().unwrap() {
        if c["adProduct"] != "SPONSORED_PRODUCTS" {
            assert_eq!(c["step"], "not_sponsored_products", "{c}");
        }
    }
    let plans = first["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 1, "{first:#}");
    assert_eq!(plans[0]["operation"], "sp.create_optimization_rules");
    // the request wrote nothing: asked again, the same step
    let again = plan(&app, &pt, &period).await;
    assert_eq!(at_step(&again, "create_rule").len(), creating.len());
    let made = commit(&app, &pt, &plans[0]).await;
    assert_eq!(made.len(), creating.len());
    let rule_ids: Vec<String> = made
        .iter()
        .map(|i| i["entityId"].as_str().unwrap().to_owned())
        .collect();

    // step two: the plan finds its rules by name and proposes each association
    let second = plan(&app, &pt, &period).await;
    let associating = at_step(&second, "associate_rule");
    assert_eq!(
        associating.keys().collect::<Vec<_>>(),
        creating.keys().collect::<Vec<_>>(),
        "{second:#}"
    );
    for c in associating.values() {
        assert!(
            rule_ids.contains(&c["ruleId"].as_str().unwrap().to_owned()),
            "{c}"
        );
    }
    let plans = second["plans"].as_array().unwrap();
    assert_eq!(plans.len(), associating.len());
    for p in plans {
        assert_eq!(p["operation"], "sp.associate_optimization_rules");
        commit(&app, &pt, p).await;
    }

    // the sandbox holds each rule on its campaign, as the plan proposed it
    let profile = plans[0]["profileId"].clone();
    for (id, c) in &creating {
        let (s, found) = app
            .post(&pt, "/api/marketplace/ads/call", json!({
                "operation": "sp.search_optimization_rules", "profileId": profile,
                "query": { "body": { "campaignFilter": { "campaignId": { "filterType": "EXACT_MATCH", "values": [id] } } } },
            }))
            .await;
        assert_eq!(s, 200, "{found}");
        let rules = found["data"]["optimizationRules"].as_array().unwrap();
        assert_eq!(rules.len(), 1, "{found}");
        let r = &rules[0];
        assert_eq!(r["ruleName"], c["ruleName"]);
        assert_eq!(r["ruleSubCategory"], "SCHEDULE");
        assert_eq!(r["action"]["actionDetails"]["actionOperator"], "INCREMENT");
        assert_eq!(
            r["action"]["actionDetails"]["value"].as_f64().unwrap() as u64,
            c["increasePercent"].as_u64().unwrap()
        );
        let b = &c["bestHours"];
        assert_eq!(
            r["recurrence"]["timesOfDay"][0]["startTime"],
            format!("{:02}:00", b["startHour"].as_u64().unwrap())
        );
        assert_eq!(r["recurrence"]["daysOfWeek"].as_array().unwrap().len(), 7);
    }

    // asked once more: every rule in place, nothing to commit
    let third = plan(&app, &pt, &period).await;
    assert_eq!(
        at_step(&third, "in_place").len(),
        creating.len(),
        "{third:#}"
    );
    assert_eq!(third["plans"], json!([]));

    // a policy allowing bids at most ×1.05 bounds every increase at 5 %
    app.store
        .policies()
        .put("omega", &json!({ "maxRaise": 1.05 }), "test")
        .await
        .unwrap();
    let bounded = plan(&app, &pt, &period).await;
    assert_eq!(bounded["maxIncreasePercent"], 5);
    // (every rule made above raised bids by more: each campaign gets a new, bounded one)
    let capped = at_step(&bounded, "create_rule");
    assert_eq!(capped.len(), creating.len(), "{bounded:#}");
    for c in capped.values() {
        assert!(c["increasePercent"].as_u64().unwrap() <= 5, "{c}");
    }
}

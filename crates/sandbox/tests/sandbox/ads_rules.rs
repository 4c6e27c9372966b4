//! Sponsored Products schedule bid rules at the sandbox, called as the provider is: rules made
//! (v2 several at once, v1 one), each refused alone when it is not a whole 1–100 percent
//! increase over one `HH:00` range; found by name, status and campaign; associated with a
//! campaign up to the provider's 20, a repeat association a success, another profile's rule
//! not found.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp};

const V1: &str = "application/vnd.spoptimizationrules.v1+json";
const V2: &str = "application/vnd.spoptimizationrules.v2+json";

fn rule(name: &str, percent: Value) -> Value {
    json!({
        "ruleName": name, "ruleCategory": "BID", "ruleSubCategory": "SCHEDULE", "status": "ENABLED",
        "action": { "actionType": "ADOPT", "actionDetails": { "actionOperator": "INCREMENT", "actionUnit": "PERCENT", "value": percent } },
        "recurrence": { "type": "WEEKLY", "daysOfWeek": ["SATURDAY", "SUNDAY"],
            "timesOfDay": [{ "startTime": "18:00", "endTime": "22:00" }],
            "duration": { "startTime": "2026-12-01T00:00:00Z" } },
    })
}

/// Makes `rules` (v2); the answer's responses.
async fn create(a: &Ads<'_>, rules: Vec<Value>) -> Vec<Value> {
    let (s, _, b) = a
        .call(
            Method::POST,
            "/sp/rules/optimization",
            V2,
            json!({ "optimizationRules": rules }),
        )
        .await;
    assert_eq!(s, 207, "{b}");
    b["responses"].as_array().unwrap().clone()
}

async fn search(a: &Ads<'_>, body: Value) -> Vec<Value> {
    let (s, _, b) = a
        .call(Method::POST, "/sp/rules/optimization/search", V2, body)
        .await;
    assert_eq!(s, 200, "{b}");
    b["optimizationRules"].as_array().unwrap().clone()
}

#[tokio::test]
async fn schedule_rules_are_made_found_and_associated_within_the_providers_limits() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let a = Ads::login(&app, SELLER).await;
    let (s, _, campaigns) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            "application/vnd.spCampaign.v3+json",
            json!({}),
        )
        .await;
    assert_eq!(s, 200, "{campaigns}");
    let campaign = campaigns["campaigns"][0]["campaignId"]
        .as_str()
        .unwrap()
        .to_owned();

    // each rule answers alone, in request order
    let made = create(
        &a,
        vec![
            rule("evenings", json!(25)),
            rule("cuts", json!(0)),
            rule("too much", json!("101")),
        ],
    )
    .await;
    assert_eq!(made[0]["code"], "SUCCESS", "{made:?}");
    let id = made[0]["optimizationRule"]["optimizationRuleId"]
        .as_str()
        .unwrap()
        .to_owned();
    for bad in &made[1..] {
        assert_eq!(bad["code"], "INVALID_ARGUMENT", "{bad}");
        assert!(
            bad["details"].as_str().unwrap().contains("1 to 100"),
            "{bad}"
        );
    }
    let mut lowering = rule("lowers", json!(10));
    lowering["action"]["actionDetails"]["actionOperator"] = "DECREMENT".into();
    let mut two_ranges = rule("two ranges", json!(10));
    two_ranges["recurrence"]["timesOfDay"] = json!([{ "startTime": "01:00", "endTime": "02:00" }, { "startTime": "03:00", "endTime": "04:00" }]);
    for r in create(&a, vec![lowering, two_ranges]).await {
        assert_eq!(r["code"], "INVALID_ARGUMENT", "{r}");
    }
    // v1 takes one rule a call; a wrong media type is refused whole
    let two = json!({ "optimizationRules": [rule("a", json!(5)), rule("b", json!(5))] });
    let (s, _, b) = a
        .call(Method::POST, "/sp/rules/optimization", V1, two)
        .await;
    assert_eq!(s, 400, "{b}");
    let (s, _, _) = a
        .call(
            Method::POST,
            "/sp/rules/optimization",
            "application/json",
            json!({ "optimizationRules": [rule("a", json!(5))] }),
        )
        .await;
    assert_eq!(s, 415);

    // found by name and status; no campaign holds it yet
    let by_name = json!({ "optimizationRuleFilter": { "ruleName": { "filterType": "BROAD_MATCH", "values": ["EVEN"] } } });
    let found = search(&a, by_name).await;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["optimizationRuleId"], id);
    let on = json!({ "campaignFilter": { "campaignId": { "filterType": "EXACT_MATCH", "values": [campaign] } } });
    assert!(search(&a, on.clone()).await.is_empty());

    // associated (twice is still one), then found through its campaign
    let path = format!("/sp/campaigns/{campaign}/optimizationRules");
    for _ in 0..2 {
        let (s, _, b) = a
            .call(
                Method::POST,
                &path,
                V1,
                json!({ "optimizationRuleIds": [id] }),
            )
            .await;
        assert_eq!(
            (s, &b["responses"][0]["code"]),
            (207, &json!("SUCCESS")),
            "{b}"
        );
    }
    assert_eq!(search(&a, on.clone()).await.len(), 1);
    // up to twenty a campaign
    let more: Vec<Value> = (0..20)
        .map(|i| rule(&format!("more {i}"), json!(5)))
        .collect();
    let ids: Vec<Value> = create(&a, more)
        .await
        .iter()
        .map(|r| r["optimizationRule"]["optimizationRuleId"].clone())
        .collect();
    let (s, _, b) = a
        .call(
            Method::POST,
            &path,
            V1,
            json!({ "optimizationRuleIds": ids }),
        )
        .await;
    assert_eq!(s, 207, "{b}");
    let codes: Vec<&str> = b["responses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes.iter().filter(|c| **c == "SUCCESS").count(), 19, "{b}");
    assert_eq!(codes[19], "LIMIT_EXCEEDED", "{b}");
    assert_eq!(search(&a, on).await.len(), 20);
    // a rule id the profile does not hold, and a campaign it does not hold
    let (s, _, b) = a
        .call(
            Method::POST,
            &path,
            V1,
            json!({ "optimizationRuleIds": ["no-such-rule"] }),
        )
        .await;
    assert_eq!(
        (s, &b["responses"][0]["code"]),
        (207, &json!("NOT_FOUND")),
        "{b}"
    );
    let (s, _, b) = a
        .call(
            Method::POST,
            "/sp/campaigns/999/optimizationRules",
            V1,
            json!({ "optimizationRuleIds": [id] }),
        )
        .await;
    assert_eq!(s, 400, "{b}");
}

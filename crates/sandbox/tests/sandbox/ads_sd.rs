//! Sponsored Display's entity lists: the world's SD campaigns, ad groups and targets of the
//! profile, as they stand, paged and filtered the older REST way.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp};

async fn list(a: &Ads<'_>, path: &str) -> (u16, Value) {
    let (s, _, b) = a
        .call(Method::GET, path, "application/json", json!(null))
        .await;
    (s, b)
}

fn ids(v: &Value, field: &str) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e[field].as_i64().unwrap())
        .collect()
}

/// Issue 53: the SD entity lists, as the world has them.
#[tokio::test]
async fn sd_entities_are_listed_as_the_world_has_them() {
    let app = SimApp::small(|_| {}).await;
    app.no_limits().await;
    let a = Ads::login(&app, SELLER).await;
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let of = |sql: &str| -> Vec<i64> {
        world
            .prepare(sql)
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let sd =
        "FROM ads_campaign c WHERE c.ProfileID = 3100000001 AND c.AdProduct = 'SPONSORED_DISPLAY'";
    let campaigns = of(&format!("SELECT c.CampaignID {sd} ORDER BY 1"));
    let groups = of(&format!(
        "SELECT g.AdGroupID FROM ads_ad_group g WHERE g.CampaignID IN (SELECT c.CampaignID {sd}) ORDER BY 1"
    ));
    let targets = of(&format!(
        "SELECT t.TargetingID FROM ads_targeting t WHERE t.CampaignID IN (SELECT c.CampaignID {sd}) ORDER BY 1"
    ));
    assert!(!campaigns.is_empty() && !groups.is_empty() && !targets.is_empty());
    let (s, c) = list(&a, "/sd/campaigns").await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(ids(&c, "campaignId"), campaigns);
    assert_eq!(c[0]["state"], "enabled");
    assert_eq!(c[0]["budgetType"], "daily");
    let (_, g) = list(&a, "/sd/adGroups").await;
    assert_eq!(ids(&g, "adGroupId"), groups);
    let (_, t) = list(&a, "/sd/targets").await;
    assert_eq!(ids(&t, "targetId"), targets);
    assert_eq!(t[0]["expression"][0]["type"], "views", "{t}");
    // filters and pages
    let first = campaigns[0];
    let (_, g) = list(&a, &format!("/sd/adGroups?campaignIdFilter={first}")).await;
    assert!(
        g.as_array()
            .unwrap()
            .iter()
            .all(|e| e["campaignId"] == first)
    );
    let (_, p) = list(&a, "/sd/campaigns?startIndex=1&count=1").await;
    assert_eq!(ids(&p, "campaignId"), campaigns[1..2]);
    let (_, none) = list(&a, "/sd/campaigns?stateFilter=archived").await;
    assert_eq!(none, json!([]));
    let (s, _) = list(&a, "/sd/campaigns?count=0").await;
    assert_eq!(s, 400);
    // the gate applies: a throttle rule answers 429 once
    app.faults(json!([{"op": "sd.listTargets", "effect": "throttle", "times": 1}]))
        .await;
    assert_eq!(list(&a, "/sd/targets").await.0, 429);
    assert_eq!(list(&a, "/sd/targets").await.0, 200);
}

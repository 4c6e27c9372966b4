//! The world moving forward through the control surface (`/__sandbox/world`): the days it
//! had stay, new days are served, and a restarted sandbox keeps serving the world it moved to.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};
use crate::spapi_reports::document_of;

/// Issue 53: the world's today moves forward by a control call, deterministically.
#[tokio::test]
async fn the_world_moves_forward_and_serves_its_new_days() {
    let app = SimApp::start().await;
    let (s, _, now) = parts(
        app.control(Method::GET, "/__sandbox/world")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(
        (now["firstDay"].as_str(), now["lastDay"].as_str()),
        (Some("2023-11-22"), Some("2026-11-21")),
        "{now}"
    );
    // nonsense is refused and changes nothing
    for bad in [
        json!({"days": 0}),
        json!({"days": 400}),
        json!({"weeks": 1}),
    ] {
        let r = app
            .control(Method::POST, "/__sandbox/world")
            .json(&bad)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{bad}");
    }
    let (s, _, moved) = parts(
        app.control(Method::POST, "/__sandbox/world")
            .json(&json!({"days": 10}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200, "{moved}");
    assert_eq!(
        (
            moved["firstDay"].as_str(),
            moved["lastDay"].as_str(),
            moved["today"].as_str()
        ),
        (Some("2023-11-22"), Some("2026-12-01"), Some("2026-12-02")),
        "{moved}"
    );
    // the world it serves is, byte for byte, the world generated at the later today
    let later = pp_world::WorldSpec::new(
        1,
        pp_world::Scale::Tiny,
        chrono::NaiveDate::from_ymd_opt(2026, 12, 2).unwrap(),
    );
    let later = pp_world::WorldSpec {
        origin: chrono::NaiveDate::from_ymd_opt(2023, 11, 22).unwrap(),
        ..later
    };
    let generated = pp_world::generate_sqlite(&later, &app.dir.path().join("later")).unwrap();
    let served = app
        .dir
        .path()
        .join("sim/worlds/2026-12-02/warehouse.sqlite");
    assert!(
        std::fs::read(&served).unwrap() == std::fs::read(&generated.warehouse).unwrap(),
        "the moved world is the world generated at its today"
    );
    // a report over the new days has them
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    let text = document_of(
        &app,
        &token,
        json!({
            "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
            "marketplaceIds": [US],
            "dataStartTime": "2026-11-25T00:00:00Z",
            "dataEndTime": "2026-12-01T00:00:00Z",
            "reportOptions": {"dateGranularity": "DAY", "asinGranularity": "CHILD"}
        }),
    )
    .await;
    let report: Value = serde_json::from_str(&text).unwrap();
    let days: Vec<&str> = report["salesAndTrafficByDate"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["date"].as_str().unwrap())
        .collect();
    assert_eq!(days.first(), Some(&"2026-11-25"));
    assert_eq!(days.last(), Some(&"2026-12-01"), "{days:?}");
    // a sandbox started again over the same state serves the world it moved to
    let again = pp_sandbox::Sim::open(app.sim.config.clone()).unwrap();
    assert_eq!(again.world().last_day.to_string(), "2026-12-01");
}

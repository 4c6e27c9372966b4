//! The selling side's Notifications API: a destination for a queue (one per ARN), a seller's
//! subscription per type (one per type), bad requests refused with the provider's words; then
//! a finished report's `REPORT_PROCESSING_FINISHED` naming its document, and the orders of a
//! day the world moves into as `ORDER_CHANGE`, each the notification itself on the queue.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};
use crate::spapi_reports::create;
use crate::streams::{sandbox_sqs, settle};

async fn call(app: &SimApp, token: &str, method: Method, path: &str, body: Value) -> (u16, Value) {
    let mut req = app.sp(method, path, token);
    if !body.is_null() {
        req = req.json(&body);
    }
    let (s, _, b) = parts(req.send().await.unwrap()).await;
    (s, b)
}

/// The notification type of a message body, in either spelling.
fn kind(v: &Value) -> &str {
    v.get("NotificationType")
        .or_else(|| v.get("notificationType"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[tokio::test]
async fn a_subscription_hears_its_reports_finish_and_the_days_orders() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    let sqs = sandbox_sqs(&app);
    let url = sqs.create_queue("notes").await.unwrap();
    let arn = "arn:aws:sqs:us-east-1:111122223333:notes";

    // destinations: one per queue, and only for a queue that exists
    let spec =
        |arn: &str| json!({ "name": "pp", "resourceSpecification": { "sqs": { "arn": arn } } });
    let (s, d) = call(
        &app,
        &token,
        Method::POST,
        "/notifications/v1/destinations",
        spec(arn),
    )
    .await;
    assert_eq!(s, 200, "{d}");
    let dest = d["payload"]["destinationId"].as_str().unwrap().to_owned();
    let (s, b) = call(
        &app,
        &token,
        Method::POST,
        "/notifications/v1/destinations",
        spec(arn),
    )
    .await;
    assert_eq!(s, 409, "{b}");
    let missing = "arn:aws:sqs:us-east-1:111122223333:nowhere";
    let (s, b) = call(
        &app,
        &token,
        Method::POST,
        "/notifications/v1/destinations",
        spec(missing),
    )
    .await;
    assert_eq!(s, 400, "{b}");
    let (s, b) = call(
        &app,
        &token,
        Method::POST,
        "/notifications/v1/destinations",
        json!({ "name": "pp" }),
    )
    .await;
    assert_eq!(s, 400, "{b}");
    let (s, listed) = call(
        &app,
        &token,
        Method::GET,
        "/notifications/v1/destinations",
        Value::Null,
    )
    .await;
    assert_eq!(
        (s, listed["payload"].as_array().unwrap().len()),
        (200, 1),
        "{listed}"
    );

    // subscriptions: a type the sandbox sends, to a destination that exists, once
    let sub = json!({ "payloadVersion": "1.0", "destinationId": dest });
    let path = |t: &str| format!("/notifications/v1/subscriptions/{t}");
    let (s, b) = call(
        &app,
        &token,
        Method::POST,
        &path("B2B_ANY_OFFER_CHANGED"),
        sub.clone(),
    )
    .await;
    assert_eq!(s, 400, "{b}");
    let (s, b) = call(
        &app,
        &token,
        Method::POST,
        &path("ORDER_CHANGE"),
        json!({ "payloadVersion": "1.0", "destinationId": "nope" }),
    )
    .await;
    assert_eq!(s, 400, "{b}");
    for t in [
        "ORDER_CHANGE",
        "REPORT_PROCESSING_FINISHED",
        "ITEM_SALES_EVENT_CHANGE",
    ] {
        let (s, b) = call(&app, &token, Method::POST, &path(t), sub.clone()).await;
        assert_eq!(s, 200, "{b}");
        let (s, again) = call(&app, &token, Method::POST, &path(t), sub.clone()).await;
        assert_eq!(s, 409, "{again}");
        let (s, got) = call(&app, &token, Method::GET, &path(t), Value::Null).await;
        assert_eq!((s, &got["payload"]), (200, &b["payload"]), "{got}");
    }

    // a report finishes: its notice names it and its document
    let (s, r) = create(
        &app,
        &token,
        json!({
            "reportType": "GET_SALES_AND_TRAFFIC_REPORT", "marketplaceIds": [US],
            "dataStartTime": "2026-11-01T00:00:00Z", "dataEndTime": "2026-11-07T23:59:59Z",
        }),
    )
    .await;
    assert_eq!(s, 202, "{r}");
    let id = r["reportId"].as_str().unwrap();
    let heard: Vec<Value> = settle(&sqs, &url)
        .await
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    let report = heard
        .iter()
        .find(|v| kind(v) == "REPORT_PROCESSING_FINISHED")
        .unwrap_or_else(|| panic!("no report notice: {heard:?}"));
    let said = &report["payload"]["reportProcessingFinishedNotification"];
    assert_eq!(
        (said["reportId"].as_str(), said["processingStatus"].as_str()),
        (Some(id), Some("DONE")),
        "{report}"
    );
    let (_, got) = call(
        &app,
        &token,
        Method::GET,
        &format!("/reports/2021-06-30/reports/{id}"),
        Value::Null,
    )
    .await;
    assert_eq!(said["reportDocumentId"], got["reportDocumentId"], "{got}");

    // the world moves a day: that day's orders, each once (a redelivery repeats an id)
    let r = app
        .control(Method::POST, "/__sandbox/world")
        .json(&json!({ "days": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let heard: Vec<Value> = settle(&sqs, &url)
        .await
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    let orders: BTreeSet<&str> = heard
        .iter()
        .filter(|v| kind(v) == "ORDER_CHANGE")
        .map(|v| {
            v["Payload"]["OrderChangeNotification"]["AmazonOrderId"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(!orders.is_empty(), "{heard:?}");
    // the same day's hours of sales, each ASIN's units summed: the orders' units (a redelivery
    // counted once)
    let order_units: BTreeMap<String, i64> = heard
        .iter()
        .filter(|v| kind(v) == "ORDER_CHANGE")
        .map(|v| &v["Payload"]["OrderChangeNotification"])
        .map(|o| (o["AmazonOrderId"].as_str().unwrap(), o))
        .collect::<BTreeMap<_, _>>()
        .values()
        .fold(BTreeMap::new(), |mut m, o| {
            let item = &o["Summary"]["OrderItems"][0];
            *m.entry(item["SellerSKU"].as_str().unwrap().to_owned())
                .or_default() += item["Quantity"].as_i64().unwrap();
            m
        });
    let hours: BTreeMap<&str, &Value> = heard
        .iter()
        .filter(|v| kind(v) == "ITEM_SALES_EVENT_CHANGE")
        .map(|v| {
            (
                v["notificationMetadata"]["notificationId"]
                    .as_str()
                    .unwrap(),
                v,
            )
        })
        .collect();
    assert!(!hours.is_empty(), "{heard:?}");
    let mut hour_units = 0;
    for v in hours.values() {
        for c in v["payload"]["itemSalesEventChanges"].as_array().unwrap() {
            hour_units += c["orderedUnits"].as_i64().unwrap();
        }
    }
    assert_eq!(hour_units, order_units.values().sum::<i64>(), "{heard:?}");
    for v in &heard {
        assert!(
            v["NotificationMetadata"]["NotificationId"].is_string()
                || v["notificationMetadata"]["notificationId"].is_string(),
            "{v}"
        );
    }

    // a replay asks for days the world has
    let r = app
        .control(Method::POST, "/__sandbox/notifications/replay")
        .json(&json!({ "from": "2026-11-20", "through": "2026-11-10" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

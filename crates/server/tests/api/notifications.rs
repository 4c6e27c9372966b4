//! The selling side's notifications into the feed (omega, synced from acme's world, on the
//! sandbox's queues): subscribing makes the tenant's notifications queue, its destination and
//! each seller's subscription to every type; when the world moves on, every order of the new
//! days (and, summed by hour, their units) and every injected event a notification carries (a stock-out's start and end, a price
//! test's, a promotion's, a launch) reaches the feed within the time docs/streams.md states,
//! once each although the sandbox sends some twice. With the advertising streams stopped,
//! their queues show as lagging and the daily sync still fills the new days — and it fetches
//! its selling-side reports on the provider's word that they finished, never asking after
//! their status.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use pp_auth::Role;

use crate::common::{Options, Queues, TestApp};
use crate::signin_support::{Browser, PASSWORD, person_in};
use crate::streams::{streamed_with, until_streamed};
use crate::warehouse_sync::until;

/// The longest docs/streams.md says a notification takes from its publication to the feed.
const STATED: Duration = Duration::from_secs(15);

const TYPES: &str =
    "order.changed,offer.changed,inventory.changed,listing.status_changed,item.sales_changed";

/// The feed's notification events after `cursor`, all pages; the cursor after them.
async fn read_feed(app: &TestApp, t: &str, cursor: &mut Option<String>) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let mut path = format!("/api/events?type={TYPES}&limit=500");
        if let Some(c) = cursor.as_deref() {
            path.push_str(&format!("&after={c}"));
        }
        let (s, b) = app.get(t, &path).await;
        assert_eq!(s, 200, "{b}");
        out.extend(b["events"].as_array().unwrap().iter().cloned());
        if b["cursor"].is_string() {
            *cursor = b["cursor"].as_str().map(str::to_owned);
        }
        if b["more"] != true {
            return out;
        }
    }
}

/// What the world did on the days after `after` through `through` that a notification
/// carries: (event type, the ASIN or order id) → how many times, from the moved world's
/// ground truth and warehouse.
fn expected(
    world_dir: &std::path::Path,
    partners: &BTreeSet<String>,
    after: &str,
    through: &str,
) -> BTreeMap<(String, String), usize> {
    let truth: Value =
        serde_json::from_slice(&std::fs::read(world_dir.join("ground-truth.json")).unwrap())
            .unwrap();
    let c = rusqlite::Connection::open(world_dir.join("warehouse.sqlite")).unwrap();
    let sellers: BTreeSet<i64> = c
        .prepare("SELECT ID, MarketplaceSellerID FROM seller")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, String>(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .filter(|(_, token)| partners.contains(token))
        .map(|(id, _)| id)
        .collect();
    let next =
        |d: &str| (d.parse::<chrono::NaiveDate>().unwrap() + chrono::Duration::days(1)).to_string();
    let inside = |d: &str| d > after && d <= through;
    let mut want: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut add = |kind: &str, id: &str| {
        *want.entry((kind.to_owned(), id.to_owned())).or_default() += 1;
    };
    for e in truth["events"].as_array().unwrap() {
        let Some(seller) = e["seller_id"].as_i64().filter(|s| sellers.contains(s)) else {
            continue;
        };
        let asin = e["asin"].as_str().unwrap_or_default();
        let days = |k: &str| match e[k].as_str() {
            Some(d) => vec![d.to_owned()],
            None => vec![],
        };
        match e["kind"].as_str().unwrap() {
            "stock_out" | "price_test" | "promotion" => {
                let kind = if e["kind"] == "stock_out" {
                    "inventory.changed"
                } else {
                    "offer.changed"
                };
                let ends: Vec<String> = days("end").iter().map(|d| next(d)).collect();
                for d in days("start").iter().chain(ends.iter()) {
                    if !inside(d) {
                        continue;
                    }
                    if e["kind"] == "promotion" {
                        let brand = e["brand"].as_str().unwrap();
                        let mut st = c
                            .prepare(
                                "SELECT ASIN FROM catalog_item WHERE SellerID = ?1 AND LOWER(REPLACE(Brand, ' ', '-')) = ?2",
                            )
                            .unwrap();
                        let asins: Vec<String> = st
                            .query_map(rusqlite::params![seller, brand], |r| r.get(0))
                            .unwrap()
                            .map(Result::unwrap)
                            .collect();
                        for a in asins {
                            add(kind, &a);
                        }
                    } else {
                        add(kind, asin);
                    }
                }
            }
            // a vendor's item has no listing (no SKU): no listing notification
            "launch" if days("date").iter().any(|d| inside(d)) => {
                let sku: Option<String> = c
                    .query_row(
                        "SELECT SKU FROM catalog_item WHERE SellerID = ?1 AND ASIN = ?2",
                        rusqlite::params![seller, asin],
                        |r| r.get(0),
                    )
                    .unwrap();
                if sku.is_some() {
                    add("listing.status_changed", asin)
                }
            }
            _ => {}
        }
    }
    let (mut orders, mut units): (i64, i64) = (0, 0);
    for id in &sellers {
        let (o, u) = c
            .query_row(
                "SELECT COALESCE(SUM(TotalOrderItems), 0), COALESCE(SUM(UnitsOrdered), 0) FROM spapi_sales_and_traffic_by_asin
                 WHERE SellerID = ?1 AND Date > ?2 AND Date <= ?3",
                rusqlite::params![id, after, through],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .unwrap();
        orders += o;
        units += u;
    }
    want.insert(("order.changed".into(), "*".into()), orders as usize);
    // the hours' sales notifications: their units, summed, are the days' units ordered
    want.insert(
        ("item.sales_changed".into(), "units".into()),
        units as usize,
    );
    want
}

/// The feed's events the same way: orders counted together, each other by its ASIN, the
/// hours' sales by their units.
fn seen(events: &[Value]) -> BTreeMap<(String, String), usize> {
    let mut got: BTreeMap<(String, String), usize> = BTreeMap::new();
    for e in events {
        let kind = e["type"].as_str().unwrap().to_owned();
        if kind == "item.sales_changed" {
            let units: i64 = e["data"]["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["orderedUnits"].as_i64().unwrap())
                .sum();
            *got.entry((kind, "units".into())).or_default() += units as usize;
            continue;
        }
        let id = if kind == "order.changed" {
            "*".to_owned()
        } else {
            e["subject"]["asin"].as_str().unwrap().to_owned()
        };
        *got.entry((kind, id)).or_default() += 1;
    }
    got
}

#[tokio::test]
async fn every_world_event_a_notification_carries_reaches_the_feed_in_time_and_reports_need_no_polling()
 {
    let (app, t) = streamed_with(Options {
        streams: Some(Queues::Sandbox),
        stream_backfill_days: 1,
        stream_lagging_after: Some(Duration::from_secs(5)),
        ..Options::default()
    })
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{b}");
    let notified: Vec<&Value> = b["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["dataset"].as_str().unwrap().contains('_'))
        .collect();
    // each selling partner with a working grant (two sellers and the vendor), to six types
    let partners: BTreeSet<String> = notified
        .iter()
        .map(|s| s["profileId"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!((partners.len(), notified.len()), (3, 18), "{b:#}");
    // subscribing again makes nothing new at the provider
    let (s, again) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{again}");
    // (the same subscriptions; a stream's status may have moved on from pending meanwhile)
    let ids = |v: &Value| -> Vec<(String, String)> {
        v["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let text = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
                (text("dataset"), text("subscriptionId"))
            })
            .collect()
    };
    assert_eq!(ids(&again), ids(&b), "{again:#}");
    until_streamed(&app, &t, 100).await;

    // the advertising streams stop; the notifications go on
    let listed = app
        .sandbox(reqwest::Method::GET, "/__sandbox/streams", Value::Null)
        .await;
    for sub in listed["subscriptions"].as_array().unwrap() {
        app.sandbox(
            reqwest::Method::POST,
            "/__sandbox/streams",
            json!({ "paused": true, "subscriptionId": sub["subscription"]["subscriptionId"] }),
        )
        .await;
    }
    let reader = app
        .token(
            &app.credential("omega", Some("retail:read account:read"))
                .await,
        )
        .await;
    let mut cursor = None;
    assert_eq!(
        read_feed(&app, &reader, &mut cursor).await,
        Vec::<Value>::new()
    );
    let polled_before = app.sandbox_calls("reports.getReport").await;

    // the world's three years of injected events, replayed (the world makes them all before
    // today: a subscription hears them only so)
    let world = app
        .sandbox(reqwest::Method::GET, "/__sandbox/world", Value::Null)
        .await;
    let before = world["lastDay"].as_str().unwrap().to_owned();
    let first = world["firstDay"].as_str().unwrap().to_owned();
    let replayed = app
        .sandbox(
            reqwest::Method::POST,
            "/__sandbox/notifications/replay",
            json!({ "from": first, "through": before,
                    "types": ["ANY_OFFER_CHANGED", "FBA_INVENTORY_AVAILABILITY_CHANGES", "LISTINGS_ITEM_STATUS_CHANGE"] }),
        )
        .await;
    assert!(replayed["sent"].as_u64().unwrap() > 0, "{replayed}");
    let acme_world = app.warehouse_file("acme");
    let day_before =
        (first.parse::<chrono::NaiveDate>().unwrap() - chrono::Duration::days(1)).to_string();
    let mut want = expected(
        acme_world.parent().unwrap(),
        &partners,
        &day_before,
        &before,
    );
    // (the replay sends no orders and no hours' sales)
    want.remove(&("order.changed".to_owned(), "*".to_owned()));
    want.remove(&("item.sales_changed".to_owned(), "units".to_owned()));
    for kind in [
        "inventory.changed",
        "offer.changed",
        "listing.status_changed",
    ] {
        assert!(
            want.keys().any(|(k, _)| k == kind),
            "the world has a {kind}: {want:?}"
        );
    }
    // then the world moves on: every order of the new days
    let moved = app
        .sandbox(
            reqwest::Method::POST,
            "/__sandbox/world",
            json!({ "days": 3 }),
        )
        .await;
    let today = moved["today"].as_str().unwrap().to_owned();
    let last =
        (today.parse::<chrono::NaiveDate>().unwrap() - chrono::Duration::days(1)).to_string();
    let world_dir = app.dir.path().join("sim/worlds").join(&today);
    for (k, n) in expected(&world_dir, &partners, &before, &last) {
        *want.entry(k).or_default() += n;
    }

    let began = Instant::now();
    let mut events = Vec::new();
    loop {
        events.extend(read_feed(&app, &reader, &mut cursor).await);
        if seen(&events) == want {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(180),
            "the feed has {:?}\nthe world did {want:?}",
            seen(&events)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // each at most the stated time after the provider published it, and told once
    let mut slowest = Duration::ZERO;
    let mut ids = BTreeSet::new();
    for e in &events {
        let at = |v: &Value| {
            chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap())
                .unwrap()
                .timestamp_millis()
        };
        let took = Duration::from_millis(
            (at(&e["timestamp"]) - at(&e["data"]["publishTime"])).max(0) as u64,
        );
        slowest = slowest.max(took);
        assert!(took <= STATED, "{e:#} took {took:?}");
        assert!(
            ids.insert(e["data"]["notificationId"].as_str().unwrap().to_owned()),
            "told twice: {e:#}"
        );
    }
    eprintln!(
        "{} notifications, the slowest into the feed in {slowest:?}",
        events.len()
    );
    let (_, status) = app.get(&t, "/api/warehouse/streams").await;
    let queue = |name: &str| {
        status["queues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["dataset"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} queue: {status:#}"))
    };
    let notices = queue("notifications");
    assert!(
        notices["duplicates"].as_i64().unwrap() > 0,
        "the sandbox's second sends were dropped: {notices}"
    );
    assert_eq!(notices["rejected"], 0, "{notices}");

    // the daily sync fills the new days with the streams stopped, asking no report's status
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    // every dataset through the new last day (the weekly search queries through the last
    // whole week, which the three days did not end)
    let through = |r: &Value| {
        r["state"] == "unavailable"
            || (r["state"] == "synced"
                && (r["dataThrough"] == last.as_str()
                    || r["dataset"] == "search_query_performance"))
    };
    until(&app, &t, Duration::from_secs(240), through).await;
    let omega = rusqlite::Connection::open(app.warehouse_file("omega")).unwrap();
    for table in ["spapi_sales_and_traffic_by_date", "ads_campaign_daily"] {
        let newest: String = omega
            .query_row(&format!("SELECT MAX(Date) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(newest, last, "{table}");
    }
    let hourly: i64 = omega
        .query_row(
            "SELECT COUNT(*) FROM ads_stream_traffic_hourly WHERE Date > ?1",
            [&before],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        hourly, 0,
        "the stopped streams sent nothing of the new days"
    );
    assert_eq!(
        app.sandbox_calls("reports.getReport").await,
        polled_before,
        "the sync asked after a report the provider had said was finished"
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (_, status) = app.get(&t, "/api/warehouse/streams").await;
    for q in status["queues"].as_array().unwrap() {
        if q["dataset"] != "notifications" {
            assert_eq!(q["state"], "lagging", "{q}");
        }
    }
    // an admin sees the same on the console's sync page
    let email = person_in(&app, "omega", "ona@omega.example", Role::Admin).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&email, PASSWORD).await;
    let page = browser.get("/console/sync").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let streams = page.body.split("id=\"streams\"").nth(1).unwrap_or_default();
    for dataset in ["sp-traffic", "budget-usage", "notifications"] {
        assert!(
            streams.contains(&format!("<td>{dataset}</td>")),
            "{dataset}: {streams}"
        );
    }
    assert!(streams.contains(">lagging</span>"), "{streams}");
    // the metrics show each dataset's messages and its longest lag, over every tenant
    let text = app
        .http
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sample = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().parse().unwrap()))
            .unwrap_or_else(|| panic!("no {name} in the metrics"))
    };
    let received = sample("pp_stream_messages{dataset=\"notifications\",kind=\"received\"}");
    assert!(received >= events.len() as f64, "{received}");
    assert!(sample("pp_stream_messages{dataset=\"notifications\",kind=\"duplicate\"}") > 0.0);
    assert!(sample("pp_stream_lag_seconds{dataset=\"sp-traffic\"}") >= 5.0);
}

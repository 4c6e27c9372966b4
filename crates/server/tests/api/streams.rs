//! Marketing Stream into a managed warehouse (omega, synced from acme's world): the gateway
//! makes its queues, subscribes every advertising profile to every dataset, confirms, and its
//! consumer — killed again and again mid-batch, with a second instance on the same state —
//! keeps every record once: every day's hours sum to the daily reports to the cent, the
//! duplicates the sandbox sends are counted and dropped, and the restated days' deltas are
//! added. On the sandbox's own queues and on a real SQS server (moto's).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Options, Queues, TestApp};
use crate::warehouse_sync::until_synced;

const SCOPES: &str = "account:read ads:read sync:write";

async fn streamed(queues: Queues, backfill: i64) -> (TestApp, String) {
    streamed_with(Options {
        streams: Some(queues),
        stream_backfill_days: backfill,
        ..Options::default()
    })
    .await
}

/// omega synced from acme's world on an app with `options` (unpaced, unlimited, reports made
/// at once); a token with `SCOPES`.
pub(crate) async fn streamed_with(options: Options) -> (TestApp, String) {
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        ..options
    })
    .await;
    let t = app
        .token(&app.credential("omega", Some(SCOPES)).await)
        .await;
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    until_synced(&app, &t, Duration::from_secs(240)).await;
    (app, t)
}

/// The rows of a status list (queues or subscriptions) that are the advertising streams', not
/// the notifications'.
fn stream_queues(rows: &Value) -> Vec<&Value> {
    let streams: Vec<&str> = pp_sync::stream::message::DATASETS
        .iter()
        .map(|d| d.0)
        .collect();
    rows.as_array()
        .unwrap()
        .iter()
        .filter(|r| streams.contains(&r["dataset"].as_str().unwrap()))
        .collect()
}

/// The messages on the gateway's queues, waiting or received and not yet deleted.
async fn on_queues(app: &TestApp) -> u64 {
    let sqs = app.stream_sqs().expect("an app with stream queues");
    let mut n = 0;
    for (_, _, url) in app.store.streams().queues().await.unwrap() {
        let (ready, hidden) = sqs.depth(&url).await.unwrap();
        n += ready + hidden;
    }
    n
}

/// Whether the sandbox has sent every active subscription (not paused) through the world's
/// last day.
async fn all_sent(app: &TestApp) -> bool {
    let last = app
        .sandbox(reqwest::Method::GET, "/__sandbox/world", Value::Null)
        .await["lastDay"]
        .clone();
    let sent = app
        .sandbox(reqwest::Method::GET, "/__sandbox/streams", Value::Null)
        .await;
    sent["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["paused"] == false)
        .all(|s| s["deliveredThrough"] == last)
}

/// Polls the streams' status until the sandbox has sent everything, the queues are empty
/// (nothing waiting, nothing in a consumer's hands), the count has stood still, and nothing
/// is left to make.
pub(crate) async fn until_streamed(app: &TestApp, t: &str, want_messages: i64) -> Value {
    until_streamed_within(app, t, want_messages, Duration::from_secs(180)).await
}

/// [`until_streamed`], failing after `limit`.
pub(crate) async fn until_streamed_within(
    app: &TestApp,
    t: &str,
    want_messages: i64,
    limit: Duration,
) -> Value {
    let began = Instant::now();
    let (mut last, mut same) = (-1, 0);
    loop {
        let (s, b) = app.get(t, "/api/warehouse/streams").await;
        assert_eq!(s, 200, "{b}");
        let messages: i64 = b["queues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["messages"].as_i64().unwrap())
            .sum();
        let pending = app.store.streams().any_pending().await.unwrap();
        same = if messages == last { same + 1 } else { 0 };
        if messages >= want_messages
            && !pending
            && same >= 2
            && all_sent(app).await
            && on_queues(app).await == 0
        {
            return b;
        }
        assert!(began.elapsed() < limit, "the streams did not settle: {b:#}");
        last = messages;
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
}

/// (merchant token, marketplace id, day, campaign, ad group, target) → measures, summed from
/// `sql` over the warehouse at `path` (whose first six columns are the key; its seller ids
/// mapped through its own `seller` table).
fn totals(path: &Path, sql: &str, from: &str) -> BTreeMap<Vec<String>, Vec<i64>> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut st = c.prepare(sql).unwrap();
    let n = st.column_count();
    st.query_map([from], |r| {
        let key = (0..6)
            .map(|i| {
                r.get::<_, rusqlite::types::Value>(i)
                    .map(|v| format!("{v:?}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let vals = (6..n)
            .map(|i| r.get::<_, f64>(i).map(|v| (v * 100.0).round() as i64))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((key, vals))
    })
    .unwrap()
    .map(Result::unwrap)
    .filter(|(_, v)| v.iter().any(|x| *x != 0))
    .collect()
}

const DAILY: &str = "SELECT s.MarketplaceSellerID, s.MarketplaceID, d.Date, d.CampaignID, d.AdGroupID, d.TargetingID, {m}
    FROM ads_targeting_daily d JOIN seller s ON s.ID = d.SellerID WHERE d.Date >= ?1
    GROUP BY 1, 2, 3, 4, 5, 6";
const HOURLY: &str = "SELECT s.MarketplaceSellerID, s.MarketplaceID, h.Date, h.CampaignID, h.AdGroupID, h.TargetingID, {m}
    FROM {t} h JOIN seller s ON s.ID = h.SellerID WHERE h.Date >= ?1
    GROUP BY 1, 2, 3, 4, 5, 6";
const TRAFFIC: (&str, &str) = (
    "ads_stream_traffic_hourly",
    "SUM(Impressions) / 100.0, SUM(Clicks) / 100.0, SUM(Cost)",
);
const CONVERSIONS: (&str, &str) = (
    "ads_stream_conversion_hourly",
    "SUM(Purchases7d) / 100.0, SUM(Sales7d)",
);

/// The hourly table's totals by target-day in omega's warehouse.
fn hours(omega: &Path, (table, m): (&str, &str), from: &str) -> BTreeMap<Vec<String>, Vec<i64>> {
    totals(omega, &HOURLY.replace("{m}", m).replace("{t}", table), from)
}

/// Every target-day's hours in omega (at least `least` of them) equal the world's daily
/// report, to the cent; else the keys that differ, the first ten.
fn same(world: &Path, omega: &Path, what: (&str, &str), from: &str, least: usize) {
    let daily = totals(world, &DAILY.replace("{m}", what.1), from);
    let hourly = hours(omega, what, from);
    assert!(
        hourly.len() >= least,
        "{} {} target-days",
        hourly.len(),
        what.0
    );
    let keys: std::collections::BTreeSet<&Vec<String>> =
        hourly.keys().chain(daily.keys()).collect();
    let off: Vec<String> = keys
        .into_iter()
        .filter(|k| hourly.get(*k) != daily.get(*k))
        .take(10)
        .map(|k| {
            format!(
                "{k:?}: hours {:?}, report {:?}",
                hourly.get(k),
                daily.get(k)
            )
        })
        .collect();
    assert!(
        off.is_empty(),
        "{}: every day's hours are its report, to the cent; not so for\n{}",
        what.0,
        off.join("\n")
    );
}

#[tokio::test]
async fn the_hours_of_every_day_sum_to_its_reports_through_kills_a_second_instance_and_restatements()
 {
    let (app, t) = streamed(Queues::Sandbox, 20).await;
    let reader = app
        .token(&app.credential("omega", Some("account:read")).await)
        .await;
    let (s, b) = app.post(&reader, "/api/warehouse/streams", json!({})).await;
    assert_eq!(
        (s, b["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{b}"
    );
    // a campaign half through its budget before 23:00 counts as out of budget by the hour
    let admin = app
        .token(&app.credential("omega", Some(crate::events::HOOKS)).await)
        .await;
    let r = app
        .http
        .put(app.url("/api/monitors/settings"))
        .bearer_auth(&admin)
        .json(&json!({ "outOfBudgetByHour": { "hour": 23, "share": 0.5 } }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (s, b) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{b}");
    // three sellers' profiles (the vendor has none) × seven datasets (beside the selling
    // partners' notifications, tests/api/notifications.rs)
    assert_eq!(stream_queues(&b["subscriptions"]).len(), 21, "{b:#}");
    // the consumer is killed again and again, and a second instance runs beside it
    app.second_worker_pool().await;
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        app.restart_workers().await;
    }
    let status = until_streamed(&app, &t, 1000).await;
    let sent = app
        .sandbox(reqwest::Method::GET, "/__sandbox/streams", Value::Null)
        .await;
    for q in stream_queues(&status["queues"]) {
        assert_eq!(q["state"], "flowing", "{q}\nthe sandbox sent: {sent:#}");
        assert_eq!(q["rejected"], 0, "{q}");
    }
    let dupes: i64 = status["queues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["duplicates"].as_i64().unwrap())
        .sum();
    assert!(
        dupes > 0,
        "the sandbox's duplicates were seen and dropped: {status:#}"
    );
    assert!(status["daysChecked"].as_u64().unwrap() > 20, "{status:#}");
    assert_eq!(status["daysChecked"], status["daysMatching"], "{status:#}");
    assert_eq!(status["differences"], json!([]));

    let world = app.warehouse_file("acme");
    let omega = app.warehouse_file("omega");
    let from = {
        let c = rusqlite::Connection::open(&world).unwrap();
        let last: String = c
            .query_row("SELECT MAX(Date) FROM ads_targeting_daily", [], |r| {
                r.get(0)
            })
            .unwrap();
        (last.parse::<chrono::NaiveDate>().unwrap() - chrono::Duration::days(19)).to_string()
    };
    same(&world, &omega, TRAFFIC, &from, 51);
    same(&world, &omega, CONVERSIONS, &from, 1);
    intraday_monitors_judge_the_streams_last_day(&app, &admin, &omega).await;
    daypart_finds_the_best_hours(&app, &world, &from).await;

    // the world moves two days: the attributed days restate, as deltas
    let moved = app
        .sandbox(
            reqwest::Method::POST,
            "/__sandbox/world",
            json!({ "days": 2 }),
        )
        .await;
    let today = moved["today"].as_str().unwrap().to_owned();
    let later = app
        .dir
        .path()
        .join("sim/worlds")
        .join(&today)
        .join("warehouse.sqlite");
    let before = hours(&omega, CONVERSIONS, &from);
    let began = Instant::now();
    loop {
        if hours(&omega, CONVERSIONS, &from) != before
            && !app.store.streams().any_pending().await.unwrap()
        {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "no restatement arrived"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    until_streamed(&app, &t, 1000).await;
    same(&later, &omega, CONVERSIONS, &from, 1);
    same(&later, &omega, TRAFFIC, &from, 51);
}

/// The intraday monitors ran as the hours arrived, without a sync: on the stream's last day,
/// the campaigns whose streamed budget use reached half before 23:00 are out of budget by the
/// hour — exactly those, each episode seen that day.
async fn intraday_monitors_judge_the_streams_last_day(app: &TestApp, t: &str, omega: &Path) {
    let c = rusqlite::Connection::open(omega).unwrap();
    let last: String = c
        .query_row("SELECT MAX(Date) FROM ads_stream_budget_usage", [], |r| {
            r.get(0)
        })
        .unwrap();
    let want: BTreeSet<String> = c
        .prepare(
            "SELECT DISTINCT SellerID || ':' || CampaignID FROM ads_stream_budget_usage
             WHERE Date = ?1 AND Hour < 23 AND CAST(ROUND(BudgetUsagePercentage * 100) AS INTEGER) >= 5000",
        )
        .unwrap()
        .query_map([&last], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        !want.is_empty(),
        "no campaign spent half its budget on {last}"
    );
    let began = Instant::now();
    loop {
        let (s, v) = app.get(t, "/api/monitors").await;
        assert_eq!(s, 200, "{v}");
        let seen: BTreeSet<String> = v["open"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["monitor"] == "out_of_budget_by_hour" && e["lastSeenOn"] == last.as_str())
            .map(|e| e["subject"].as_str().unwrap().to_owned())
            .collect();
        if seen == want {
            eprintln!(
                "{} campaigns out of budget by the hour on {last}",
                seen.len()
            );
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "out of budget by the hour on {last}: {seen:?}, the stream says {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `INS-DAYPART-01` over omega's streamed hours from `from`: a week of 168 cells for every
/// campaign, and best hours named only near the world's (its `best_hour`); then the console's
/// Hours page in a browser.
async fn daypart_finds_the_best_hours(app: &TestApp, world: &Path, from: &str) {
    let t = app
        .token(&app.credential("omega", Some("intelligence:read")).await)
        .await;
    let truth: Value =
        serde_json::from_slice(&std::fs::read(world.with_file_name("ground-truth.json")).unwrap())
            .unwrap();
    let best: BTreeMap<String, u64> = truth["hours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["campaign_id"].to_string(),
                h["best_hour"].as_u64().unwrap(),
            )
        })
        .collect();
    let c = rusqlite::Connection::open(world).unwrap();
    let last: String = c
        .query_row("SELECT MAX(Date) FROM ads_targeting_daily", [], |r| {
            r.get(0)
        })
        .unwrap();
    let (mut found, mut thin) = (0, 0);
    // the US seller's busiest campaign's best hours, as the Hours page names them
    let mut first_best = String::new();
    for (seller, market) in [
        ("A2DEMOSELLER01", "ATVPDKIKX0DER"),
        ("A2DEMOSELLER01", "A2EUQ1WTGCTBG2"),
        ("A1DEMOSELLERMX", "A1AM78C64UM0Y8"),
    ] {
        let (s, r) = app
            .post(
                &t,
                "/api/intelligence/run",
                json!({ "id": "INS-DAYPART-01", "params": {
                    "sellerId": seller, "marketplaceId": market,
                    "period": { "start": from, "end": last },
                } }),
            )
            .await;
        assert_eq!((s, &r["status"]), (200, &json!("succeeded")), "{r}");
        let result = &r["result"];
        assert!(result["daysWithHours"].as_i64().unwrap() >= 20, "{result}");
        if market == "ATVPDKIKX0DER" {
            let busiest = &result["campaigns"][0]["bestHours"];
            first_best = match busiest["startHour"]
                .as_u64()
                .zip(busiest["endHour"].as_u64())
            {
                Some((s, e)) => format!("{s:02}:00–{e:02}:00"),
                None => "not enough clicks".into(),
            };
        }
        for campaign in result["campaigns"].as_array().unwrap() {
            assert_eq!(campaign["week"].as_array().unwrap().len(), 168);
            let id = campaign["campaignId"].as_str().unwrap();
            match campaign["bestHours"]["startHour"].as_u64() {
                // never more than an hour off the world's (docs/intelligence.md)
                Some(start) => {
                    assert!(
                        best.get(id).is_some_and(|t| t.abs_diff(start) <= 1),
                        "campaign {id} of {seller} in {market}: found {start}, the world's {:?}: {:#}",
                        best.get(id),
                        campaign["hoursOfDay"]
                    );
                    found += 1;
                }
                None => thin += 1,
            }
        }
    }
    // twenty days of the tiny world are thin: the answer says so rather than guess
    // (tests/daypart.rs in pp-intelligence holds the finding on six months of the small world)
    eprintln!("INS-DAYPART-01 named the best hours of {found} campaigns ({thin} too thin to say)");
    assert!(found + thin > 0, "no campaign answered");
    hours_page_in_a_browser(app, &first_best).await;
}

/// The console's Hours page in a browser (skipped with a message without one): the US seller's
/// busiest campaign's week drawn, its best hours `best` named.
async fn hours_page_in_a_browser(app: &TestApp, best: &str) {
    let Some(python) = crate::console_browser::browser_python() else {
        return;
    };
    let email =
        crate::signin_support::person_in(app, "omega", "hana@omega.example", pp_auth::Role::Member)
            .await;
    let shot = app.dir.path().join("hours-page.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/hours_page.py");
    let mut cmd = std::process::Command::new(python);
    cmd.args([
        script,
        &app.base,
        &email,
        crate::signin_support::PASSWORD,
        "A2DEMOSELLER01:ATVPDKIKX0DER",
        best,
        shot.to_str().unwrap(),
    ]);
    let stdout = crate::common::run_external(cmd, "the hours page browser test failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
    if let Ok(keep) = std::env::var("PP_KEEP_SCREENSHOTS") {
        for name in ["hours-page.png", "hours-page-chart.png"] {
            std::fs::copy(shot.with_file_name(name), Path::new(&keep).join(name)).unwrap();
        }
    }
}

#[tokio::test]
async fn on_a_real_sqs_server_a_stopped_queue_lags_and_an_unreadable_message_is_kept_aside() {
    let Some(moto) = pp_sqs::moto::Moto::start() else {
        return;
    };
    // moto slows as its queues fill (each call reads the whole queue): one day of hours
    let (app, t) = streamed(Queues::Sqs(moto.endpoint()), 1).await;
    // the sandbox stops sending before anything is confirmed: the queues hear nothing
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/streams",
        json!({ "paused": true }),
    )
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{b}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (_, b) = app.get(&t, "/api/warehouse/streams").await;
    for q in stream_queues(&b["queues"]) {
        assert_eq!(q["messages"], 0, "{q}");
        assert_ne!(q["state"], "flowing", "{q}");
        assert!(q["confirmations"].as_i64().unwrap() > 0, "{q}");
    }
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/streams",
        json!({ "paused": false }),
    )
    .await;
    let id = stream_queues(&b["subscriptions"])[0]["subscriptionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let dataset = stream_queues(&b["subscriptions"])[0]["dataset"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/streams/inject",
        json!({ "subscriptionId": id, "body": "not a notification" }),
    )
    .await;
    let status = until_streamed(&app, &t, 200).await;
    let q = status["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["dataset"] == dataset.as_str())
        .unwrap();
    assert_eq!(q["rejected"], 1, "{q}");
    assert!(q["lastError"].as_str().unwrap().contains("not JSON"), "{q}");
    assert_eq!(status["daysChecked"], status["daysMatching"], "{status:#}");
    let world = app.warehouse_file("acme");
    let omega = app.warehouse_file("omega");
    let c = rusqlite::Connection::open(&world).unwrap();
    let last: String = c
        .query_row("SELECT MAX(Date) FROM ads_targeting_daily", [], |r| {
            r.get(0)
        })
        .unwrap();
    same(&world, &omega, TRAFFIC, &last, 11);
}

/// The benchmark `bench/streams.sh` runs (release, `--ignored`): not a test, it asserts no
/// time. On omega's managed warehouse at `omega` (SQLite when `None`): four weeks of every
/// profile's hours published to the sandbox's queues while no consumer runs, then the
/// gateway's consumer started: messages a second into the warehouse, beside the same SQS
/// server's own receive-and-delete rate over as many messages of the same size; then a live
/// day (the world moved on while the consumer runs): publication to kept, p50 and p99.
async fn bench(engine: &str, omega: Option<String>) {
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        omega,
        streams: Some(Queues::Sandbox),
        stream_backfill_days: 28,
        ..Options::default()
    })
    .await;
    let t = app
        .token(&app.credential("omega", Some(SCOPES)).await)
        .await;
    app.post(&t, "/api/warehouse/sync", json!({})).await;
    until_synced(&app, &t, Duration::from_secs(600)).await;
    // subscribed and confirmed, but nothing sent yet
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/streams",
        json!({ "paused": true }),
    )
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/streams", json!({})).await;
    assert_eq!(s, 200, "{b}");
    tokio::time::sleep(Duration::from_secs(3)).await;
    app.stop_workers();
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/streams",
        json!({ "paused": false }),
    )
    .await;
    // every subscription sent through the world's last day
    let last = app
        .sandbox(reqwest::Method::GET, "/__sandbox/world", Value::Null)
        .await["lastDay"]
        .as_str()
        .unwrap()
        .to_owned();
    loop {
        let subs = app
            .sandbox(reqwest::Method::GET, "/__sandbox/streams", Value::Null)
            .await;
        if subs["subscriptions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["deliveredThrough"].as_str() == Some(last.as_str()))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let sqs = app.stream_sqs().expect("an app with stream queues");
    let mut waiting = 0;
    for (_, _, url) in app.store.streams().queues().await.unwrap() {
        waiting += sqs.depth(&url).await.unwrap().0;
    }
    // the SQS server's own rate: as many messages of the same size, received and deleted
    let raw = sqs.create_queue("bench-raw").await.unwrap();
    let body = "x".repeat(620);
    let batch: Vec<String> = (0..10).map(|_| body.clone()).collect();
    for _ in 0..waiting.div_ceil(10) {
        sqs.send_batch(&raw, &batch).await.unwrap();
    }
    let began = Instant::now();
    let mut n = 0;
    loop {
        let got = sqs
            .receive(&raw, 10, Duration::ZERO, Duration::from_secs(60))
            .await
            .unwrap();
        if got.is_empty() {
            break;
        }
        n += got.len();
        let handles: Vec<&str> = got.iter().map(|m| m.receipt_handle.as_str()).collect();
        sqs.delete(&raw, &handles).await.unwrap();
    }
    let raw_rate = n as f64 / began.elapsed().as_secs_f64();
    // the gateway's consumer, from a standing start
    let began = Instant::now();
    app.restart_workers().await;
    while on_queues(&app).await > 0 || app.store.streams().any_pending().await.unwrap() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rate = waiting as f64 / began.elapsed().as_secs_f64();
    // a live day: the world moves on while the consumer runs
    let since = pp_store::jobs::now_ms();
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/world",
        json!({ "days": 1 }),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    while on_queues(&app).await > 0 || app.store.streams().any_pending().await.unwrap() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut lat = app.store.streams().latencies(since).await.unwrap();
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "BENCH {engine}: {waiting} messages; SQS server receive+delete {raw_rate:.0}/s; into the warehouse {rate:.0}/s; live day {} records, publication to kept p50 {} ms, p99 {} ms",
        lat.len(),
        pct(0.5),
        pct(0.99)
    );
}

#[tokio::test]
#[ignore = "a benchmark: bench/streams.sh runs it in release"]
async fn bench_stream_consumer_sqlite() {
    bench("sqlite", None).await;
}

#[tokio::test]
#[ignore = "a benchmark: bench/streams.sh runs it in release"]
async fn bench_stream_consumer_postgres() {
    let Some(pg) = crate::scratch_db::ScratchDb::create("pp_stream_bench_pg").await else {
        return;
    };
    bench("postgres", Some(pg.url.clone())).await;
}

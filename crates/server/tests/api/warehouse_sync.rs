//! Warehouse sync: a managed tenant (`omega`, an empty warehouse) connected to the sandbox over
//! acme's world fills itself, and then answers like acme's generated warehouse over every day
//! the provider's lookback lets a sync read.

use std::time::{Duration, Instant};

use chrono::Datelike;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};
use crate::scratch_db::ScratchDb;

/// A market app whose sandbox makes reports at once and enforces no usage plans, with omega's
/// managed warehouse at `omega` (an SQLite file when `None`).
pub(crate) async fn quick_market(omega: Option<String>) -> TestApp {
    TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        omega,
        ..Options::default()
    })
    .await
}

/// Waits until every dataset of the tenant is `synced` (or `unavailable`); the last status.
pub(crate) async fn until_synced(app: &TestApp, token: &str, limit: Duration) -> Value {
    let done = |r: &Value| r["state"] == "synced" || r["state"] == "unavailable";
    until(app, token, limit, done).await.0
}

/// Which rows of a table to compare: one seller's, over `from..=to`, of one ad product in a
/// table that holds several.
struct Rows<'a> {
    table: &'a str,
    seller: i64,
    from: &'a str,
    to: &'a str,
    product: Option<&'a str>,
}

/// The rows, every column but the seller id (`cols` overrides), as text in a total order.
fn rows(path: &std::path::Path, r: &Rows<'_>, cols: Option<&str>) -> Vec<String> {
    let all: Vec<&str> = pp_warehouse::schema::table(r.table)
        .columns
        .iter()
        .map(|c| c.name)
        .filter(|c| *c != "SellerID")
        .collect();
    let cols = cols.map_or_else(
        || {
            all.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        },
        str::to_owned,
    );
    let c = rusqlite::Connection::open(path).unwrap();
    // ordered by every column selected
    let selected = c
        .prepare(&format!("SELECT {cols} FROM {} LIMIT 0", r.table))
        .unwrap()
        .column_count();
    let order: Vec<String> = (1..=selected).map(|i| i.to_string()).collect();
    let columns = pp_warehouse::schema::table(r.table).columns;
    let days = match ["Date", "WeekStart", "Settlement-end-date"]
        .into_iter()
        .find(|d| columns.iter().any(|c| c.name == *d))
    {
        Some(d) => format!("`{d}` BETWEEN ?2 AND ?3"),
        // a snapshot: every row
        None => "?2 IS NOT NULL AND ?3 IS NOT NULL".to_owned(),
    };
    // an entity table without the ad product: the rows of that ad product's campaigns
    let product = match r.product {
        Some(_) if columns.iter().any(|c| c.name == "AdProduct") => "AND AdProduct = ?4",
        Some(_) => {
            "AND CampaignID IN (SELECT CampaignID FROM ads_campaign c WHERE c.SellerID = ?1 AND c.AdProduct = ?4)"
        }
        None => "AND ?4 IS NULL",
    };
    let sql = format!(
        "SELECT {cols} FROM {} WHERE SellerID = ?1 AND {days} {product} ORDER BY {}",
        r.table,
        order.join(", ")
    );
    let mut st = c.prepare(&sql).unwrap();
    let n = st.column_count();
    st.query_map(
        rusqlite::params![r.seller, r.from, r.to, r.product],
        |row| {
            Ok((0..n)
                .map(|i| format!("{:?}", row.get_ref(i).unwrap()))
                .collect::<Vec<_>>()
                .join("|"))
        },
    )
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The warehouse's id of the vendor in the SQLite warehouse at `path`.
fn vendor_seller(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT ID FROM seller WHERE AccountType = 'vendor'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

/// Both warehouses' rows are the same, and there are some.
fn same_rows(
    world: &std::path::Path,
    synced: &std::path::Path,
    (w, o): (i64, i64),
    r: Rows<'_>,
    cols: Option<&str>,
) {
    let a = rows(world, &Rows { seller: w, ..r }, cols);
    let b = rows(synced, &Rows { seller: o, ..r }, cols);
    assert!(
        !a.is_empty(),
        "{} of seller {w} has rows to compare",
        r.table
    );
    assert_eq!(
        a.len(),
        b.len(),
        "{} {:?} of seller {w}",
        r.table,
        r.product
    );
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!(
            "{} {:?} of seller {w} differs:\n{}\n{}",
            r.table, r.product, a[i], b[i]
        );
    }
}

/// The app with omega's warehouse at `omega`, synced to the end; tokens for omega and acme.
async fn synced(omega: Option<String>) -> (TestApp, String, String) {
    let app = quick_market(omega).await;
    // the default bundle, the intelligence catalog and starting the sync, for both tenants
    const SCOPES: &str = "account:read retail:read ads:read brand_analytics:read sql:query intelligence:read sync:write";
    let omega = app.credential("omega", Some(SCOPES)).await;
    let t = app.token(&omega).await;
    let acme = app.token(&app.credential("acme", Some(SCOPES)).await).await;

    // an external warehouse is not the gateway's to fill
    let (s, b) = app.get(&acme, "/api/warehouse/sync").await;
    assert_eq!((s, b["warehouse"].as_str()), (200, Some("external")), "{b}");
    let (s, b) = app.post(&acme, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 400, "{b}");

    // issue 66, finding 7: starting the sync spends the provider's quota, so account:read
    // alone may read its status but not start it (the old main let it: 50 starts in a second
    // restarted every waiting dataset, and another credential's live call was throttled)
    let reader = app
        .token(&app.credential("omega", Some("account:read")).await)
        .await;
    let (s, b) = app.post(&reader, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 403, "{b}");
    assert_eq!(b["kind"], "insufficient_scope", "{b}");
    let (s, _) = app.get(&reader, "/api/warehouse/sync").await;
    assert_eq!(s, 200);

    // the daily run twelve hours away, so no scheduled run starts on its own while a test
    // reads what the runs it started did (one crossing 06:00 UTC once saw the daily run's)
    let far = (chrono::Timelike::hour(&chrono::Utc::now()) + 12) % 24;
    let schedule = pp_sync::TenantSchedule {
        daily_hour_utc: Some(far),
        ..Default::default()
    };
    let omega_id = pp_core::TenantId::parse("omega").unwrap();
    pp_sync::StoredSchedule::save(&app.store, &omega_id, schedule, "test")
        .await
        .unwrap();
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["warehouse"], "managed");
    let status = last_month_first(&app, &t).await;
    let (datasets, vendor): (Vec<&Value>, Vec<&Value>) = status["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .partition(|r| r["merchant"]["sellerId"] != "ENTITY2DEMOVENDOR");
    // per seller: the catalog, sales and traffic, FBA inventory, customer returns,
    // settlements, finance transactions, search query performance, the advertising entities,
    // eleven advertising reports and DSP (which no seller has); the vendor's login has no
    // sponsored ads profile, and its advertising datasets say so, but it has a DSP advertiser
    assert_eq!(datasets.len(), 3 * 20, "{status:#}");
    // the vendor: its sales and traffic, three years back, its catalog, and DSP, two
    assert_eq!(vendor.len(), 15, "{status:#}");
    for r in vendor {
        let reach = match r["dataset"].as_str() {
            Some("vendor_sales_and_traffic") => "2023-11-23",
            Some("vendor_catalog") => {
                assert_eq!(r["state"], "synced", "{r}");
                assert!(r["note"].is_null(), "{r}");
                continue;
            }
            Some("dsp_daily") => "2024-11-22",
            _ => {
                assert_eq!(r["state"], "unavailable", "{r}");
                assert!(r["note"].as_str().unwrap().contains("no profile"), "{r}");
                continue;
            }
        };
        assert_eq!(r["state"], "synced", "{r}");
        assert_eq!(
            (r["coveredFrom"].as_str(), r["dataThrough"].as_str()),
            (Some(reach), Some("2026-11-21")),
            "{r}"
        );
    }
    let (no_dsp, datasets): (Vec<&Value>, Vec<&Value>) = datasets
        .into_iter()
        .partition(|r| r["dataset"] == "dsp_daily");
    for r in no_dsp {
        assert_eq!(r["state"], "unavailable", "{r}");
        assert!(
            r["note"].as_str().unwrap().contains("no DSP advertiser"),
            "{r}"
        );
    }
    // the Mexican seller has no brand analytics, in the provider's words
    let (unavailable, datasets): (Vec<&Value>, Vec<&Value>) = datasets
        .into_iter()
        .partition(|r| r["state"] == "unavailable");
    assert_eq!(unavailable.len(), 1, "{status:#}");
    let mx = unavailable[0];
    assert_eq!(
        (&mx["dataset"], &mx["merchant"]["marketplace"]),
        (&json!("search_query_performance"), &json!("MX")),
        "{mx}"
    );
    assert!(
        mx["note"]
            .as_str()
            .unwrap()
            .contains("Brand Analytics is not available"),
        "{mx}"
    );
    for r in datasets.iter().filter(|r| r["dataset"] != "catalog") {
        let lookback = r["lookbackDays"].as_i64().unwrap();
        let first = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
            - chrono::Days::new(lookback as u64);
        assert_eq!(r["coveredFrom"], first.to_string(), "{r}");
        assert_eq!(r["dataThrough"], "2026-11-21", "{r}");
        assert!(r["lastError"].is_null(), "{r}");
    }
    // the public health page counts the sync (no tenant named), and the metrics count its rows
    let health: Value = app
        .http
        .get(app.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // (omega's and sigma's)
    assert_eq!(health["sync"]["managedWarehouses"], 2, "{health}");
    assert_eq!(
        health["sync"]["datasets"]["synced"],
        3 * 20 - 1 - 3 + 3,
        "{health}"
    );
    assert!(!health.to_string().contains("omega"), "{health}");
    let metrics = app.metrics_text().await;
    assert!(
        metrics.contains("pp_sync_rows_loaded_total{dataset=\"sales_and_traffic\",engine="),
        "{metrics}"
    );
    (app, t, acme)
}

/// Waits until every dataset is `synced` or `unavailable` (the last status), watching the US
/// seller's sales and traffic on the way (issue 67): its last month comes first, current
/// through yesterday from its first load, then older days newest first, `coveredFrom` moving
/// back without a hole down to the provider's first day, with the backfill's progress and
/// estimated end in the status while it lasts.
/// Issue 67: while the backfill goes on, `/v1/retail/sales` over the last 30 days (its
/// default window) answers for omega's US seller (`id`) what it answers over the generated
/// warehouse of the same world (acme's, where the US seller is 1), account ids aside, and
/// its window's `data_from` is the first day loaded so far (`from`, or older by then).
async fn last_30_days_as_generated(app: &TestApp, t: &str, id: i64, from: &str) {
    let acme = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let (s, mut synced) = app
        .get(t, &format!("/v1/retail/sales?account_id=omega:{id}"))
        .await;
    assert_eq!(s, 200, "{synced}");
    // (the backfill may have loaded an older month since `from` was read)
    let data_from = synced["window"]["data_from"].as_str().unwrap_or_default();
    assert!(!data_from.is_empty() && data_from <= from, "{synced}");
    let (s, mut generated) = app.get(&acme, "/v1/retail/sales?account_id=acme:1").await;
    assert_eq!(s, 200, "{generated}");
    for answer in [&mut synced, &mut generated] {
        answer["window"]["data_from"].take();
    }
    assert_eq!(
        synced.to_string().replace(&format!("omega:{id}"), "acme:1"),
        generated.to_string(),
        "the last 30 days while the backfill goes on"
    );
    assert_eq!(
        synced["series"].as_array().map(Vec::len),
        Some(30),
        "{synced}"
    );
}

/// The most rows one day of a seller's sales and traffic holds (its ASINs' rows and the
/// day's total).
async fn most_rows_of_a_day(app: &TestApp, t: &str, seller: i64) -> i64 {
    let sql = format!(
        "SELECT MAX(n) + 1 AS n FROM (SELECT Date, COUNT(*) AS n FROM spapi_sales_and_traffic_by_asin WHERE SellerID = {seller} GROUP BY Date) d"
    );
    let (s, q) = app.query(t, json!({ "sql": sql })).await;
    assert_eq!(s, 200, "{q}");
    q["rows"][0]["n"].as_i64().unwrap()
}

async fn last_month_first(app: &TestApp, t: &str) -> Value {
    let began = Instant::now();
    let mut covered: Vec<String> = Vec::new();
    let (mut estimated, mut looked_for_holes) = (false, false);
    // the most rows one load of the US sales and traffic wrote while it backfilled
    let (mut most_loaded, mut us_seller) = (0, 0);
    loop {
        let (s, b) = app.get(t, "/api/warehouse/sync").await;
        assert_eq!(s, 200, "{b}");
        let rows = b["datasets"].as_array().unwrap();
        let us = rows
            .iter()
            .find(|r| r["dataset"] == "sales_and_traffic" && r["merchant"]["marketplace"] == "US");
        if let Some(r) = us
            && let Some(from) = r["coveredFrom"].as_str()
        {
            assert_eq!(
                r["dataThrough"], "2026-11-21",
                "current from the first load: {r}"
            );
            assert!(
                covered.last().is_none_or(|c| from <= c.as_str()),
                "coveredFrom only moves back: {covered:?} then {r}"
            );
            covered.push(from.to_owned());
            let backfill = &r["backfill"];
            us_seller = r["merchant"]["legacySellerId"].as_i64().unwrap();
            if from > "2024-11-22" {
                most_loaded = most_loaded.max(r["rowsLastLoad"].as_i64().unwrap_or(0));
                assert_eq!(backfill["reachesFrom"], "2024-11-22", "{r}");
                assert_eq!(backfill["daysInReach"], 730, "{r}");
                let held = backfill["daysHeld"].as_i64().unwrap();
                estimated |= backfill["estimatedEnd"].is_string();
                // every day between coveredFrom and dataThrough is there
                if !looked_for_holes && held > 60 {
                    looked_for_holes = true;
                    let id = r["merchant"]["legacySellerId"].as_i64().unwrap();
                    last_30_days_as_generated(app, t, id, from).await;
                    let id = r["merchant"]["legacySellerId"].as_i64().unwrap();
                    let sql = format!(
                        "SELECT COUNT(DISTINCT Date) AS n FROM spapi_sales_and_traffic_by_date WHERE SellerID = {id} AND Date BETWEEN '{from}' AND '2026-11-21'"
                    );
                    let (s, q) = app.query(t, json!({ "sql": sql })).await;
                    assert_eq!(s, 200, "{q}");
                    assert!(
                        q["rows"][0]["n"].as_i64().unwrap() >= held,
                        "no hole: {q} {r}"
                    );
                }
            } else {
                assert!(backfill.is_null(), "a whole dataset has no backfill: {r}");
            }
        }
        let done = |r: &Value| r["state"] == "synced" || r["state"] == "unavailable";
        if !rows.is_empty() && rows.iter().all(done) {
            covered.dedup();
            assert!(
                covered.len() >= 3,
                "the backfill was seen moving: {covered:?}"
            );
            assert!(estimated, "the backfill's end was estimated on the way");
            // issue 67, items 2 and 4: the provider made several of a dataset's slices at
            // once (up to 4), and those it had made by the time the first was loaded were
            // loaded with it, in one transaction: a load wrote more than one day's rows, and
            // never more than four days'
            let day = most_rows_of_a_day(app, t, us_seller).await;
            assert!(
                most_loaded > day && most_loaded <= 4 * day,
                "the most rows in one load, {most_loaded}, are two to four days' (a day is at most {day})"
            );
            assert!(looked_for_holes, "the backfill was seen half way");
            // the first run read the last 35 days; the backfill told the feed when it ended
            let (_, feed) = app
                .get(t, "/api/events?type=warehouse.sync.finished&limit=500")
                .await;
            let runs: Vec<(String, String)> = feed["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["subject"]["dataset"] == "sales_and_traffic")
                .map(|e| {
                    let d = &e["data"];
                    (
                        d["from"].as_str().unwrap().into(),
                        d["through"].as_str().unwrap().into(),
                    )
                })
                .collect();
            for run in [("2026-10-18", "2026-11-21"), ("2024-11-22", "2024-12-04")] {
                let run = (run.0.to_owned(), run.1.to_owned());
                assert!(runs.contains(&run), "{run:?} among {runs:?}");
            }
            return b;
        }
        assert!(began.elapsed() < Duration::from_secs(600), "{b:#}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// The sellers' ids in acme's warehouse and in omega's, paired by token and marketplace (a
/// synced warehouse numbers merchants in the order they were connected), read through the
/// gateway so any engine answers.
async fn pairs(app: &TestApp, acme: &str, omega: &str) -> Vec<(i64, i64)> {
    let sql = json!({ "sql": "SELECT ID AS id, MarketplaceSellerID AS token, Name AS name, Marketplace AS market, MarketplaceID AS mid, Currency AS cur FROM seller WHERE AccountType = 'seller' ORDER BY MarketplaceSellerID, Marketplace" });
    let (s1, a) = app.query(acme, sql.clone()).await;
    let (s2, b) = app.query(omega, sql).await;
    assert_eq!((s1, s2), (200, 200), "{a} {b}");
    let (a, b) = (a["rows"].as_array().unwrap(), b["rows"].as_array().unwrap());
    let without_id = |r: &Value| {
        let mut r = r.clone();
        r.as_object_mut().unwrap().remove("id");
        r
    };
    assert_eq!(
        a.iter().map(without_id).collect::<Vec<_>>(),
        b.iter().map(without_id).collect::<Vec<_>>(),
        "the same merchants"
    );
    a.iter()
        .zip(b)
        .map(|(x, y)| (x["id"].as_i64().unwrap(), y["id"].as_i64().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_managed_tenant_synced_from_the_sandbox_answers_like_the_generated_warehouse() {
    let (app, t, acme) = synced(None).await;
    let pairs = pairs(&app, &acme, &t).await;
    let (world, synced) = (app.warehouse_file("acme"), app.warehouse_file("omega"));
    same_tables(&world, &synced, &pairs, day("2026-11-22"));
    same_answers(&app, &acme, &t, &pairs).await;
    // a profile-scoped advertising call finds its profile in the synced warehouse
    let (s, b) = app
        .query(
            &t,
            json!({ "sql": "SELECT ProfileID FROM ads_profile ORDER BY SellerID LIMIT 1" }),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let profile = b["rows"][0]["ProfileID"].as_i64().unwrap();
    let call = json!({ "operation": "sp.list_campaigns", "profileId": profile, "query": { "body": { "maxResults": 2 } } });
    let (s, b) = app.post(&t, "/api/marketplace/ads/call", call).await;
    assert_eq!(s, 200, "{b}");
    assert!(b.to_string().contains("campaignId"), "{b}");
    // each dataset's run that loaded days is told in the feed
    let (_, feed) = app.get(&t, "/api/events?type=warehouse.*&limit=500").await;
    let finished = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "warehouse.sync.finished")
        .count();
    assert!(finished >= 10, "{finished} runs told: {feed}");
}

#[tokio::test]
async fn a_day_later_the_sync_adds_that_day_and_corrects_the_restated_days_only() {
    // (through a provider failure on the way: the dataset it hits shows it, then recovers)
    let (app, t, acme) = synced(None).await;
    let pairs = pairs(&app, &acme, &t).await;
    let synced = app.warehouse_file("omega");
    let before = everything(&synced);
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/world",
        json!({ "days": 1 }),
    )
    .await;
    // the provider fails document downloads for a while (six, so two workers' retries cannot
    // share them out: one step gets three failures in a row): that dataset shows the
    // provider's failure and tries again, the rest go on
    app.faults(json!([{ "op": "reports.getReportDocument", "times": 6, "effect": "status", "status": 500 }]))
        .await;
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    let (_, seen) = until(&app, &t, Duration::from_secs(300), current).await;
    let failed = seen.iter().find(|r| r["state"] == "failing").cloned();
    let failed = failed.expect("a dataset showed the provider's failure while it lasted");
    assert_eq!(
        failed["lastError"]["kind"], "upstream_unavailable",
        "{failed}"
    );
    assert!(failed["nextRun"].is_string(), "{failed}");
    // every table now equals the world moved a day forward, over the lookbacks from its today
    let moved = app
        .dir
        .path()
        .join("sim/worlds/2026-11-23/warehouse.sqlite");
    same_tables(&moved, &synced, &pairs, day("2026-11-23"));
    // and the rows no re-read covers are the rows that were there: the re-read starts at the
    // oldest day the provider was restating at the run before (11-22 less 14 and 3 days)
    let after = everything(&synced);
    let restated = |table: &str| match table {
        t if t.starts_with("ads_") || t.starts_with("dsp_") => "2026-11-08",
        // the transaction list is read whole over its 35 days
        "spapi_finance_transaction" => "2026-10-19",
        _ => "2026-11-19",
    };
    let mut corrected = 0;
    for (table, rows) in &before {
        let (old, new) = (rows, &after[table]);
        let kept = |rs: &Vec<(String, String)>| -> Vec<String> {
            rs.iter()
                .filter(|(d, _)| d.as_str() < restated(table))
                .map(|(_, r)| r.clone())
                .collect()
        };
        assert_eq!(
            kept(old),
            kept(new),
            "{table}: rows older than its re-read moved"
        );
        let re = |rs: &Vec<(String, String)>| -> Vec<String> {
            rs.iter()
                .filter(|(d, _)| d.as_str() >= restated(table))
                .map(|(_, r)| r.clone())
                .collect()
        };
        corrected += re(old).iter().filter(|r| !re(new).contains(r)).count();
    }
    assert!(
        corrected > 0,
        "the provider restated advertising days, and the sync took them in"
    );
}

/// Issue 70, finding 2: runs more than a day apart left the days that were still restating at
/// the run before, and are older now than the window, as they were (152 advertising rows
/// wrong after a three-day gap). With the world moved 3, then 10, then 20 days between runs,
/// every table equals the world generated at the later day, to the cent: on SQLite here, on
/// PostgreSQL and MariaDB below.
#[tokio::test]
async fn gaps_of_3_10_and_20_days_between_runs_end_equal_to_the_world() {
    gaps_end_equal_to_the_world(None).await;
}

#[tokio::test]
async fn gaps_between_runs_end_equal_to_the_world_on_postgresql() {
    let Some(pg) = ScratchDb::create("pp_sync_gaps_pg").await else {
        return;
    };
    gaps_end_equal_to_the_world(Some(pg.url.clone())).await;
}

#[tokio::test]
async fn gaps_between_runs_end_equal_to_the_world_on_mariadb() {
    let Some(my) = ScratchDb::create_mysql("pp_sync_gaps_my").await else {
        return;
    };
    gaps_end_equal_to_the_world(Some(my.url.replacen("mysql://", "mariadb://", 1))).await;
}

/// Synced with omega's warehouse at `omega` (SQLite when `None`), then moved 3, 10 and 20
/// days with a run after each: every table equals the world's.
async fn gaps_end_equal_to_the_world(omega: Option<String>) {
    let (app, t, acme) = synced(omega.clone()).await;
    let pairs = pairs(&app, &acme, &t).await;
    let mut today = day("2026-11-22");
    for gap in [3, 10, 20] {
        app.sandbox(
            reqwest::Method::POST,
            "/__sandbox/world",
            json!({ "days": gap }),
        )
        .await;
        today = today + chrono::Days::new(gap);
        let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
        assert_eq!(s, 200, "{b}");
        let yesterday = (today - chrono::Days::new(1)).to_string();
        let (status, _) = until(&app, &t, Duration::from_secs(600), |r| {
            r["state"] == "unavailable"
                || (r["state"] == "synced"
                    && (r["dataThrough"] == yesterday.as_str()
                        || r["dataset"] == "search_query_performance"))
        })
        .await;
        let moved = app
            .dir
            .path()
            .join(format!("sim/worlds/{today}/warehouse.sqlite"));
        let synced = match &omega {
            None => app.warehouse_file("omega"),
            Some(url) => {
                let file = app.dir.path().join(format!("omega-{today}.sqlite"));
                as_sqlite(url, &file).await;
                file
            }
        };
        same_tables(&moved, &synced, &pairs, today);
        // the status says which days the run read: the restated days of the run before too
        let ads = status["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["dataset"] == "sp_campaigns")
            .cloned()
            .unwrap_or_else(|| panic!("an advertising dataset: {status:#}"));
        let before = today - chrono::Days::new(gap);
        let from: chrono::NaiveDate = ads["lastRun"]["from"].as_str().unwrap().parse().unwrap();
        assert!(
            from <= before - chrono::Days::new(14),
            "{gap} days on, the run read again from the days restating at the run before: {ads}"
        );
    }
}

/// A server warehouse's connections.
enum Pool {
    Pg(sqlx::PgPool),
    My(sqlx::MySqlPool),
}

impl Pool {
    /// Every row of `sql`, its `n` columns read as text.
    async fn texts(&self, sql: &str, n: usize) -> Vec<Vec<Option<String>>> {
        use sqlx::Row;
        fn cells<R: Row>(r: &R, n: usize) -> Vec<Option<String>>
        where
            for<'a> Option<String>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
            usize: sqlx::ColumnIndex<R>,
        {
            (0..n).map(|i| r.get(i)).collect()
        }
        match self {
            Pool::Pg(p) => sqlx::query(sql)
                .fetch_all(p)
                .await
                .unwrap()
                .iter()
                .map(|r| cells(r, n))
                .collect(),
            Pool::My(p) => sqlx::query(sql)
                .fetch_all(p)
                .await
                .unwrap()
                .iter()
                .map(|r| cells(r, n))
                .collect(),
        }
    }
}

/// A server warehouse (`postgres://…`, `mariadb://…`) copied into a new SQLite file at `path`
/// made with the warehouse's own SQLite schema, every value as the server's text (an instant
/// as the generated warehouse writes it): SQLite's column types read numbers back as a
/// generated warehouse holds them, so the comparisons above hold any engine to the world,
/// each money column at its scale.
async fn as_sqlite(url: &str, path: &std::path::Path) {
    use pp_warehouse::schema::spelling::{SQLITE, backticks, create_table_sql, pg_name};
    let pg = url.starts_with("postgres");
    let pool = match pg {
        true => Pool::Pg(sqlx::PgPool::connect(url).await.unwrap()),
        false => Pool::My(
            sqlx::MySqlPool::connect(&url.replacen("mariadb://", "mysql://", 1))
                .await
                .unwrap(),
        ),
    };
    let mut c = rusqlite::Connection::open(path).unwrap();
    let tx = c.transaction().unwrap();
    for t in pp_warehouse::schema::TABLES {
        tx.execute_batch(&create_table_sql(t, &SQLITE)).unwrap();
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|col| match (pg, col.ty) {
                // an instant as the generated warehouse writes it
                (true, "DATETIME") => format!(
                    "to_char({}, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')",
                    pg_name(col.name)
                ),
                (false, "DATETIME") => {
                    format!("DATE_FORMAT({}, '%Y-%m-%dT%H:%i:%sZ')", backticks(col.name))
                }
                (true, _) => format!("{}::text", pg_name(col.name)),
                (false, _) => format!("CAST({} AS CHAR)", backticks(col.name)),
            })
            .collect();
        let name = if pg {
            pg_name(t.name)
        } else {
            backticks(t.name)
        };
        let sql = format!("SELECT {} FROM {name}", cols.join(", "));
        let rows = pool.texts(&sql, t.columns.len()).await;
        let marks = vec!["?"; t.columns.len()].join(", ");
        let mut st = tx
            .prepare(&format!(
                "INSERT INTO {} VALUES ({marks})",
                backticks(t.name)
            ))
            .unwrap();
        for r in rows {
            st.execute(rusqlite::params_from_iter(r)).unwrap();
        }
    }
    tx.commit().unwrap();
}

/// Issue 70, finding 6: search query performance is asked by the catalog's ASINs, so it waits
/// for the catalog's first load and says so; once the catalog has come, the note goes (it
/// stayed on a merchant whose datasets had both synced).
#[tokio::test]
async fn a_dataset_waiting_for_the_catalog_says_so_only_until_it_has_come() {
    let app = quick_market(None).await;
    let scopes = Some("account:read sync:write");
    let t = app.token(&app.credential("omega", scopes).await).await;
    // the sellers' first catalog searches fail (a step tries three times): each catalog's
    // first load comes half a minute late
    app.faults(json!([
        { "op": "catalogItems.searchCatalogItems", "times": 9, "effect": "status", "status": 500 },
    ]))
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    let done = |r: &Value| r["state"] == "synced" || r["state"] == "unavailable";
    let (end, seen) = until(&app, &t, Duration::from_secs(600), done).await;
    let sqp = |r: &&Value| r["dataset"] == "search_query_performance";
    assert!(
        seen.iter().filter(sqp).any(|r| r["note"]
            .as_str()
            .is_some_and(|n| n.contains("waits for the catalog"))),
        "search query performance waited for the catalog, saying so"
    );
    let rows = end["datasets"].as_array().unwrap();
    assert_eq!(
        rows.iter()
            .filter(sqp)
            .filter(|r| r["state"] == "synced")
            .count(),
        2,
        "{end:#}"
    );
    for r in rows.iter().filter(|r| r["state"] == "synced") {
        assert!(
            r["note"].is_null(),
            "a synced dataset waits for nothing: {r}"
        );
    }
}

fn day(s: &str) -> chrono::NaiveDate {
    s.parse().unwrap()
}

/// Every dated row of every table of a warehouse, as (day, row text), by table.
fn everything(path: &std::path::Path) -> std::collections::BTreeMap<String, Vec<(String, String)>> {
    let c = rusqlite::Connection::open(path).unwrap();
    pp_warehouse::schema::TABLES
        .iter()
        .filter(|t| t.columns.iter().any(|c| c.name == "Date"))
        .map(|t| {
            let mut st = c
                .prepare(&format!("SELECT * FROM {} ORDER BY Date", t.name))
                .unwrap();
            let n = st.column_count();
            let date = t.col("Date");
            let rows = st
                .query_map([], |r| {
                    let text: Vec<String> = (0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect();
                    Ok((r.get::<_, String>(date)?, text.join("|")))
                })
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            (t.name.to_owned(), rows)
        })
        .collect()
}

/// Every synced table of `synced` equals `world`'s over the lookbacks from `today`.
fn same_tables(
    world: &std::path::Path,
    synced: &std::path::Path,
    pairs: &[(i64, i64)],
    today: chrono::NaiveDate,
) {
    let back = |days: u64| (today - chrono::Days::new(days)).to_string();
    let (from, to) = (back(730), back(1));
    // the price a day's units say; a day without units names none
    let by_asin = "MarketplaceSellerID, Date, ParentASIN, ChildASIN, SKU, CASE WHEN UnitsOrdered > 0 THEN ItemPrice END, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews, BuyBoxPercentage, Currency";
    // each advertising table over its ad product's lookback (95, 60 and 65 days)
    let (sp, sb, sd) = (back(95), back(60), back(65));
    let ads: [(&str, &str, Option<&str>); 11] = [
        ("ads_campaign_daily", &sp, Some("SPONSORED_PRODUCTS")),
        ("ads_ad_group_daily", &sp, Some("SPONSORED_PRODUCTS")),
        ("ads_targeting_daily", &sp, Some("SPONSORED_PRODUCTS")),
        ("ads_search_term_daily", &sp, None),
        ("ads_advertised_product_daily", &sp, None),
        ("ads_campaign_daily", &sb, Some("SPONSORED_BRANDS")),
        ("ads_ad_group_daily", &sb, Some("SPONSORED_BRANDS")),
        ("ads_targeting_daily", &sb, Some("SPONSORED_BRANDS")),
        ("ads_campaign_daily", &sd, Some("SPONSORED_DISPLAY")),
        ("ads_ad_group_daily", &sd, Some("SPONSORED_DISPLAY")),
        ("ads_targeting_daily", &sd, Some("SPONSORED_DISPLAY")),
    ];
    // the vendor's sales and traffic, three years back
    let vendor_days = Rows {
        table: "vendor_sales_and_traffic",
        seller: 0,
        from: &back(1095),
        to: &to,
        product: None,
    };
    let vendors = (vendor_seller(world), vendor_seller(synced));
    same_rows(world, synced, vendors, vendor_days, None);
    // its DSP line items, two years back, and its DSP advertiser
    let dsp_days = Rows {
        table: "dsp_daily",
        seller: 0,
        from: &back(730),
        to: &to,
        product: None,
    };
    same_rows(world, synced, vendors, dsp_days, None);
    let advertiser = Rows {
        table: "dsp_advertiser",
        seller: 0,
        from: &to,
        to: &to,
        product: None,
    };
    same_rows(world, synced, vendors, advertiser, None);
    // its catalog (no SKUs), and the brands every catalog names (numbered by the tenant)
    let vendor_items = Rows {
        table: "catalog_item",
        seller: 0,
        from: &to,
        to: &to,
        product: None,
    };
    same_rows(world, synced, vendors, vendor_items, None);
    let brands = |path: &std::path::Path| -> Vec<(String, String)> {
        let c = rusqlite::Connection::open(path).unwrap();
        let mut st = c
            .prepare("SELECT Slug, Name FROM brand ORDER BY Slug")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert!(!brands(world).is_empty());
    assert_eq!(brands(world), brands(synced), "the brands");
    for &pair in pairs {
        let retail = |table| Rows {
            table,
            seller: 0,
            from: &from,
            to: &to,
            product: None,
        };
        same_rows(world, synced, pair, retail("catalog_item"), None);
        // the settlements the provider still keeps: those that closed in the last 90 days
        let settlements = Rows {
            table: "spapi_settlement",
            seller: 0,
            from: &back(90),
            to: "9999-12-31",
            product: None,
        };
        same_rows(world, synced, pair, settlements, None);
        // the provider's transaction list over the window every run reads (the last 48 hours
        // are not listed yet, on either side)
        let transactions = Rows {
            table: "spapi_finance_transaction",
            seller: 0,
            from: &back(35),
            to: &to,
            product: None,
        };
        same_rows(world, synced, pair, transactions, None);
        // customer returns, 18 months back
        let returns = Rows {
            table: "spapi_fba_returns",
            seller: 0,
            from: &back(548),
            to: &to,
            product: None,
        };
        same_rows(world, synced, pair, returns, None);
        // the ledger's 18 months, from the 28th day (the first with a full month of sales
        // before it); inbound units are known for the latest day alone
        let inventory = Rows {
            table: "spapi_fba_inventory",
            seller: 0,
            from: &back(548 - 27),
            to: &to,
            product: None,
        };
        // a SKU's first 27 days have no 28 days of sales behind them: the world assumes its
        // expected demand there, the sync leaves them empty
        let inventory_cols = format!(
            "MarketplaceSellerID, Date, ASIN, SKU, Fulfillable, CASE WHEN Date = '{to}' THEN Inbound END, Reserved, \
             CASE WHEN Date >= (SELECT date(MIN(x.Date), '+27 days') FROM spapi_fba_inventory x \
                                WHERE x.SellerID = spapi_fba_inventory.SellerID AND x.SKU = spapi_fba_inventory.SKU) \
                  THEN DaysOfSupply END"
        );
        same_rows(world, synced, pair, inventory, Some(&inventory_cols));
        same_rows(
            world,
            synced,
            pair,
            retail("spapi_sales_and_traffic_by_date"),
            None,
        );
        same_rows(
            world,
            synced,
            pair,
            retail("spapi_sales_and_traffic_by_asin"),
            Some(by_asin),
        );
        // whole weeks within the provider's 104, for the sellers with brand analytics
        if pp_world::MERCHANTS
            .iter()
            .any(|m| m.id == pair.0 && m.brand_analytics)
        {
            let reach = today - chrono::Days::new(728);
            let sunday = reach
                + chrono::Days::new(u64::from((7 - reach.weekday().num_days_from_sunday()) % 7));
            let weeks = Rows {
                table: "spapi_brand_analytics_sqp",
                seller: 0,
                from: &sunday.to_string(),
                to: &to,
                product: None,
            };
            same_rows(world, synced, pair, weeks, None);
        }
        for (table, from, product) in ads {
            let rows = Rows {
                table,
                seller: 0,
                from,
                to: &to,
                product,
            };
            same_rows(world, synced, pair, rows, None);
        }
        // the entities as listed today: Sponsored Products whole; Sponsored Brands without
        // what its lists do not carry (a brand, targeting type, ad groups' default bids);
        // Sponsored Display without a brand and targeting type (it lists no products)
        let entity = |table, product| Rows {
            table,
            seller: 0,
            from: &to,
            to: &to,
            product,
        };
        const SP: Option<&str> = Some("SPONSORED_PRODUCTS");
        const SB: Option<&str> = Some("SPONSORED_BRANDS");
        const SD: Option<&str> = Some("SPONSORED_DISPLAY");
        same_rows(world, synced, pair, entity("ads_profile", None), None);
        for table in ["ads_campaign", "ads_ad_group", "ads_targeting"] {
            same_rows(world, synced, pair, entity(table, SP), None);
        }
        let listed = "MarketplaceSellerID, ProfileID, CampaignID, AdProduct, Name, State, DailyBudget, StartDate";
        same_rows(
            world,
            synced,
            pair,
            entity("ads_campaign", SD),
            Some(listed),
        );
        for table in ["ads_ad_group", "ads_targeting"] {
            same_rows(world, synced, pair, entity(table, SD), None);
        }
        // (a merchant may have no Sponsored Brands campaigns)
        let sb_group = "MarketplaceSellerID, CampaignID, AdGroupID, Name, State";
        for (table, cols) in [
            ("ads_campaign", Some(listed)),
            ("ads_ad_group", Some(sb_group)),
            ("ads_targeting", None),
        ] {
            let w = rows(
                world,
                &Rows {
                    seller: pair.0,
                    ..entity(table, SB)
                },
                cols,
            );
            let o = rows(
                synced,
                &Rows {
                    seller: pair.1,
                    ..entity(table, SB)
                },
                cols,
            );
            assert_eq!(w, o, "{table} of Sponsored Brands, seller {}", pair.0);
        }
    }
}

/// `/v1` and the sales bridge answer the same for both tenants, merchant by merchant.
async fn same_answers(app: &TestApp, acme: &str, t: &str, pairs: &[(i64, i64)]) {
    let (from, to) = ("2024-11-22", "2026-11-21");
    // and /v1 answers the same for each seller
    let windows: [(&str, &[(&str, &str)]); 3] = [
        // retail: the two years of the lookback (a /v1 window is at most 366 days), quarters
        (
            "/v1/retail/sales",
            &[
                (from, "2025-11-21"),
                ("2025-11-22", to),
                ("2025-07-01", "2025-09-30"),
                ("2026-07-01", "2026-09-30"),
            ],
        ),
        // advertising: within the shortest lookback of the products a campaign page mixes
        (
            "/v1/ads/campaign-performance",
            &[("2026-09-23", to), ("2026-11-01", "2026-11-07")],
        ),
        (
            "/v1/ads/search-terms",
            &[("2026-08-19", to), ("2026-10-01", "2026-10-31")],
        ),
    ];
    for &(w, o) in pairs {
        for (path, spans) in windows {
            let paths: &[&str] = match path {
                "/v1/retail/sales" => &["/v1/retail/sales", "/v1/retail/traffic"],
                p => &[p][..],
            };
            for path in paths {
                for (s, e) in spans {
                    let q = |tenant: &str, id: i64| {
                        format!("{path}?account_id={tenant}:{id}&start_date={s}&end_date={e}")
                    };
                    let (s1, mut x) = app.get(acme, &q("acme", w)).await;
                    let (s2, mut y) = app.get(t, &q("omega", o)).await;
                    assert_eq!((s1, s2), (200, 200), "{x} {y}");
                    // the synced data starts at the provider's lookback, the generated
                    // world's a year before it: the windows say so, and read the same
                    let (from_x, from_y) = (
                        x["window"]["data_from"].take(),
                        y["window"]["data_from"].take(),
                    );
                    let (fx, fy) = (from_x.as_str(), from_y.as_str());
                    assert!(fx.is_some() && fx <= fy, "{from_x} {from_y}");
                    for v in [&mut x, &mut y] {
                        let m = v.as_object_mut().unwrap();
                        m.remove("account");
                        m.remove("account_id");
                    }
                    assert_eq!(x, y, "{path} for seller {w}, {s}..{e}");
                }
            }
        }
        // the weekly search query performance, page by page, over the last year and a quarter
        for (s, e) in [("2025-11-23", to), ("2026-07-05", "2026-09-26")] {
            let q = |tenant: &str, id: i64| {
                format!(
                    "/v1/brand-analytics/search-query-performance?account_id={tenant}:{id}&start_date={s}&end_date={e}&limit=500"
                )
            };
            let x = pages(app, acme, &q("acme", w)).await;
            let y = pages(app, t, &q("omega", o)).await;
            assert_eq!(x, y, "search query performance for seller {w}, {s}..{e}");
        }
        // today's FBA inventory, every SKU
        let q = |tenant: &str, id: i64| {
            format!("/v1/retail/inventory?account_id={tenant}:{id}&limit=500")
        };
        let (s1, mut x) = app.get(acme, &q("acme", w)).await;
        let (s2, mut y) = app.get(t, &q("omega", o)).await;
        assert_eq!((s1, s2), (200, 200), "{x} {y}");
        for v in [&mut x, &mut y] {
            v.as_object_mut().unwrap().remove("account_id");
        }
        assert!(!x["items"].as_array().unwrap().is_empty(), "{x}");
        assert_eq!(x, y, "/v1/retail/inventory for seller {w}");
    }

    // the sales bridge of a quarter against the same quarter a year earlier
    for (seller, market) in [
        ("A2DEMOSELLER01", "ATVPDKIKX0DER"),
        ("A2DEMOSELLER01", "A2EUQ1WTGCTBG2"),
        ("A1DEMOSELLERMX", "A1AM78C64UM0Y8"),
    ] {
        let run = json!({ "id": "INS-OPS-BRIDGE-01", "params": {
            "sellerId": seller, "marketplaceId": market,
            "period": { "start": "2026-07-01", "end": "2026-09-30" },
            "comparePeriod": { "start": "2025-07-01", "end": "2025-09-30" },
        }});
        let (s1, x) = app.post(acme, "/api/intelligence/run", run.clone()).await;
        let (s2, y) = app.post(t, "/api/intelligence/run", run).await;
        assert_eq!((s1, s2), (200, 200), "{x} {y}");
        // the items name their merchant by the tenant's own id
        let mut theirs = x["result"].clone();
        renumber(&mut theirs, pairs);
        assert_eq!(theirs, y["result"], "the bridge of {seller} in {market}");
    }

    // a change's outcome: the same days, verdicts and bridges (the timeline's stakes, which
    // only the demo tenant has, are left out), inside every ad product's report retention
    // (Sponsored Brands reports go back 60 days)
    let run = json!({ "id": "INS-CHANGE-OUTCOME-01", "params": {
        "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "date": "2026-10-13",
    }});
    let (s1, x) = app.post(acme, "/api/intelligence/run", run.clone()).await;
    let (s2, y) = app.post(t, "/api/intelligence/run", run).await;
    assert_eq!((s1, s2), (200, 200), "{y}");
    for part in ["windows", "account", "entities"] {
        assert_eq!(x["result"][part], y["result"][part], "the outcome's {part}");
    }
    // days only some ad products' reports reach back to are not read as the account's
    let early = json!({ "id": "INS-CHANGE-OUTCOME-01", "params": {
        "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "date": "2026-10-01",
    }});
    let (s, e) = app.post(t, "/api/intelligence/run", early).await;
    assert_eq!(
        (s, e["kind"].as_str()),
        (404, Some("no_data_for_period")),
        "{e}"
    );
}

#[tokio::test]
async fn a_managed_warehouse_on_postgresql_answers_like_the_generated_one() {
    let Some(pg) = ScratchDb::create("pp_sync_pg").await else {
        return;
    };
    let (app, t, acme) = synced(Some(pg.url.clone())).await;
    let pairs = pairs(&app, &acme, &t).await;
    same_answers(&app, &acme, &t, &pairs).await;
}

#[tokio::test]
async fn a_managed_warehouse_on_mariadb_answers_like_the_generated_one() {
    let Some(my) = ScratchDb::create_mysql("pp_sync_my").await else {
        return;
    };
    let url = my.url.replacen("mysql://", "mariadb://", 1);
    let (app, t, acme) = synced(Some(url)).await;
    let pairs = pairs(&app, &acme, &t).await;
    same_answers(&app, &acme, &t, &pairs).await;
}

/// Every page of a `/v1` answer, without the parts that name the tenant (its account id and
/// the cursors, which are bound to it) or where its warehouse's data starts.
async fn pages(app: &TestApp, token: &str, first: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut url = first.to_owned();
    loop {
        let (s, mut b) = app.get(token, &url).await;
        assert_eq!(s, 200, "{url}: {b}");
        let next = b["next_cursor"].as_str().map(str::to_owned);
        let m = b.as_object_mut().unwrap();
        for k in ["account", "account_id", "next_cursor"] {
            m.remove(k);
        }
        // (where each warehouse's data starts: the synced one at the provider's lookback)
        if let Some(w) = m.get_mut("window").and_then(Value::as_object_mut) {
            w.remove("data_from");
        }
        out.push(b);
        match next {
            Some(c) => url = format!("{first}&cursor={c}"),
            None => return out,
        }
    }
}

/// Every `legacySellerId` in `v` turned from acme's id into omega's.
fn renumber(v: &mut Value, pairs: &[(i64, i64)]) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match (k.as_str(), x.as_i64()) {
                    ("legacySellerId", Some(id)) => {
                        let (_, o) = pairs.iter().find(|(w, _)| *w == id).unwrap();
                        *x = (*o).into();
                    }
                    _ => renumber(x, pairs),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| renumber(x, pairs)),
        _ => {}
    }
}

/// Polls the status until it lists datasets and `done` holds for every one: the last status,
/// and every dataset row seen on the way.
pub(crate) async fn until(
    app: &TestApp,
    token: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> (Value, Vec<Value>) {
    let began = Instant::now();
    let mut seen = Vec::new();
    loop {
        let (s, b) = app.get(token, "/api/warehouse/sync").await;
        assert_eq!(s, 200, "{b}");
        let rows = b["datasets"].as_array().unwrap().clone();
        let finished = !rows.is_empty() && rows.iter().all(&done);
        seen.extend(rows);
        if finished {
            return (b, seen);
        }
        assert!(began.elapsed() < limit, "{b:#}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Current through the moved world's yesterday (a weekly dataset through its last week).
fn current(r: &Value) -> bool {
    let through = match r["dataset"].as_str() {
        Some("search_query_performance") => "2026-11-21",
        _ => "2026-11-22",
    };
    r["state"] == "unavailable" || (r["state"] == "synced" && r["dataThrough"] == through)
}

#[tokio::test]
async fn a_done_report_whose_document_is_gone_is_asked_for_again_and_nothing_fails() {
    let (app, t, _) = synced(None).await;
    let file = app.warehouse_file("omega");
    let vendor_of = |r: &Value| r["merchant"]["sellerId"] == "ENTITY2DEMOVENDOR";
    let (_, status) = app.get(&t, "/api/warehouse/sync").await;
    let vendor = status["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| vendor_of(r));
    let vendor = vendor.unwrap()["merchant"]["legacySellerId"].clone();
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/world",
        json!({ "days": 1 }),
    )
    .await;
    // the provider no longer has the documents of the vendor's next two done reports (its
    // documents expire; the vendor's run reads no other document): each slice they belong
    // to asks for its reports again, at once, instead of failing for a quarter of an hour
    app.faults(json!([{ "op": "reports.getReportDocument", "effect": "status", "status": 404, "times": 2 }]))
        .await;
    let creates = app.sandbox_calls("reports.createReport").await;
    let (s, b) = app
        .post(
            &t,
            "/api/warehouse/sync",
            json!({ "legacySellerId": vendor }),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let (_, seen) = until(&app, &t, Duration::from_secs(300), |r| {
        !vendor_of(r)
            || r["dataset"] != "vendor_sales_and_traffic"
            || (r["state"] == "synced" && r["dataThrough"] == "2026-11-22")
    })
    .await;
    let left = app
        .sandbox(reqwest::Method::GET, "/__sandbox/faults", Value::Null)
        .await;
    assert_eq!(left["rules"][0]["times"], 0, "both 404s served: {left}");
    let failed: Vec<&Value> = seen
        .iter()
        .filter(|r| vendor_of(r) && r["state"] == "failing")
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    // the sales report and its traffic report, asked for once more each time
    let asked = app.sandbox_calls("reports.createReport").await - creates;
    assert!(asked >= 2 + 4, "{asked} creates");
    // and the vendor's days equal the moved world's
    let moved = app
        .dir
        .path()
        .join("sim/worlds/2026-11-23/warehouse.sqlite");
    let days = Rows {
        table: "vendor_sales_and_traffic",
        seller: 0,
        from: "2026-11-01",
        to: "2026-11-22",
        product: None,
    };
    same_rows(
        &moved,
        &file,
        (vendor_seller(&moved), vendor_seller(&file)),
        days,
        None,
    );
}

#[tokio::test]
async fn provider_faults_end_synced_and_a_lapsed_account_pauses_until_it_is_connected_again() {
    let (app, t, acme) = synced(None).await;
    let pairs = pairs(&app, &acme, &t).await;
    let file = app.warehouse_file("omega");
    let moved = app
        .dir
        .path()
        .join("sim/worlds/2026-11-23/warehouse.sqlite");
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/world",
        json!({ "days": 1 }),
    )
    .await;
    // the Mexican merchant's authorization lapses; the provider throttles creates, holds
    // advertising creates without an answer and answers report reads with garbage, a while
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/merchants/lapse",
        json!({ "merchant": "A1DEMOSELLERMX" }),
    )
    .await;
    app.faults(json!([
        { "op": "reports.createReport", "effect": "throttle", "retry_after": 1, "times": 6 },
        { "op": "reporting.createAsyncReport", "effect": "hang", "times": 2 },
        { "op": "reports.getReport", "effect": "garbage", "times": 12 },
    ]))
    .await;
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    let mx = |r: &Value| r["merchant"]["sellerId"] == "A1DEMOSELLERMX";
    let (_, seen) = until(&app, &t, Duration::from_secs(300), |r| {
        if mx(r) {
            r["state"] == "paused" || r["state"] == "unavailable"
        } else {
            current(r)
        }
    })
    .await;
    // each fault showed on the dataset it hit, in the provider's words, with the next try
    let failing: Vec<&Value> = seen.iter().filter(|r| r["state"] == "failing").collect();
    let said = |words: &str| {
        failing.iter().any(|r| {
            r["lastError"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(words)
        })
    };
    assert!(said("throttled"), "a 429 shows: {failing:#?}");
    assert!(said("did not answer"), "a hang shows: {failing:#?}");
    assert!(said("not JSON"), "an unreadable body shows: {failing:#?}");
    for r in &failing {
        let kind = r["lastError"]["kind"].as_str().unwrap_or_default();
        assert!(
            ["throttled", "upstream_unavailable", "host_unreachable"].contains(&kind),
            "a provider fault shows as the provider's failure: {r}"
        );
        assert!(r["nextRun"].is_string(), "{r}");
    }
    let (_, now) = app.get(&t, "/api/warehouse/sync").await;
    for r in now["datasets"].as_array().unwrap().iter().filter(|r| mx(r)) {
        if r["state"] == "paused" {
            assert_eq!(r["lastError"]["kind"], "reauth_required", "{r}");
        }
    }
    assert!(
        now["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| mx(r) && r["state"] == "paused"),
        "{now:#}"
    );
    // the other merchants' tables equal the moved world, every row once
    let others: Vec<(i64, i64)> = pairs.iter().copied().filter(|p| p.0 != 3).collect();
    same_tables(&moved, &file, &others, day("2026-11-23"));

    // connected again, the paused datasets resume at once and catch up
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/merchants/lapse",
        json!({ "merchant": "A1DEMOSELLERMX", "on": false }),
    )
    .await;
    let (_, feed) = app.get(&t, "/api/events?type=connection.*").await;
    assert_eq!(feed["events"][0]["type"], "connection.lapsed", "{feed}");
    app.reconnect("omega", "A1DEMOSELLERMX").await;
    let (_, feed) = app.get(&t, "/api/events?type=connection.*").await;
    let kinds: Vec<&str> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"connection.restored"), "{feed}");
    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    until(&app, &t, Duration::from_secs(120), current).await;
    same_tables(&moved, &file, &pairs, day("2026-11-23"));
}

#[tokio::test]
async fn a_tenant_whose_provider_crawls_does_not_hold_up_another_tenants_sync() {
    // two workers, one a tenant at most
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        workers: Some((2, 1)),
        ..Options::default()
    })
    .await;
    let omega = app
        .token(
            &app.credential("omega", Some("account:read sync:write"))
                .await,
        )
        .await;
    let sigma = app
        .token(
            &app.credential("sigma", Some("account:read sync:write"))
                .await,
        )
        .await;
    // the advertising API answers omega's every report call after 1.2 s (inside the
    // gateway's timeout): its 33 advertising datasets crawl. sigma only sells.
    app.faults(json!([
        { "op": "reporting.createAsyncReport", "effect": "latency", "latency_ms": 1200 },
        { "op": "reporting.getAsyncReport", "effect": "latency", "latency_ms": 1200 },
    ]))
    .await;
    let (s, b) = app.post(&omega, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    // omega's queue is long and slow before sigma asks
    tokio::time::sleep(Duration::from_secs(3)).await;
    let began = Instant::now();
    let (s, b) = app.post(&sigma, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    let done = until_synced(&app, &sigma, Duration::from_secs(240)).await;
    let took = began.elapsed();
    // the Mexican merchant: catalog, sales and traffic, FBA inventory, customer returns,
    // settlements, finance transactions (no brand analytics)
    assert_eq!(done["datasets"].as_array().unwrap().len(), 7, "{done:#}");
    let (_, o) = app.get(&omega, "/api/warehouse/sync").await;
    let crawling = o["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            let d = r["dataset"].as_str().unwrap_or_default();
            ["sp_", "sb_", "sd_"].iter().any(|p| d.starts_with(p)) && r["state"] != "synced"
        })
        .count();
    eprintln!(
        "sigma synced in {took:?} while {crawling} of omega's advertising datasets were still crawling"
    );
    assert!(
        crawling > 0,
        "omega's advertising sync was still going when sigma's finished: {o:#}"
    );
}

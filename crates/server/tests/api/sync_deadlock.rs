//! Issue 70, finding 4, through a whole dataset: a managed warehouse on MariaDB whose load
//! deadlocks with another transaction (the server rolls the load back) ends `synced`, with
//! the load tried again at once, in the log and in `/metrics`, and its rows in place. The
//! deadlock is provoked by this module's own dataset, whose reader, before its first slice is
//! loaded, opens the other transaction the way `crates/warehouse/tests/load_conflicts.rs`
//! does. Needs MariaDB at 127.0.0.1:3306; without one the test says why it skipped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use chrono::{Datelike, NaiveDate};
use pp_sync::Dataset;
use pp_sync::datasets::{Applies, Side};
use pp_sync::reader::{Cx, Days, Fut, Reader, Started};
use serde_json::json;
use sqlx::{Connection, Executor, MySqlConnection};

use crate::common::{Options, TestApp};
use crate::scratch_db::ScratchDb;
use crate::sync_adopt::managed_tau_at;
use crate::sync_outside::{campaign_rows, until_state};

/// The ad product its rows carry (their own part of `ads_campaign_daily`).
const PRODUCT: &str = "DEADLOCK_TEST";

/// The warehouse the other transaction opens (`mysql://…`).
static WAREHOUSE: OnceLock<String> = OnceLock::new();
/// Whether the deadlock was provoked (once, at the first slice).
static PROVOKED: AtomicBool = AtomicBool::new(false);
/// Whether the other transaction's delete went through: the server chose the load as the
/// deadlock's victim.
static OTHER_WENT_ON: AtomicBool = AtomicBool::new(false);

/// One row a day, campaign 7 (impressions the day of the month); the first slice meets
/// another transaction.
struct Deadlocking;

impl Reader for Deadlocking {
    fn label(&self) -> &'static str {
        "this test's reader, whose first load meets a deadlock"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let rows = campaign_rows(cx, (from, to), PRODUCT, |day| (7, day.day() as i64));
            if from < to && !PROVOKED.swap(true, Ordering::SeqCst) {
                provoke(cx.seller.id, from, to).await;
            }
            Ok(Started::Rows(vec![rows]))
        })
    }
}

/// A row of the slice's first day as an earlier load would have left it, and another
/// transaction, heavy with rows of its own, holding a new row on the slice's last day: the
/// load locks the first day, then waits for the last; half a second later the other asks for
/// the first day, and the server rolls back the lighter of the two, the load.
async fn provoke(seller: i64, from: NaiveDate, to: NaiveDate) {
    let url = WAREHOUSE.get().expect("the warehouse's address");
    let insert = |seller: i64, day: String, campaign: i64| {
        format!(
            "INSERT INTO ads_campaign_daily (SellerID, Date, AdProduct, CampaignID) VALUES ({seller}, '{day}', '{PRODUCT}', {campaign})"
        )
    };
    let mut earlier = MySqlConnection::connect(url).await.unwrap();
    earlier
        .execute(insert(seller, from.to_string(), 1).as_str())
        .await
        .unwrap();
    let mut other = MySqlConnection::connect(url).await.unwrap();
    other.execute("BEGIN").await.unwrap();
    for d in 1..=200 {
        let day = NaiveDate::from_ymd_opt(2020, 1, 1).unwrap() + chrono::Days::new(d);
        other
            .execute(insert(999_999, day.to_string(), d as i64).as_str())
            .await
            .unwrap();
    }
    other
        .execute(insert(seller, to.to_string(), 2).as_str())
        .await
        .unwrap();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let delete = format!(
            "DELETE FROM ads_campaign_daily WHERE SellerID = {seller} AND Date = '{from}' AND AdProduct = '{PRODUCT}'"
        );
        let went_on = other.execute(delete.as_str()).await.is_ok();
        OTHER_WENT_ON.store(went_on, Ordering::SeqCst);
        other.execute("ROLLBACK").await.unwrap();
    });
}

static DEADLOCKING: Dataset = Dataset {
    name: "deadlock_test",
    about: "A dataset this test declares",
    reader: &Deadlocking,
    side: Side::Retail,
    applies: Applies::Sellers,
    tables: &["ads_campaign_daily"],
    key: &["SellerID", "Date", "AdProduct", "CampaignID"],
    grain: "day",
    lookback_days: 6,
    slice_days: 3,
    leads: false,
    limits: "Six days back, made up by the test.",
};

/// The warnings the warehouse's loader logs (every test's in this process), from the moment
/// this is first called.
fn warehouse_warnings() -> Arc<Mutex<Vec<u8>>> {
    static LINES: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LINES
        .get_or_init(|| {
            let lines = Arc::new(Mutex::new(Vec::new()));
            let sink = lines.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_env_filter("pp_warehouse=warn")
                .with_ansi(false)
                .with_writer(move || Sink(sink.clone()))
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other test sets the process's log subscriber");
            lines
        })
        .clone()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `pp_warehouse_load_retries_total` of MySQL/MariaDB loads into `ads_campaign_daily`.
async fn retries(app: &TestApp) -> u64 {
    app.metrics_text()
        .await
        .lines()
        .find(|l| {
            l.starts_with("pp_warehouse_load_retries_total{")
                && l.contains("table=\"ads_campaign_daily\"")
                && l.contains("engine=\"mysql\"")
        })
        .and_then(|l| l.rsplit(' ').next())
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test]
async fn a_load_deadlocked_on_mariadb_is_tried_again_and_the_dataset_ends_synced() {
    let Some(my) = ScratchDb::create_mysql("pp_sync_deadlock").await else {
        return;
    };
    let logged = warehouse_warnings();
    WAREHOUSE.set(my.url.clone()).unwrap();
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        datasets: vec![&DEADLOCKING],
        ..Options::default()
    })
    .await;
    let before = retries(&app).await;
    let locator = my.url.replacen("mysql://", "mariadb://", 1);
    managed_tau_at(&app, &["seller"], &locator).await;
    let t = crate::sync_adopt::tau_sync_started(&app).await;

    let row = until_state(
        &app,
        &t,
        DEADLOCKING.name,
        "synced",
        Duration::from_secs(180),
    )
    .await;
    assert!(row["lastError"].is_null(), "{row}");
    assert!(PROVOKED.load(Ordering::SeqCst), "the deadlock was set up");
    assert!(
        OTHER_WENT_ON.load(Ordering::SeqCst),
        "the server rolled back the load, not the other transaction"
    );
    assert!(retries(&app).await > before, "the retry is counted");
    let log = String::from_utf8(logged.lock().unwrap().clone()).unwrap();
    assert!(
        log.lines().any(|l| l.contains("trying it again")
            && l.contains("ads_campaign_daily")
            && l.contains("Deadlock")),
        "the retry is in the log: {log}"
    );
    // the dataset's six days, each once, as its reader made them
    let sql = format!(
        "SELECT Date, CampaignID, Impressions FROM ads_campaign_daily WHERE AdProduct = '{PRODUCT}' ORDER BY Date"
    );
    let (s, b) = app.query(&t, json!({ "sql": sql })).await;
    assert_eq!(s, 200, "{b}");
    let rows = b["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "{b}");
    assert!(rows.iter().all(|r| r["CampaignID"] == 7), "{b}");
    // the tenant's other datasets end too before the scratch database is dropped: a load cut
    // off when the app goes leaves its connection inside a transaction until the pool uses it
    // again, and dropping the database would wait on its locks for ever
    crate::warehouse_sync::until_synced(&app, &t, Duration::from_secs(300)).await;
}

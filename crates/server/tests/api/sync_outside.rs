//! A dataset declared outside the sync's core: this module is its reader and [`OUTSIDE`] its
//! row, given to the gateway like a new dataset's would be. A managed tenant's sync plans it,
//! loads what its reader gives into the warehouse, and shows it in the status beside the
//! built-in datasets, without anything in the sync crate naming it.

use std::time::{Duration, Instant};

use chrono::Datelike;
use pp_sync::datasets::{Applies, Side};
use pp_sync::reader::{Cx, Days, Fut, Load, Reader, Started};
use pp_sync::readers::days;
use pp_sync::{Dataset, job::SyncDataset};
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};
use crate::sync_adopt::managed_tau;

/// The ad product its rows carry (their part of `ads_campaign_daily`, which no built-in
/// dataset writes).
const PRODUCT: &str = "OUTSIDE_TEST";

/// Writes one campaign row a day: the campaign is the day of the month, its impressions the
/// merchant's seller id, so what landed can be told apart.
struct Daily;

impl Reader for Daily {
    fn label(&self) -> &'static str {
        "this test's own reader"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let rows = campaign_rows(cx, (from, to), PRODUCT, |day| {
                (day.day() as i64, cx.seller.id)
            });
            Ok(Started::Rows(vec![rows]))
        })
    }
}

/// One `ads_campaign_daily` row a day of `product` (its own part of the table, which no
/// built-in dataset writes), each day's campaign and impressions from `pick`.
pub(crate) fn campaign_rows(
    cx: &Cx<'_>,
    (from, to): Days,
    product: &str,
    pick: impl Fn(chrono::NaiveDate) -> (i64, i64),
) -> Load {
    let t = table("ads_campaign_daily");
    let rows = from
        .iter_days()
        .take_while(|d| *d <= to)
        .map(|day| {
            let (campaign, impressions) = pick(day);
            t.columns
                .iter()
                .map(|c| match c.name {
                    "SellerID" => Cell::Int(cx.seller.id),
                    "Impressions" => Cell::Int(impressions),
                    "MarketplaceSellerID" => Cell::Text(cx.seller.token.clone()),
                    "Date" => Cell::Text(day.to_string()),
                    "AdProduct" => Cell::Text(product.into()),
                    "CampaignID" => Cell::Int(campaign),
                    "Currency" => Cell::Text(cx.seller.currency.clone()),
                    _ if c.ty.starts_with("DECIMAL") => Cell::Cents(0),
                    _ if c.ty.contains("INT") => Cell::Int(0),
                    _ => Cell::Text(String::new()),
                })
                .collect()
        })
        .collect();
    let mut slice = days(t, &cx.seller, from, to, "Date");
    slice.part = Some(("AdProduct", product.to_owned()));
    Load { slice, rows }
}

/// Waits (up to `limit`) until dataset `name` is in `state`; its status row.
pub(crate) async fn until_state(
    app: &TestApp,
    t: &str,
    name: &str,
    state: &str,
    limit: Duration,
) -> Value {
    let began = Instant::now();
    loop {
        let (_, b) = app.get(t, "/api/warehouse/sync").await;
        let rows = b["datasets"].as_array().cloned().unwrap_or_default();
        if let Some(r) = rows.iter().find(|r| r["dataset"] == name)
            && r["state"] == state
        {
            return r.clone();
        }
        assert!(began.elapsed() < limit, "{b:#}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

static OUTSIDE: Dataset = Dataset {
    name: "outside_test",
    about: "A dataset this test declares",
    reader: &Daily,
    side: Side::Retail,
    applies: Applies::Sellers,
    tables: &["ads_campaign_daily"],
    key: &["SellerID", "Date", "AdProduct", "CampaignID"],
    grain: "day",
    lookback_days: 5,
    slice_days: 2,
    leads: false,
    limits: "Five days back, made up by the test.",
};

#[tokio::test]
async fn a_dataset_declared_outside_the_sync_is_planned_loaded_and_shown() {
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        datasets: vec![&OUTSIDE],
        ..Options::default()
    })
    .await;
    let tau = managed_tau(&app, &["seller"]).await;
    let t = crate::sync_adopt::tau_sync_started(&app).await;

    let row = until_state(&app, &t, OUTSIDE.name, "synced", Duration::from_secs(120)).await;
    // shown with what its row and its reader say, planned over its own lookback
    assert_eq!(row["source"], "this test's own reader", "{row}");
    assert_eq!(row["limits"], OUTSIDE.limits, "{row}");
    assert_eq!(row["lookbackDays"], 5, "{row}");
    assert_eq!(row["lastError"], Value::Null, "{row}");
    let (from, through) = (
        row["coveredFrom"].as_str().unwrap().to_owned(),
        row["dataThrough"].as_str().unwrap().to_owned(),
    );
    let from_day: chrono::NaiveDate = from.parse().unwrap();
    let through_day: chrono::NaiveDate = through.parse().unwrap();
    assert_eq!((through_day - from_day).num_days(), 4, "{row}");
    // its last load was the run's last slice: five days in slices of two leave one
    assert_eq!(row["rowsLastLoad"], 1, "{row}");

    // loaded: one row a day over what the status says it covers
    let (s, b) = app
        .query(
            &t,
            json!({ "sql": format!("SELECT Date, Impressions FROM ads_campaign_daily WHERE AdProduct = '{PRODUCT}' ORDER BY Date") }),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let days: Vec<&str> = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["Date"].as_str().unwrap())
        .collect();
    assert_eq!(days.len(), 5, "{b}");
    assert_eq!((days[0], days[4]), (from.as_str(), through.as_str()), "{b}");

    // its job is the sync's own kind, with the input every dataset's job has
    let job = app
        .store
        .sync()
        .get(
            &tau,
            b["rows"][0]["Impressions"].as_i64().unwrap(),
            OUTSIDE.name,
        )
        .await
        .unwrap()
        .unwrap()
        .job_id;
    let job = app.store.jobs().get(&tau, &job).await.unwrap().unwrap();
    assert_eq!(
        job.kind,
        <SyncDataset as pp_store::jobs::BackgroundJob>::KIND
    );
    assert_eq!(job.input["dataset"], OUTSIDE.name, "{:?}", job.input);

    // a checkpoint that no longer reads (a run without its days) is the dataset's failure,
    // with the reason, and is kept as it is: the dataset does not start over
    let broken = json!({ "run": { "startedMs": 1 } });
    let args = vec![broken.to_string().as_str().into(), job.id.as_str().into()];
    app.store
        .db()
        .exec(
            "UPDATE jobs SET state = ?1, run_after = 0 WHERE id = ?2",
            args,
        )
        .await
        .unwrap();
    let row = until_state(&app, &t, OUTSIDE.name, "failing", Duration::from_secs(60)).await;
    let message = row["lastError"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("checkpoint does not read"), "{row}");
    assert!(message.contains("missing field `from`"), "{row}");
    assert_eq!(
        (&row["coveredFrom"], &row["dataThrough"]),
        (&json!(from), &json!(through))
    );
    let job = app.store.jobs().get(&tau, &job.id).await.unwrap().unwrap();
    assert_eq!(
        job.state, broken,
        "the checkpoint is kept, not started over"
    );
}

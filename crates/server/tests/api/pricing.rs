//! Pricing batches through the gateway against the sandbox (docs/reports-and-pricing.md, docs/limits.md): inline calls within
//! their limits, and background runs of up to 20,000 items that answer every item once in provider
//! batches, paced as configured, through an injected 429 and a restart of the workers.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};

const SPACING: Duration = Duration::from_millis(150);

async fn app() -> TestApp {
    let mut o = Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    };
    o.jobs.pricing_spacing = pp_marketplace::pricing::Spacing(Some(SPACING));
    TestApp::start_market_options(o).await
}

/// The US merchant's own ASINs and SKUs from the warehouse.
async fn catalog(app: &TestApp, token: &str) -> (Vec<String>, Vec<String>) {
    let (_, r) = app
        .post(
            token,
            "/api/query",
            json!({"sql": "SELECT ASIN, SKU FROM catalog_item WHERE SellerID = 1 ORDER BY ASIN"}),
        )
        .await;
    let rows = r["rows"].as_array().unwrap();
    let col = |c: &str| {
        rows.iter()
            .filter_map(|x| x[c].as_str().map(str::to_owned))
            .collect()
    };
    (col("ASIN"), col("SKU"))
}

/// Starts a Competitive Summary run for merchant 1 (202 expected); its first view and its
/// poll path.
async fn start_run(app: &TestApp, token: &str, asins: &[String]) -> (Value, String) {
    let (s, run) = app
        .post(
            token,
            "/api/marketplace/pricing/competitive-summary/start",
            json!({"legacySellerId": 1, "asins": asins}),
        )
        .await;
    assert_eq!(s, 202, "{run}");
    let poll = format!(
        "/api/marketplace/pricing/runs/{}",
        run["runId"].as_str().unwrap()
    );
    (run, poll)
}

/// Polls a run until it is terminal, showing each view to `seen`; its last view.
async fn until_finished(
    app: &TestApp,
    token: &str,
    poll: &str,
    mut seen: impl AsyncFnMut(&Value),
) -> Value {
    let started = Instant::now();
    loop {
        let (s, v) = app.get(token, poll).await;
        assert_eq!(s, 200, "{v}");
        seen(&v).await;
        if v["status"] == "succeeded" || v["status"] == "failed" {
            return v;
        }
        assert!(started.elapsed() < Duration::from_secs(90), "stuck: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_run_answers_every_item_once_through_a_429_and_a_restart() {
    let app = app().await;
    let t = app.token(&app.acme).await;
    let (mut asins, _) = catalog(&app, &t).await;
    // 250 ASINs: the merchant's own, then some the provider does not know (answered 404 each)
    let mut n = 0;
    while asins.len() < 250 {
        asins.push(format!("B0ZZ{n:06}"));
        n += 1;
    }
    app.faults(json!([{"op": "productPricing.getCompetitiveSummary", "effect": "throttle", "retry_after": 4, "times": 1}]))
        .await;
    let (run, poll) = start_run(&app, &t, &asins).await;
    assert_eq!(run["total"], 250);
    assert_eq!(run["batches"]["total"], 13);
    let mut restarted = false;
    let mut saw_wait = false;
    let view = until_finished(&app, &t, &poll, async |v| {
        saw_wait |= v["waiting"]
            .as_str()
            .is_some_and(|w| w.contains("throttled"));
        if !restarted && v["done"].as_i64().unwrap() >= 100 {
            app.restart_workers().await;
            restarted = true;
        }
    })
    .await;
    assert_eq!(view["status"], "succeeded", "{view}");
    assert!(restarted && saw_wait, "the run saw the 429 and the restart");
    assert_eq!(view["throttledBatches"], 1);
    let (_, result) = app.get(&t, &format!("{poll}/result")).await;
    assert_eq!(result["complete"], true);
    let answered: Vec<&str> = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["asin"].as_str().unwrap())
        .collect();
    assert_eq!(answered, asins, "every item answered once, in input order");
    assert_eq!(result["items"][0]["status"], 200);
    let (_, page) = app
        .get(&t, &format!("{poll}/result?offset=200&limit=30"))
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 30);
    assert_eq!(
        (
            page["items"][0]["asin"].as_str(),
            page["nextOffset"].as_u64()
        ),
        (Some(asins[200].as_str()), Some(230))
    );
    let (s, bad) = app.get(&t, &format!("{poll}/result?limit=0")).await;
    assert_eq!((s, bad["kind"].as_str()), (400, Some("invalid_request")));
    assert_eq!(result["items"][249]["status"], 404);
    // 13 batches, one of them refused once; at most one more if the restart cut a batch short
    let sent = app
        .sandbox_calls("productPricing.getCompetitiveSummary")
        .await;
    assert!((14..=15).contains(&sent), "{sent} batch calls");
    // another tenant sees nothing
    let other = app.token(&app.beta).await;
    let (s, r) = app.get(&other, &poll).await;
    assert_eq!((s, r["kind"].as_str()), (404, Some("not_found")));
    // the run's end is told once in the feed, through the restart
    let (_, feed) = app.get(&t, "/api/events?type=pricing.*").await;
    let told = feed["events"].as_array().unwrap();
    assert_eq!(told.len(), 1, "{feed}");
    assert_eq!(told[0]["subject"]["runId"], run["runId"], "{feed}");
    assert_eq!(
        (
            told[0]["data"]["status"].as_str(),
            told[0]["data"]["done"].as_i64()
        ),
        (Some("succeeded"), Some(250))
    );
}

#[tokio::test]
async fn inline_calls_keep_their_limits_and_send_nothing_over_them() {
    let app = app().await;
    let t = app.token(&app.acme).await;
    let (asins, skus) = catalog(&app, &t).await;
    let many: Vec<String> = (0..101).map(|i| format!("B0ZZ{i:06}")).collect();
    let (s, r) = app
        .post(
            &t,
            "/api/marketplace/pricing/competitive-summary",
            json!({"legacySellerId": 1, "asins": many}),
        )
        .await;
    assert_eq!(s, 400, "{r}");
    assert_eq!(r["kind"], "too_many_items");
    assert_eq!(
        (r["max_items"].as_u64(), r["items_count"].as_u64()),
        (Some(100), Some(101))
    );
    assert_eq!(r["retryable"], false);
    let (s, r) = app
        .post(
            &t,
            "/api/marketplace/pricing/competitive-summary",
            json!({"legacySellerId": 1, "asins": ["not-an-asin"]}),
        )
        .await;
    assert_eq!((s, r["kind"].as_str()), (400, Some("invalid_request")));
    let calls = app
        .sandbox(Method::GET, "/__sandbox/calls", Value::Null)
        .await;
    assert_eq!(calls["calls"], json!({}), "nothing was sent");
    // within the limit: every batch inline, in order
    let few: Vec<&String> = asins.iter().take(3).collect();
    let (s, r) = app
        .post(
            &t,
            "/api/marketplace/pricing/competitive-summary",
            json!({"legacySellerId": 1, "asins": few}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["items"].as_array().unwrap().len(), 3);
    assert_eq!(r["items"][0]["asin"], *few[0]);
    assert_eq!(r["items"][0]["status"], 200);
    let forty_one: Vec<String> = skus
        .iter()
        .cycle()
        .take(41)
        .enumerate()
        .map(|(i, s)| {
            if i < skus.len() {
                s.clone()
            } else {
                format!("{s}-x{i}")
            }
        })
        .collect();
    // a batch throttled past the client's own wait: the call waits it out, losing nothing
    app.faults(json!([{"op": "productPricing.getFeaturedOfferExpectedPriceBatch", "effect": "throttle", "retry_after": 4, "times": 1}]))
        .await;
    let (s, r) = app
        .post(
            &t,
            "/api/marketplace/pricing/featured-offer-expected-price",
            json!({"legacySellerId": 1, "skus": forty_one}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["batches"], 2, "41 SKUs are two provider batches");
    assert_eq!(r["items"].as_array().unwrap().len(), 41);
    assert_eq!(r["items"][0]["status"], 200, "{}", r["items"][0]);
    assert_eq!(
        app.sandbox_calls("productPricing.getFeaturedOfferExpectedPriceBatch")
            .await,
        3,
        "two batches, one of them refused once"
    );
}

#[tokio::test]
async fn two_worker_pools_on_one_store_never_send_a_batch_twice() {
    let app = app().await;
    app.second_worker_pool().await;
    let t = app.token(&app.acme).await;
    let asins: Vec<String> = (0..100).map(|i| format!("B0YY{i:06}")).collect();
    let (_, poll) = start_run(&app, &t, &asins).await;
    // when each batch's answers first showed (polled every 50 ms)
    let mut seen_at: Vec<(i64, Instant)> = Vec::new();
    let v = until_finished(&app, &t, &poll, async |v| {
        let done = v["done"].as_i64().unwrap();
        if seen_at.last().is_none_or(|(d, _)| *d != done) {
            seen_at.push((done, Instant::now()));
        }
    })
    .await;
    assert_eq!(v["status"], "succeeded", "{v}");
    let gaps: Vec<Duration> = seen_at
        .windows(2)
        .filter(|w| w[0].0 > 0)
        .map(|w| w[1].1 - w[0].1)
        .collect();
    assert!(
        !gaps.is_empty()
            && gaps
                .iter()
                .all(|g| *g >= SPACING - Duration::from_millis(50)),
        "batches keep the configured pace across both pools: {gaps:?}"
    );
    let (_, result) = app.get(&t, &format!("{poll}/result")).await;
    assert_eq!(result["answered"], 100);
    assert_eq!(
        app.sandbox_calls("productPricing.getCompetitiveSummary")
            .await,
        5,
        "five batches, each sent once by one of four workers"
    );
}

#[tokio::test]
async fn a_cancelled_run_sends_nothing_more_and_keeps_its_answers() {
    let mut o = Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    };
    o.jobs.pricing_spacing = pp_marketplace::pricing::Spacing(Some(Duration::from_secs(60)));
    let app = TestApp::start_market_options(o).await;
    let t = app.token(&app.acme).await;
    let asins: Vec<String> = (0..60).map(|i| format!("B0CC{i:06}")).collect();
    let (_, poll) = start_run(&app, &t, &asins).await;
    // the first batch goes at once; the next would wait a minute
    let started = Instant::now();
    while app.get(&t, &poll).await.1["done"] != 20 {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let del = |path: String| {
        let r = app.http.delete(app.url(&path)).bearer_auth(&t).send();
        async move {
            let r = r.await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (s, v) = del(poll.clone()).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("cancelled")), "{v}");
    assert_eq!(v["estimatedSecondsLeft"], 0);
    let (s, v) = del(poll.clone()).await;
    assert_eq!((s, v["kind"].as_str()), (409, Some("conflict")), "{v}");
    let (_, result) = app.get(&t, &format!("{poll}/result")).await;
    assert_eq!(
        (result["answered"].as_u64(), result["complete"].as_bool()),
        (Some(20), Some(false))
    );
    assert_eq!(
        app.sandbox_calls("productPricing.getCompetitiveSummary")
            .await,
        1
    );
}

/// `n` well-formed ASINs (the sandbox answers the ones it does not know item by item).
fn synthetic_asins(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("B0PACE{i:04}")).collect()
}

/// A run paced by the provider's usage plan (nothing configured) against the sandbox
/// enforcing that plan: every batch goes through on its first try.
#[tokio::test]
async fn a_run_at_the_plans_pace_is_never_throttled() {
    let app = TestApp::start_market_options(Options::default()).await;
    let t = app.token(&app.acme).await;
    let asins = synthetic_asins(250);
    let (run, poll) = start_run(&app, &t, &asins).await;
    // the plan's pace: one batch per 1 / 0.033 s, with 1% to spare
    let spacing = run["spacingSeconds"].as_f64().unwrap();
    assert!((30.3..31.0).contains(&spacing), "{run}");
    let end = app
        .until_run_ends(&t, &poll, Duration::from_secs(600))
        .await;
    assert_eq!(end["status"], "succeeded", "{end}");
    assert_eq!(end["throttledBatches"], 0, "{end}");
    assert_eq!(end["done"], 250);
    // thirteen batches, each sent once
    assert_eq!(
        app.sandbox_calls("productPricing.getCompetitiveSummary")
            .await,
        13
    );
}

/// When the provider states a tighter plan than the catalog's, the run slows to it by itself.
#[tokio::test]
async fn a_tighter_provider_plan_slows_the_run_down() {
    let app = TestApp::start_market_options(Options::default()).await;
    app.sandbox(
        Method::PUT,
        "/__sandbox/limits",
        json!({ "enabled": true, "rateScale": 0.5 }),
    )
    .await;
    let t = app.token(&app.acme).await;
    let (_, poll) = start_run(&app, &t, &synthetic_asins(40)).await;
    let end = app
        .until_run_ends(&t, &poll, Duration::from_secs(180))
        .await;
    assert_eq!(end["status"], "succeeded", "{end}");
    assert_eq!(end["throttledBatches"], 0, "{end}");
    // the provider said 0.0165 per second: one batch per 61 s
    let spacing = end["spacingSeconds"].as_f64().unwrap();
    assert!((60.6..62.0).contains(&spacing), "{end}");
    assert_eq!(
        app.sandbox_calls("productPricing.getCompetitiveSummary")
            .await,
        2
    );
}

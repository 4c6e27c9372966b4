//! Amazon Marketing Stream from the sandbox, read the way a consumer reads it: a subscription
//! to a queue (the sandbox's own SQS endpoint, or a real SQS server's), the SNS confirmation
//! first, then the world's hours, whose records — duplicates dropped by `idempotency_id`,
//! deltas added — sum to the daily reports to the cent, also after the world moves on and
//! restates its attributed days.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use pp_sqs::{Client, Credentials, Endpoint};
use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp};

const MEDIA: &str =
    "application/vnd.MarketingStreamSubscriptions.StreamSubscriptionResource.v1.0+json";

pub(crate) fn sandbox_sqs(app: &SimApp) -> Client {
    let s = &app.creds["sqs"];
    let text = |k: &str| s[k].as_str().unwrap().to_owned();
    Client::new(
        app.http.clone(),
        Endpoint {
            url: text("endpoint").parse().unwrap(),
            region: text("region"),
            credentials: Credentials {
                access_key_id: text("access_key_id"),
                secret_access_key: text("secret_access_key"),
                session_token: None,
            },
        },
    )
}

/// Every message body the queue holds until it stays empty for a second, deleting each.
pub(crate) async fn drain(sqs: &Client, url: &str) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let got = sqs
            .receive(url, 10, Duration::from_secs(1), Duration::from_secs(60))
            .await
            .unwrap();
        if got.is_empty() {
            return out;
        }
        let handles: Vec<&str> = got.iter().map(|m| m.receipt_handle.as_str()).collect();
        assert_eq!(sqs.delete(url, &handles).await.unwrap(), vec![]);
        out.extend(got.into_iter().map(|m| m.body));
    }
}

/// Waits until the queue has held nothing new for two seconds running; all it held.
pub(crate) async fn settle(sqs: &Client, url: &str) -> Vec<String> {
    let mut all = Vec::new();
    let mut quiet = 0;
    while quiet < 2 {
        let got = drain(sqs, url).await;
        quiet = if got.is_empty() { quiet + 1 } else { 0 };
        all.extend(got);
    }
    all
}

/// Stops (or resumes) every stream delivery of the sandbox.
async fn pause(app: &SimApp, paused: bool) {
    let r = app
        .control(Method::POST, "/__sandbox/streams")
        .json(&json!({ "paused": paused }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// `GET /streams/subscriptions/{id}`'s body.
async fn subscription(a: &Ads<'_>, id: &str) -> Value {
    a.call(
        Method::GET,
        &format!("/streams/subscriptions/{id}"),
        MEDIA,
        Value::Null,
    )
    .await
    .2
}

async fn subscribe(a: &Ads<'_>, dataset: &str, arn: &str) -> (u16, Value) {
    let (s, _, b) = a
        .call(
            Method::POST,
            "/streams/subscriptions",
            MEDIA,
            json!({ "clientRequestToken": format!("t-{dataset}"), "dataSetId": dataset, "destinationArn": arn, "notes": "test" }),
        )
        .await;
    (s, b)
}

/// Confirms through the SubscribeURL of the queue's first message.
async fn confirm(app: &SimApp, sqs: &Client, url: &str) {
    let first = sqs
        .receive(url, 1, Duration::from_secs(5), Duration::from_secs(60))
        .await
        .unwrap();
    let msg: Value = serde_json::from_str(&first[0].body).unwrap();
    assert_eq!(msg["Type"], "SubscriptionConfirmation", "{msg}");
    sqs.delete(url, &[first[0].receipt_handle.as_str()])
        .await
        .unwrap();
    let r = app
        .http
        .get(msg["SubscribeURL"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

/// Records by idempotency id (a true duplicate must be the same record), and how many
/// duplicates there were.
fn records(bodies: &[String]) -> (BTreeMap<String, Value>, usize) {
    let mut out = BTreeMap::new();
    let mut dupes = 0;
    for b in bodies {
        let n: Value = serde_json::from_str(b).unwrap();
        assert_eq!(n["Type"], "Notification", "{n}");
        let r: Value = serde_json::from_str(n["Message"].as_str().unwrap()).unwrap();
        let id = r["idempotency_id"].as_str().unwrap().to_owned();
        if let Some(was) = out.insert(id, r.clone()) {
            assert_eq!(was, r, "a duplicate is the same record");
            dupes += 1;
        }
    }
    (out, dupes)
}

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 100.0).round() as i64
}

/// (campaign, ad group, target, local day) → summed measures, from records.
fn by_day(
    recs: &BTreeMap<String, Value>,
    fields: &[&str],
) -> BTreeMap<(String, String, String, String), Vec<i64>> {
    let mut out: BTreeMap<_, Vec<i64>> = BTreeMap::new();
    for r in recs.values() {
        let key = (
            r["campaign_id"].as_str().unwrap().to_owned(),
            r["ad_group_id"].as_str().unwrap().to_owned(),
            r["keyword_id"].as_str().unwrap().to_owned(),
            r["time_window_start"].as_str().unwrap()[..10].to_owned(),
        );
        let sums = out.entry(key).or_insert_with(|| vec![0; fields.len()]);
        for (i, f) in fields.iter().enumerate() {
            sums[i] += if f.starts_with("cost") || f.starts_with("attributed_sales") {
                cents(&r[*f])
            } else {
                r[*f].as_i64().unwrap()
            };
        }
    }
    out
}

/// The same from the world's daily report rows of the US profile's SP targets.
fn report(
    app: &SimApp,
    from: &str,
    fields: &[&str],
) -> BTreeMap<(String, String, String, String), Vec<i64>> {
    let world = app.sim.world();
    let rows = world
        .rows(
            "SELECT CampaignID, AdGroupID, TargetingID, Date, Impressions, Clicks, Cost, Purchases7d, Sales7d
             FROM ads_targeting_daily WHERE ProfileID = 3100000001 AND AdProduct = 'SPONSORED_PRODUCTS' AND Date >= ?1",
            &[&from],
        )
        .unwrap();
    let mut out = BTreeMap::new();
    for r in rows {
        let vals: Vec<i64> = fields
            .iter()
            .map(|f| match *f {
                "impressions" => r["Impressions"].as_i64().unwrap(),
                "clicks" => r["Clicks"].as_i64().unwrap(),
                "cost" => cents(&r["Cost"]),
                "attributed_conversions_7d" => r["Purchases7d"].as_i64().unwrap(),
                _ => cents(&r["Sales7d"]),
            })
            .collect();
        if vals.iter().all(|v| *v == 0) {
            continue;
        }
        let id = |k: &str| r[k].as_i64().unwrap().to_string();
        out.insert(
            (
                id("CampaignID"),
                id("AdGroupID"),
                id("TargetingID"),
                r["Date"].as_str().unwrap().to_owned(),
            ),
            vals,
        );
    }
    out
}

#[tokio::test]
async fn a_subscription_streams_the_worlds_hours_that_sum_to_its_daily_reports_also_once_restated()
{
    let app = SimApp::start_with(|c| c.stream_backfill_days = 5).await;
    app.no_limits().await;
    let a = Ads::login(&app, SELLER).await;
    let sqs = sandbox_sqs(&app);
    let traffic = sqs.create_queue("sp-traffic").await.unwrap();
    let conversion = sqs.create_queue("sp-conversion").await.unwrap();
    let arn = |q: &str| format!("arn:aws:sqs:us-east-1:111122223333:{q}");
    let (s, made) = subscribe(&a, "sp-traffic", &arn("sp-traffic")).await;
    assert_eq!(s, 200, "{made}");
    let id = made["subscriptionId"].as_str().unwrap().to_owned();
    // the same client request token answers the same subscription
    assert_eq!(
        subscribe(&a, "sp-traffic", &arn("sp-traffic")).await.1,
        made
    );
    assert_eq!(
        subscribe(&a, "sp-conversion", &arn("sp-conversion"))
            .await
            .0,
        200
    );
    let one = subscription(&a, &id).await;
    assert_eq!(
        one["subscription"]["status"], "PENDING_CONFIRMATION",
        "{one}"
    );
    // the queue's first message is the confirmation request
    confirm(&app, &sqs, &traffic).await;
    confirm(&app, &sqs, &conversion).await;
    let one = subscription(&a, &id).await;
    assert_eq!(one["subscription"]["status"], "ACTIVE", "{one}");

    let last = app.sim.world().last_day;
    let from = (last - chrono::Duration::days(4)).to_string();
    let (t, dupes) = records(&settle(&sqs, &traffic).await);
    let measures = ["impressions", "clicks", "cost"];
    assert_eq!(by_day(&t, &measures), report(&app, &from, &measures));
    let hours: BTreeSet<&str> = t
        .values()
        .map(|r| &r["time_window_start"].as_str().unwrap()[11..13])
        .collect();
    assert!(
        hours.len() >= 20,
        "the day is spread over its hours: {hours:?}"
    );
    let placements: BTreeSet<&str> = t
        .values()
        .map(|r| r["placement"].as_str().unwrap())
        .collect();
    assert_eq!(placements.len(), 3, "{placements:?}");
    assert!(
        dupes > 0,
        "some records are sent twice ({} records)",
        t.len()
    );

    let conv = ["attributed_conversions_7d", "attributed_sales_7d"];
    let (mut c, _) = records(&settle(&sqs, &conversion).await);
    assert_eq!(by_day(&c, &conv), report(&app, &from, &conv));

    // the world moves two days: the attributed days restate, as deltas with new ids
    let r = app
        .control(Method::POST, "/__sandbox/world")
        .json(&json!({ "days": 2 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (later, _) = records(&settle(&sqs, &conversion).await);
    assert!(
        later.keys().all(|k| !c.contains_key(k)),
        "restatements are new records"
    );
    let before = by_day(&c, &conv);
    c.extend(later);
    let after = by_day(&c, &conv);
    assert_ne!(before, after, "the move restated attributed hours");
    assert_eq!(
        after,
        report(&app, &from, &conv),
        "deltas added, every day is its report"
    );
}

#[tokio::test]
async fn the_queue_refuses_what_is_not_signed_with_its_key() {
    let app = SimApp::start().await;
    let good = sandbox_sqs(&app);
    good.create_queue("q").await.unwrap();
    let s = &app.creds["sqs"];
    let wrong = Client::new(
        app.http.clone(),
        Endpoint {
            url: s["endpoint"].as_str().unwrap().parse().unwrap(),
            region: "us-east-1".into(),
            credentials: Credentials {
                access_key_id: s["access_key_id"].as_str().unwrap().into(),
                secret_access_key: "not-the-secret".into(),
                session_token: None,
            },
        },
    );
    let e = wrong.create_queue("other").await.unwrap_err();
    assert_eq!(e.code(), Some("InvalidSignatureException"), "{e}");
    let r = app
        .http
        .post(app.url("/sqs"))
        .header("x-amz-target", "AmazonSQS.ListQueues")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(
        good.queue_url("other").await.unwrap_err().code(),
        Some("QueueDoesNotExist")
    );
}

#[tokio::test]
async fn a_subscription_delivers_to_a_real_sqs_server_and_a_paused_one_catches_up() {
    let Some(moto) = pp_sqs::moto::Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint();
    let app = SimApp::start_with(|c| {
        c.stream_backfill_days = 2;
        c.stream_sqs = Some(endpoint);
    })
    .await;
    app.no_limits().await;
    let a = Ads::login(&app, SELLER).await;
    let sqs = moto.client();
    let url = sqs.create_queue("budget").await.unwrap();
    // a queue the SQS server does not have is refused at once
    let (s, b) = subscribe(&a, "sp-traffic", &pp_sqs::moto::Moto::arn("nope")).await;
    assert_eq!(s, 400, "{b}");
    let (s, made) = subscribe(&a, "budget-usage", &pp_sqs::moto::Moto::arn("budget")).await;
    assert_eq!(s, 200, "{made}");
    pause(&app, true).await;
    confirm(&app, &sqs, &url).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        drain(&sqs, &url).await.is_empty(),
        "a paused stream sends nothing"
    );
    pause(&app, false).await;
    let (usage, _) = records(&settle(&sqs, &url).await);
    assert!(!usage.is_empty());
    // the last reading of each campaign's day is its cost over its budget
    let world = app.sim.world();
    let mut last: BTreeMap<(String, String), &Value> = BTreeMap::new();
    for r in usage.values() {
        let key = (
            r["budget_scope_id"].as_str().unwrap().to_owned(),
            r["usage_updated_timestamp"].as_str().unwrap()[..10].to_owned(),
        );
        let at = r["usage_updated_timestamp"].as_str().unwrap();
        if last
            .get(&key)
            .is_none_or(|w| w["usage_updated_timestamp"].as_str().unwrap() < at)
        {
            last.insert(key, r);
        }
    }
    for ((campaign, day), r) in last {
        let row = &world
            .rows(
                "SELECT Cost, CampaignBudget FROM ads_campaign_daily WHERE CampaignID = ?1 AND Date = ?2",
                &[&campaign.parse::<i64>().unwrap(), &day],
            )
            .unwrap()[0];
        let want = (cents(&row["Cost"]) as f64 * 10_000.0 / cents(&row["CampaignBudget"]) as f64)
            .round()
            / 100.0;
        assert_eq!(r["budget_usage_percentage"].as_f64().unwrap(), want, "{r}");
    }
}

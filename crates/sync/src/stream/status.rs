//! What the tenant's streams are doing: each queue's messages, duplicates and rejects, its last
//! message and the lag since the provider published the newest one (a queue that has heard
//! nothing for two hours is `lagging`: the daily reports still fill the day), each
//! subscription's status at the provider, and each day of the last 35 whose hours and daily
//! report both exist, the two side by side: a settled day (traffic: any reported day;
//! conversions: past the attribution window) whose totals differ is named with the difference,
//! never hidden.

use chrono::NaiveDate;
use pp_core::{Principal, Result, Scope, TenantId};
use pp_warehouse::directory;
use serde::Serialize;

use super::Streams;
use super::message::DATASETS;

/// A queue that has heard nothing this long is lagging (`StreamConfig::lagging_after`).
pub const LAGGING_AFTER_MS: i64 = 2 * 3600 * 1000;
/// Days a conversion hour keeps being restated.
pub const ATTRIBUTION_DAYS: i64 = 14;
/// Days of hours checked against the daily reports.
pub const CHECKED_DAYS: i64 = 35;

/// The tenant's streams.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamStatus {
    /// Whether the gateway has queues configured at all.
    pub configured: bool,
    pub queues: Vec<QueueStatus>,
    pub subscriptions: Vec<SubscriptionStatus>,
    /// Settled days checked, and those whose hours equal the report.
    pub days_checked: u64,
    pub days_matching: u64,
    /// Every settled day whose hours and report differ.
    pub differences: Vec<DayDifference>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStatus {
    pub dataset: String,
    /// `waiting` (nothing received yet), `flowing`, or `lagging`.
    pub state: &'static str,
    pub messages: i64,
    pub duplicates: i64,
    pub rejected: i64,
    pub confirmations: i64,
    pub last_message: Option<String>,
    pub last_published: Option<String>,
    /// Seconds from the newest message's publication to now.
    pub lag_seconds: Option<i64>,
    pub last_error: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionStatus {
    pub profile_id: String,
    pub legacy_seller_id: i64,
    pub dataset: String,
    pub subscription_id: String,
    /// The provider's status when last read.
    pub status: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayDifference {
    pub legacy_seller_id: i64,
    pub dataset: String,
    pub day: String,
    /// The hours' totals and the report's: impressions, clicks, cost (cents) for traffic;
    /// purchases, sales (cents) for conversions.
    pub hours: Vec<i64>,
    pub report: Vec<i64>,
}

fn time(ms: Option<i64>) -> Option<String> {
    ms.and_then(chrono::DateTime::from_timestamp_millis)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The tenant's streams (`account:read`).
pub(crate) async fn stream_status(s: &Streams, p: &Principal) -> Result<StreamStatus> {
    p.require(&[Scope::AccountRead])?;
    let tenant = &p.tenant;
    let queues = queue_status(s, tenant).await?;
    let subs = s.sync.store.streams().subscriptions(tenant).await?;
    let mut out = StreamStatus {
        configured: s.sync.stream.is_some(),
        queues,
        subscriptions: subs
            .iter()
            .map(|s| SubscriptionStatus {
                profile_id: s.profile_id.clone(),
                legacy_seller_id: s.seller_id,
                dataset: s.dataset.clone(),
                subscription_id: s.subscription_id.clone(),
                status: s.status.clone(),
            })
            .collect(),
        days_checked: 0,
        days_matching: 0,
        differences: Vec::new(),
    };
    // the advertising streams' sellers (a notification subscription makes no hourly rows)
    let mut sellers: Vec<i64> = subs
        .iter()
        .filter(|s| DATASETS.iter().any(|(d, _)| *d == s.dataset))
        .map(|s| s.seller_id)
        .collect();
    if sellers.is_empty() {
        return Ok(out);
    }
    let today = s.sync.market.feeds().today().await?;
    let engine = s.sync.warehouses.of_tenant(tenant).await?;
    sellers.sort_unstable();
    sellers.dedup();
    let from = (today - chrono::Duration::days(CHECKED_DAYS)).to_string();
    let to = today.to_string();
    for seller in sellers {
        for (dataset, product) in DATASETS {
            let Some(product) = product else { continue };
            let conversion = dataset.ends_with("-conversion");
            let days = directory::stream_days(
                engine.as_ref(),
                &s.sync.warehouses.limits,
                seller,
                product,
                conversion,
                &from,
                &to,
            )
            .await?;
            for d in days {
                if !settled(&d, conversion, today) {
                    continue;
                }
                out.days_checked += 1;
                if d.hours == d.report {
                    out.days_matching += 1;
                    continue;
                }
                let n = if conversion { 2 } else { 3 };
                out.differences.push(DayDifference {
                    legacy_seller_id: seller,
                    dataset: (*dataset).to_owned(),
                    day: d.day,
                    hours: d.hours[..n].to_vec(),
                    report: d.report[..n].to_vec(),
                });
            }
        }
    }
    Ok(out)
}

/// Each of the tenant's queues: its state, counts, last message and lag (cheap: the state
/// store only, no warehouse read).
pub(crate) async fn queue_status(s: &Streams, tenant: &TenantId) -> Result<Vec<QueueStatus>> {
    let now = pp_store::jobs::now_ms();
    let lagging_after = s
        .sync
        .stream
        .as_ref()
        .map_or(LAGGING_AFTER_MS, |c| c.lagging_after.as_millis() as i64);
    let queues = s
        .sync
        .store
        .streams()
        .queue_states(tenant)
        .await?
        .into_iter()
        .map(|q| {
            let lag = q.last_published_ms.map(|t| (now - t) / 1000);
            let state = match (q.last_message_ms, q.last_published_ms) {
                (_, Some(t)) if now - t <= lagging_after => "flowing",
                (Some(_), _) => "lagging",
                (None, _) => "waiting",
            };
            QueueStatus {
                dataset: q.dataset,
                state,
                messages: q.messages,
                duplicates: q.duplicates,
                rejected: q.rejected,
                confirmations: q.confirmations,
                last_message: time(q.last_message_ms),
                last_published: time(q.last_published_ms),
                lag_seconds: lag,
                last_error: q.last_error,
            }
        })
        .collect();
    Ok(queues)
}

/// Whether a day's report is final for the check: traffic once the report has the day,
/// conversions once the attribution window has passed too.
fn settled(d: &directory::StreamDay, conversion: bool, today: NaiveDate) -> bool {
    let Ok(day) = d.day.parse::<NaiveDate>() else {
        return false;
    };
    if day >= today {
        return false;
    }
    if conversion {
        (today - day).num_days() > ATTRIBUTION_DAYS
    } else {
        d.report != [0; 3] || (today - day).num_days() > 2
    }
}

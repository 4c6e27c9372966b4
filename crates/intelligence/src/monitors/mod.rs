//! Monitors (docs/events.md#monitors): after each sync of a merchant's data (and over the demo
//! world when the dev server starts), each monitor reads the merchant's rows as of the data's
//! last day and says which subjects fire: an item out of stock or low on cover, a campaign out
//! of budget days running or (the stream's hours) before a given hour, the month's spend off
//! its plan, a metric outside its own range
//! with enough samples. An episode starts the first day a subject fires and ends the first day
//! it does not; each start and end is an event (`monitor.*`) and an entry on the brand's
//! timeline (kind `monitor.*`, a server-reserved native family), told once per episode.
//!
//! `replay` evaluates day after day over a stretch of the warehouse's history, as if after
//! each day's sync: how the monitors are held to the demo world's ground truth.

pub mod history;
pub mod rules;
pub mod settings;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate};
use pp_core::events::payloads::{EpisodeData, MonitorTold};
use pp_core::events::{self, EventType};
use pp_core::{Error, Principal, Result, Scope as Grant, TenantId};
use pp_store::Store;
use pp_store::events::NewEvent;
use pp_store::jobs::{BackgroundJob, Handler, Job, Outcome, StepFuture, Steps};
use pp_store::monitors::{
    Changed, EpisodeRow, Evaluation, Firing, MonitorIntraday, MonitorRun, Told,
};
use pp_warehouse::Warehouses;
use pp_warehouse::directory::{self, Seller};
use serde::Serialize;
use serde_json::{Value, json};

use crate::data::Wh;
use crate::engines::StateStore;
use crate::params::Period;
use history::MonitorHistory;
use rules::Alert;
pub use settings::MonitorSettings;

/// The monitors (their wire names are their episodes' and settings' keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Monitor {
    Stockout,
    LowCover,
    OutOfBudget,
    OutOfBudgetByHour,
    SpendOffPlan,
    SpendPaceByHour,
    Anomaly,
    HourlyAnomaly,
}

pp_core::spelled!(Monitor, "monitor", Stockout => "stockout", LowCover => "low_cover",
    OutOfBudget => "out_of_budget", OutOfBudgetByHour => "out_of_budget_by_hour",
    SpendOffPlan => "spend_off_plan", SpendPaceByHour => "spend_pace_by_hour",
    Anomaly => "anomaly", HourlyAnomaly => "hourly_anomaly");

/// Which monitors an evaluation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    /// Every one (a replay of past days).
    All,
    /// Those over daily data.
    Daily,
    /// Those over the stream's hours.
    Intraday,
}

impl Which {
    fn runs(self, m: Monitor) -> bool {
        match self {
            Which::All => true,
            Which::Daily => !m.intraday(),
            Which::Intraday => m.intraday(),
        }
    }
}

impl Monitor {
    /// Whether it reads the Marketing Stream's hours (and so judges the stream's latest day,
    /// as the hours arrive).
    pub fn intraday(self) -> bool {
        matches!(
            self,
            Monitor::OutOfBudgetByHour | Monitor::SpendPaceByHour | Monitor::HourlyAnomaly
        )
    }

    /// The event type it tells (and so the scope that reads it).
    pub fn event(self) -> &'static EventType {
        match self {
            Monitor::Stockout => &events::MONITOR_STOCKOUT,
            Monitor::LowCover => &events::MONITOR_LOW_COVER,
            Monitor::OutOfBudget => &events::MONITOR_OUT_OF_BUDGET,
            Monitor::OutOfBudgetByHour => &events::MONITOR_OUT_OF_BUDGET_BY_HOUR,
            Monitor::SpendOffPlan => &events::MONITOR_SPEND_OFF_PLAN,
            Monitor::SpendPaceByHour => &events::MONITOR_SPEND_PACE_BY_HOUR,
            Monitor::Anomaly => &events::MONITOR_ANOMALY,
            Monitor::HourlyAnomaly => &events::MONITOR_HOURLY_ANOMALY,
        }
    }
}

/// The longest stretch before a day any rule reads.
const LEAD_DAYS: i64 = 100;

/// The monitors service.
#[derive(Clone)]
pub struct Monitors {
    store: Store,
    warehouses: Warehouses,
}

/// What an evaluation changed, per merchant and day.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    pub days: i64,
    pub started: Vec<EpisodeView>,
    pub ended: Vec<EpisodeView>,
}

/// An episode as answers show it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EpisodeView {
    pub monitor: String,
    pub subject: String,
    pub started_on: String,
    pub ended_on: Option<String>,
    pub last_seen_on: String,
    pub evidence: Value,
}

impl From<&EpisodeRow> for EpisodeView {
    fn from(e: &EpisodeRow) -> Self {
        Self {
            monitor: e.monitor.clone(),
            subject: e.subject.clone(),
            started_on: e.started_on.clone(),
            ended_on: e.ended_on.clone(),
            last_seen_on: e.last_seen_on.clone(),
            evidence: e.evidence.clone(),
        }
    }
}

/// The monitors as a reader sees them: the settings in force and the open episodes of the
/// monitors its scopes read.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonitorsView {
    pub settings: MonitorSettings,
    /// Who set the tenant's own settings, and when (none: the defaults).
    pub set_by: Option<String>,
    pub set_at: Option<String>,
    pub open: Vec<EpisodeView>,
}

/// What an evaluation needs besides the history: the day's plan and the brands' slugs.
struct Context<'a> {
    tenant: &'a TenantId,
    settings: &'a MonitorSettings,
    /// Brand name → slug.
    slugs: &'a HashMap<String, String>,
    /// Month (`YYYY-MM`) → the month's ad budget in cents.
    budgets: &'a HashMap<String, i64>,
}

impl Monitors {
    pub fn new(store: Store, warehouses: Warehouses) -> Self {
        Self { store, warehouses }
    }

    /// The tenant's settings in force (its own over the defaults), and who set them when.
    pub async fn settings(
        &self,
        tenant: &TenantId,
    ) -> Result<(MonitorSettings, Option<(String, i64)>)> {
        match self.store.monitors().settings(tenant).await? {
            None => Ok((MonitorSettings::default(), None)),
            Some((doc, by, at)) => Ok((MonitorSettings::read(&doc)?, Some((by, at)))),
        }
    }

    /// The settings and the open episodes `p` may see (retail monitors with `retail:read`,
    /// advertising ones with `ads:read`).
    pub async fn view(&self, p: &Principal) -> Result<MonitorsView> {
        let (settings, set) = self.settings(&p.tenant).await?;
        let open = self
            .store
            .monitors()
            .episodes(&p.tenant, None, false, 500)
            .await?
            .iter()
            // an episode of a monitor this release does not know is not shown
            .filter(|e| {
                Monitor::parse(&e.monitor).is_ok_and(|m| p.scopes.contains(m.event().scope))
            })
            .map(EpisodeView::from)
            .collect();
        Ok(MonitorsView {
            settings,
            set_by: set.as_ref().map(|(by, _)| by.clone()),
            set_at: set.map(|(_, at)| pp_store::rfc3339_ms(at)),
            open,
        })
    }

    /// Replaces the tenant's settings with `doc` (laid over the defaults), as `p`, who holds
    /// `webhooks:write` (the scope that decides what the gateway tells).
    pub async fn set_settings(&self, p: &Principal, doc: Value) -> Result<MonitorsView> {
        p.require(&[Grant::WebhooksWrite])?;
        let read = MonitorSettings::read(&doc)?;
        let stored = serde_json::to_value(&read).map_err(Error::internal_from)?;
        self.store
            .monitors()
            .set_settings(&p.tenant, &stored, p.actor.as_str())
            .await?;
        self.view(p).await
    }

    async fn wh(&self, tenant: &TenantId) -> Result<Wh> {
        let engine = self.warehouses.of_tenant(tenant).await?;
        Ok(Wh::new(engine, &self.warehouses.limits))
    }

    /// Evaluates the tenant's monitors as of each merchant's last day of data (`seller`: one
    /// merchant only); the intraday ones as of the stream's latest day.
    pub async fn evaluate(&self, tenant: &TenantId, seller: Option<i64>) -> Result<Evaluated> {
        self.over(tenant, seller, None, Which::Daily).await
    }

    /// Evaluates one merchant's intraday monitors as of the stream's latest day (its hours so
    /// far).
    pub async fn evaluate_intraday(&self, tenant: &TenantId, seller: i64) -> Result<Evaluated> {
        self.over(tenant, Some(seller), None, Which::Intraday).await
    }

    /// Evaluates every day from `from` to `to` in order, as after each day's sync.
    pub async fn replay(
        &self,
        tenant: &TenantId,
        seller: Option<i64>,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Evaluated> {
        self.over(tenant, seller, Some((from, to)), Which::All)
            .await
    }

    /// Each merchant's days (`days`, or without it the merchant's last day of data for the
    /// daily monitors and the stream's latest day for the intraday ones), with what is the
    /// tenant's (settings, brands, open episodes) read once.
    async fn over(
        &self,
        tenant: &TenantId,
        seller: Option<i64>,
        days: Option<(NaiveDate, NaiveDate)>,
        which: Which,
    ) -> Result<Evaluated> {
        let wh = self.wh(tenant).await?;
        let (settings, _) = self.settings(tenant).await?;
        let slugs: HashMap<String, String> = directory::brands(wh.engine.as_ref(), &wh.limits)
            .await?
            .into_iter()
            .map(|b| (b.name, b.slug))
            .collect();
        let open = self
            .store
            .monitors()
            .episodes(tenant, None, false, 100_000)
            .await?;
        let mut out = Evaluated::default();
        for s in self.sellers(&wh, seller).await? {
            // (which monitors, from, to): one stretch, or the daily and the intraday days
            let mut stretches = Vec::new();
            match days {
                Some((from, to)) => stretches.push((which, from, to)),
                None => {
                    if which == Which::Daily
                        && let Some(on) = history::last_day(&wh, &s).await?
                    {
                        stretches.push((Which::Daily, on, on));
                    }
                    if let Some(on) = history::stream_day(&wh, &s).await? {
                        stretches.push((Which::Intraday, on, on));
                    }
                }
            }
            if stretches.is_empty() {
                continue;
            }
            let budgets = self.budgets(tenant, &s).await?;
            let cx = Context {
                tenant,
                settings: &settings,
                slugs: &slugs,
                budgets: &budgets,
            };
            let prefix = format!("{}:", s.id);
            let open: BTreeSet<(String, String)> = open
                .iter()
                .filter(|e| e.subject.starts_with(&prefix))
                .map(|e| (e.monitor.clone(), e.subject.clone()))
                .collect();
            for (which, from, to) in stretches {
                let more = self
                    .run(&cx, &wh, &s, open.clone(), which, (from, to))
                    .await?;
                out.days += more.days;
                out.started.extend(more.started);
                out.ended.extend(more.ended);
            }
        }
        Ok(out)
    }

    async fn sellers(&self, wh: &Wh, only: Option<i64>) -> Result<Vec<Seller>> {
        Ok(directory::sellers(wh.engine.as_ref(), &wh.limits)
            .await?
            .into_iter()
            .filter(|s| only.is_none_or(|id| s.id == id))
            .collect())
    }

    /// One merchant's days `from..=to`, read in stretches; `open` is its open episodes.
    async fn run(
        &self,
        cx: &Context<'_>,
        wh: &Wh,
        seller: &Seller,
        mut open: BTreeSet<(String, String)>,
        which: Which,
        (from, to): (NaiveDate, NaiveDate),
    ) -> Result<Evaluated> {
        let mut out = Evaluated::default();
        let mut start = from;
        while start <= to {
            let end = (start + Duration::days(89)).min(to);
            let period = Period {
                start: start - Duration::days(LEAD_DAYS),
                end,
            };
            // the hours only where an intraday monitor runs, as far back as its windows reach
            let lead = cx
                .settings
                .hourly_anomaly
                .window_days
                .max(history::USUAL_DAYS);
            let hours_from = (which != Which::Daily).then(|| start - Duration::days(lead));
            let h = history::read(wh, seller, period, hours_from).await?;
            let mut on = start;
            while on <= end {
                for changed in self.day(cx, &h, on, which, &mut open).await? {
                    out.started
                        .extend(changed.started.iter().map(EpisodeView::from));
                    out.ended
                        .extend(changed.ended.iter().map(EpisodeView::from));
                }
                out.days += 1;
                on += Duration::days(1);
            }
            start = end + Duration::days(1);
        }
        Ok(out)
    }

    /// The ad budget of each month forecast state holds for the merchant (cents).
    async fn budgets(&self, tenant: &TenantId, seller: &Seller) -> Result<HashMap<String, i64>> {
        let st = StateStore {
            store: self.store.clone(),
            tenant: tenant.clone(),
        };
        let scope = format!("src:{}:{}", tenant.as_str(), seller.id);
        let rows = crate::forecasting::state::month_rows(&st, &scope).await?;
        Ok(rows
            .into_iter()
            .filter_map(|(month, row)| {
                let b = &row.doc["adBudget"];
                match (b["mode"].as_str(), b["value"].as_f64()) {
                    (Some("replace"), Some(v)) if v > 0.0 => {
                        Some((month, (v * 100.0).round() as i64))
                    }
                    _ => None,
                }
            })
            .collect())
    }

    /// Every monitor of `which` on day `on`; each one whose state could change is applied.
    async fn day(
        &self,
        cx: &Context<'_>,
        h: &MonitorHistory,
        on: NaiveDate,
        which: Which,
        open: &mut BTreeSet<(String, String)>,
    ) -> Result<Vec<Changed>> {
        let s = cx.settings;
        let month = format!("{:04}-{:02}", on.year(), on.month());
        let mut out = Vec::new();
        for &monitor in Monitor::ALL.iter().filter(|m| which.runs(**m)) {
            let alerts = match monitor {
                Monitor::Stockout if s.stockout.enabled => rules::stockouts(h, on, s),
                Monitor::LowCover if s.low_cover.enabled => rules::low_cover(h, on, s),
                Monitor::OutOfBudget if s.out_of_budget.enabled => rules::out_of_budget(h, on, s),
                Monitor::OutOfBudgetByHour if s.out_of_budget_by_hour.enabled => {
                    rules::out_of_budget_by_hour(h, on, s)
                }
                Monitor::SpendOffPlan if s.spend_off_plan.enabled => {
                    rules::spend_off_plan(h, on, cx.budgets.get(&month).copied(), s)
                }
                Monitor::SpendPaceByHour if s.spend_pace_by_hour.enabled => {
                    rules::spend_pace_by_hour(h, on, cx.budgets.get(&month).copied(), s)
                }
                Monitor::Anomaly if s.anomaly.enabled => rules::anomalies(h, on, s),
                Monitor::HourlyAnomaly if s.hourly_anomaly.enabled => {
                    rules::hourly_anomalies(h, on, s)
                }
                _ => Vec::new(),
            };
            let name = monitor.as_str();
            let any_open = open.iter().any(|(m, _)| m == name);
            if alerts.is_empty() && !any_open {
                continue;
            }
            let e = Evaluation {
                monitor: name.to_owned(),
                prefix: format!("{}:", h.seller),
                on: on.to_string(),
                firing: alerts
                    .iter()
                    .map(|a| firing(cx, h, monitor, on, a))
                    .collect(),
                ended,
            };
            let changed = self.store.monitors().apply(cx.tenant, e).await?;
            for e in &changed.started {
                open.insert((e.monitor.clone(), e.subject.clone()));
            }
            for e in &changed.ended {
                open.remove(&(e.monitor.clone(), e.subject.clone()));
            }
            out.push(changed);
        }
        Ok(out)
    }

    /// Queues an evaluation of `tenant`'s monitors (one merchant's, or every one's), unless one
    /// is already waiting.
    pub async fn queue(&self, tenant: &TenantId, seller: Option<i64>) -> Result<()> {
        MonitorRun { seller_id: seller }
            .enqueue_once(&self.store, tenant)
            .await
            .map(drop)
    }
}

/// The slugs of the brands an alert is about: its own, or (an account-wide alert) every
/// brand the merchant sells.
fn brands(cx: &Context<'_>, h: &MonitorHistory, a: &Alert) -> Vec<String> {
    let names: BTreeSet<&String> = match &a.brand {
        Some(b) => [b].into_iter().collect(),
        None => h.item_brand.values().collect(),
    };
    names
        .into_iter()
        .filter_map(|n| cx.slugs.get(n).cloned())
        .collect()
}

/// An alert as its episode's start: the event and the timeline entries.
fn firing(
    cx: &Context<'_>,
    h: &MonitorHistory,
    monitor: Monitor,
    on: NaiveDate,
    a: &Alert,
) -> Firing {
    let slugs = brands(cx, h, a);
    let mut evidence = a.evidence.clone();
    evidence["summary"] = a.summary.clone().into();
    evidence["brands"] = json!(slugs);
    let (kind, name) = (monitor.event(), monitor.as_str());
    let event = NewEvent::of(&MonitorTold {
        kind,
        subject: identity(&evidence),
        data: EpisodeData::Started {
            started_on: on.to_string(),
            summary: a.summary.clone(),
            evidence: evidence.clone(),
        },
    })
    .once(format!("monitor:{name}:{}:{on}:started", a.subject));
    let timeline = slugs
        .iter()
        .map(|slug| entry(kind, slug, on, on, None, &a.summary, "started", &evidence))
        .collect();
    Firing {
        subject: a.subject.clone(),
        evidence,
        started: Told { event, timeline },
    }
}

/// The ids an alert is about (its evidence's identifying fields).
fn identity(evidence: &Value) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for k in ["sellerId", "asin", "campaignId", "metric", "month"] {
        if let Some(v) = evidence.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    out
}

/// An episode's end: the first day its subject no longer fires.
fn ended(row: &EpisodeRow, on: &str) -> Result<Told> {
    let kind = Monitor::parse(&row.monitor)?.event();
    let summary = format!(
        "ended: {}",
        row.evidence["summary"].as_str().unwrap_or_default()
    );
    let day: NaiveDate = on.parse().unwrap_or_default();
    let started: NaiveDate = row.started_on.parse().unwrap_or_default();
    let event = NewEvent::of(&MonitorTold {
        kind,
        subject: identity(&row.evidence),
        data: EpisodeData::Ended {
            started_on: row.started_on.clone(),
            ended_on: on.to_owned(),
            last_seen_on: row.last_seen_on.clone(),
            summary: summary.clone(),
        },
    })
    .once(format!(
        "monitor:{}:{}:{}:ended",
        row.monitor, row.subject, row.started_on
    ));
    let timeline = row.evidence["brands"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|slug| {
            entry(
                kind,
                slug,
                day,
                started,
                Some(day),
                &summary,
                "ended",
                &row.evidence,
            )
        })
        .collect();
    Ok(Told { event, timeline })
}

#[allow(clippy::too_many_arguments)]
fn entry(
    kind: &EventType,
    slug: &str,
    on: NaiveDate,
    starts: NaiveDate,
    ends: Option<NaiveDate>,
    summary: &str,
    episode: &str,
    evidence: &Value,
) -> pp_store::brand::NewEvent {
    pp_store::brand::NewEvent {
        brand: slug.to_owned(),
        kind: kind.name.to_owned(),
        occurred_on: on.to_string(),
        starts_on: Some(starts.to_string()),
        ends_on: ends.map(|d| d.to_string()),
        source: "monitor".into(),
        note: Some(summary.to_owned()),
        payload: json!({ "episode": episode, "evidence": evidence }),
        ..Default::default()
    }
}

/// The `monitor_run` job: evaluates the tenant's monitors (one merchant's, when the job names
/// one) as of the data's last day (the intraday ones as of the stream's).
pub struct MonitorSteps(pub Monitors);

impl Steps for MonitorSteps {
    type Job = MonitorRun;

    fn step<'a>(&'a self, input: MonitorRun, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            let run = async {
                let tenant = TenantId::parse(&job.tenant)?;
                self.0.evaluate(&tenant, input.seller_id).await
            };
            (outcome(run.await, job), Vec::new())
        })
    }
}

/// The `monitor_intraday` job: evaluates one merchant's intraday monitors on the stream's
/// latest day.
pub struct IntradaySteps(pub Monitors);

impl Steps for IntradaySteps {
    type Job = MonitorIntraday;

    fn step<'a>(&'a self, input: MonitorIntraday, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            let run = async {
                let tenant = TenantId::parse(&job.tenant)?;
                self.0.evaluate_intraday(&tenant, input.seller_id).await
            };
            (outcome(run.await, job), Vec::new())
        })
    }
}

/// A monitor job's outcome: done, tried again in a minute, or failed with the envelope.
fn outcome(run: Result<Evaluated>, job: &Job) -> Outcome {
    match run {
        Ok(e) => Outcome::Succeeded {
            state: json!({ "days": e.days, "started": e.started.len(), "ended": e.ended.len() }),
            done: 1,
        },
        Err(e) if e.retryable() => Outcome::Continue {
            state: job.state.clone(),
            done: 0,
            run_after: pp_store::jobs::now_ms() + 60_000,
        },
        Err(e) => Outcome::Failed {
            state: job.state.clone(),
            error: e.api_envelope(None),
        },
    }
}

/// The monitors' job kinds.
pub fn job_handlers(m: &Monitors) -> Vec<Arc<dyn Handler>> {
    vec![
        pp_store::jobs::handler(MonitorSteps(m.clone())),
        pp_store::jobs::handler(IntradaySteps(m.clone())),
    ]
}

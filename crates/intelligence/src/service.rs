//! `Intelligence`, the one interface every front door uses: the catalog, a run (answered while
//! the caller waits, or queued as a job row with `async: true`), a run's status and its result,
//! and the job step that computes a queued run. Before anything computes, a run is checked in
//! this order: the scope (`intelligence:read`), the request id and its parameters
//! (`bad_params`), the merchant (`merchant_not_resolved`), the account's enrollment
//! (`not_enrolled`), the data the periods need (`no_data_for_period`) and, for a synchronous
//! retail-backed run, the account's size (`account_too_large_use_async`). Computing takes a
//! slot on each account in the state store (`busy` when an account already holds two).

use std::sync::Arc;
use std::time::{Duration, Instant};

use pp_core::events::payloads::{IntelligenceRunData, IntelligenceRunFinished, RunSubject};
use pp_core::{Error, Kind, Principal, Result, Scope as Grant, TenantId};
use pp_store::Store;
use pp_store::events::NewEvent;
use pp_store::intelligence::{Caps, NewRun, Refusal, RunRow, RunStatus};
use pp_store::jobs::{BackgroundJob, Handler, Item, Job, Outcome, StepFuture, Steps};
use pp_warehouse::Warehouses;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::data::{self, Wh};
use crate::engines::Input;
use crate::forecasting::publish::{Publication, Withdrawal};
use crate::params::{Grain, Params, Period};
use crate::registry::{self, Request, Service, Source};
use crate::scope::{self, Scope};

/// The job kind of an asynchronous run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntelligenceRun {
    pub run_id: String,
    pub request_id: String,
    /// The first account the run reads (the pool shares workers fairly by it); kept in the
    /// job row's own column, not in its input.
    #[serde(skip)]
    pub merchant: Option<String>,
}

impl BackgroundJob for IntelligenceRun {
    const KIND: &'static str = "intelligence_run";

    fn merchant(&self) -> Option<String> {
        self.merchant.clone()
    }
}

const SCOPES: &[Grant] = &[Grant::IntelligenceRead];

/// How runs are bounded.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The most item-days (items in the scope × days its periods read) a synchronous
    /// retail-backed run may cover; more answers `account_too_large_use_async`.
    pub sync_item_days: i64,
    /// Computing runs per account and in all, and how long a slot holds.
    pub per_account: i64,
    pub total: i64,
    /// How long a synchronous run may compute.
    pub sync_deadline: Duration,
    /// How long an asynchronous run may compute.
    pub async_deadline: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            sync_item_days: 400_000,
            per_account: 2,
            total: 16,
            sync_deadline: Duration::from_secs(60),
            async_deadline: Duration::from_secs(600),
        }
    }
}

impl Settings {
    fn caps(&self, deadline: Duration) -> Caps {
        Caps {
            per_account: self.per_account,
            total: self.total,
            lease_ms: (deadline + Duration::from_secs(30)).as_millis() as i64,
        }
    }
}

/// The body of `POST /api/intelligence/run` and the arguments of `intelligence_run`, as sent;
/// the door reads it into a [`RunRequest`] ([`RunRequest::read`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunBody {
    /// The request id (`INS-OPS-BRIDGE-01`).
    pub id: String,
    /// The merchant and the period(s).
    #[serde(default = "empty")]
    pub params: Value,
    /// Adds "What We Know" statements.
    #[serde(default)]
    pub evidence: bool,
    /// Queues the run as a job and answers its id at once.
    #[serde(default, rename = "async")]
    pub run_async: bool,
}

fn empty() -> Value {
    Value::Object(Map::new())
}

/// One run, read at the door: the catalogued request it names and its parameters, checked
/// against what that request takes (`bad_params` for a field it does not take, a missing
/// required one, a malformed date or period).
#[derive(Clone)]
pub struct RunRequest {
    def: &'static Request,
    params: Params,
    /// The parameters as sent, recorded with the run.
    sent: Value,
    evidence: bool,
    run_async: bool,
}

impl std::fmt::Debug for RunRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunRequest")
            .field("id", &self.def.id)
            .field("params", &self.params)
            .field("evidence", &self.evidence)
            .field("run_async", &self.run_async)
            .finish()
    }
}

impl RunRequest {
    /// Reads `body`: the request id must be in the catalog, and its parameters what that
    /// request takes.
    pub fn read(body: RunBody) -> Result<Self> {
        let def = registry::find(&body.id)?;
        let params = Params::read(&body.params, def.accepts, def.required)?;
        if def.service == Service::Plan && body.run_async {
            return Err(Error::new(
                Kind::BadParams,
                format!(
                    "{} is answered while you wait: send it without async",
                    def.id
                ),
            ));
        }
        Ok(Self {
            def,
            params,
            sent: body.params,
            evidence: body.evidence,
            run_async: body.run_async,
        })
    }
}

/// A run as it stands: what was asked, how it ran, and once it finished, its stored answer
/// (the versions, the merchant, the result, its limitations and evidence) or its error.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    pub run_id: String,
    /// The request id.
    pub id: String,
    /// The request's version.
    pub version: String,
    pub status: RunStatus,
    /// `sync` or `async`.
    pub mode: String,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_ms: Option<i64>,
    /// The finished run's answer, member by member as it was stored: `contentRevision`,
    /// `service`, `engineVersion`, `evidenceVersion`, `merchant`, `result` (each request's
    /// own document, described in the catalog), `limitations` and, when asked, `evidence`.
    #[serde(flatten)]
    pub answer: Map<String, Value>,
    /// How a failed run failed (the error envelope).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// While the run is queued or computing: when to look again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_after_ms: Option<u64>,
}

/// `POST /api/app-state/forecasting/publish`: the merchant (and sub-brand) whose forecast is
/// published, and how. Serialized, it is the `params` of an `FCT-BASELINE-01` run.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PublishRequest {
    pub seller_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_key: Option<String>,
    /// Months published (default 12, at most 24).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<u64>,
    /// `ads_only` or `ads_plus_dsp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_basis: Option<String>,
}

/// `POST /api/app-state/forecasting/withdraw`: the merchant (and sub-brand) whose published
/// forecast is withdrawn, and why. Serialized without `reason`, it is the `params` of an
/// `FCT-BASELINE-01` run.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WithdrawRequest {
    pub seller_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_key: Option<String>,
    /// One line, up to 500 characters.
    #[serde(default, skip_serializing)]
    pub reason: Option<String>,
}

/// A run id (`run_` and 24 hex digits).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct RunId(String);

impl RunId {
    pub fn parse(s: &str) -> Result<Self> {
        let ok =
            s.len() == 28 && s.starts_with("run_") && s[4..].bytes().all(|b| b.is_ascii_hexdigit());
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(Error::new(
                Kind::NotFound,
                format!(
                    "no intelligence run '{}'",
                    s.chars().take(40).collect::<String>()
                ),
            ))
        }
    }
}

impl TryFrom<String> for RunId {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        Self::parse(&s)
    }
}

/// The catalog.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    pub engine_version: &'static str,
    pub evidence_version: &'static str,
    /// The services and their id prefixes.
    pub services: &'static [registry::ServiceEntry],
    pub requests: Vec<Value>,
    pub planned: Vec<Value>,
}

/// The intelligence service.
#[derive(Clone)]
pub struct Intelligence {
    store: Store,
    warehouses: Warehouses,
    settings: Settings,
    wake: Arc<Notify>,
    /// The marketplace a plan request's dry runs go through.
    market: Option<pp_marketplace::Marketplace>,
}

fn run_row(r: &RunRow) -> RunView {
    let answer = match &r.result {
        Some(Value::Object(body)) => body.clone(),
        _ => Map::new(),
    };
    RunView {
        run_id: r.id.clone(),
        id: r.request_id.clone(),
        version: r.request_version.clone(),
        status: r.status,
        mode: r.mode.clone(),
        created_at: pp_store::rfc3339_ms(r.created_ms),
        finished_at: r.finished_ms.map(pp_store::rfc3339_ms),
        compute_ms: r.compute_ms,
        answer,
        error: r.error.clone(),
        poll_after_ms: (!r.status.terminal()).then_some(1000),
    }
}

impl Intelligence {
    /// The service over `store` and the tenants' `warehouses`; `wake` rouses the job workers.
    pub fn new(store: Store, warehouses: Warehouses, wake: Arc<Notify>) -> Self {
        Self {
            store,
            warehouses,
            settings: Settings::default(),
            wake,
            market: None,
        }
    }

    /// The same service making plan requests' dry runs through `market`.
    pub fn with_marketplace(mut self, market: pp_marketplace::Marketplace) -> Self {
        self.market = Some(market);
        self
    }

    /// The same service bounded by `settings`.
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Every request with its parameters' schema.
    pub fn catalog(&self, p: &Principal) -> Result<Catalog> {
        p.require(SCOPES)?;
        Ok(Catalog {
            engine_version: crate::ENGINE_VERSION,
            evidence_version: crate::EVIDENCE_VERSION,
            services: registry::SERVICES,
            requests: registry::REQUESTS.iter().map(registry::entry).collect(),
            planned: vec![
                json!({ "id": "plan solve", "note": "a joint solve of budgets, bids and prices is stated to join the plan service later; not available" }),
            ],
        })
    }

    /// Checks a run before it computes, and gives the engine its input.
    async fn prepare(
        &self,
        wh: &Wh,
        tenant: &TenantId,
        def: &Request,
        params: Params,
        sync: bool,
    ) -> Result<Input> {
        let scope = scope::resolve(wh, &params.merchant).await?;
        self.enrolled(tenant, &scope).await?;
        let mut table = registry::source_table(def.source, &scope);
        let hours = def.source == Source::Hours;
        let mut data =
            match hours && !pp_warehouse::directory::has_table(wh.engine.as_ref(), table).await? {
                true => None,
                false => data::data_range(wh, &scope, table).await?,
            };
        if hours && data.is_none() {
            // no streamed hours: the campaign report's days, and the answer says why it is empty
            table = data::ADS_TABLE;
            data = data::data_range(wh, &scope, table).await?;
        }
        let data = data.ok_or_else(|| {
            Error::new(
                Kind::NoDataForPeriod,
                format!("the warehouse holds no {table} rows for this merchant"),
            )
        })?;
        let (period, compare) = periods(def, &params, data)?;
        if sync && def.retail {
            let days = match (&period, &compare, &params.month) {
                (Some(p), Some(c), _) => p.days() + c.days(),
                (Some(p), None, _) => p.days(),
                (None, _, Some(m)) => 3 * m.period().days(),
                _ => 0,
            };
            self.small_enough(data::item_count(wh, &scope).await?, days)?;
        }
        Ok(Input {
            scope,
            period,
            compare_period: compare,
            month: params.month,
            grain: params.grain.unwrap_or(Grain::Campaign),
            top: params.top,
            data,
            forecast: crate::engines::ForecastChoices {
                scope_key: params.scope_key,
                measure: params.measure,
                spend_basis: params.spend_basis,
                horizon: params.horizon,
            },
            state: crate::engines::StateStore {
                store: self.store.clone(),
                tenant: tenant.clone(),
            },
            change: params.change,
            pacing: params.pacing,
            caller: None,
            profit: params.profit,
        })
    }

    /// `not_enrolled` when intelligence is switched off for any of the scope's accounts.
    async fn enrolled(&self, tenant: &TenantId, scope: &Scope) -> Result<()> {
        let off = self.store.intelligence().opt_outs(tenant).await?;
        let Some(o) = off
            .iter()
            .find(|o| scope.sellers.iter().any(|s| s.id == o.seller_id))
        else {
            return Ok(());
        };
        let mut e = Error::new(
            Kind::NotEnrolled,
            format!("intelligence is switched off for seller {}", o.seller_id),
        )
        .with_fix("Ask a tenant administrator to switch it back on (admin intelligence on).");
        if let Some(r) = &o.reason {
            e = e.with_field("reason", r.clone());
        }
        Err(e)
    }

    /// `account_too_large_use_async` when `items` × `days` is more than a synchronous run covers.
    fn small_enough(&self, items: i64, days: i64) -> Result<()> {
        let (item_days, limit) = (items * days, self.settings.sync_item_days);
        if item_days <= limit {
            return Ok(());
        }
        Err(Error::new(
            Kind::AccountTooLargeUseAsync,
            format!("{items} items over {days} days is {item_days} item-days; a synchronous answer covers {limit}"),
        )
        .with_field("itemDays", item_days)
        .with_field("limit", limit)
        .with_fix("Send the same request with async: true, then poll GET /api/intelligence/runs/<runId> (intelligence_poll)."))
    }

    /// Runs the engine under `deadline`, stores how the run ended (and frees its slots), and
    /// answers the stored body.
    async fn compute(
        &self,
        run_id: &str,
        wh: &Wh,
        def: &Request,
        input: &Input,
        evidence: bool,
        deadline: Duration,
    ) -> Result<Value> {
        let started = Instant::now();
        let outcome = tokio::time::timeout(deadline, (def.engine.run)(wh, input))
            .await
            .map_err(|_| {
                Error::new(
                    Kind::Unavailable,
                    format!("the run did not finish within {} s", deadline.as_secs()),
                )
                .with_fix("Retry with async: true.")
            })
            .and_then(|answer| {
                let answer = answer?;
                let mut body = json!({
                    "contentRevision": def.content_revision,
                    "service": def.service,
                    "engineVersion": crate::ENGINE_VERSION,
                    "evidenceVersion": crate::EVIDENCE_VERSION,
                    "merchant": input.scope.view(),
                    "result": answer.result,
                    "limitations": answer.limitations,
                });
                if evidence {
                    body["evidence"] =
                        serde_json::to_value(&answer.evidence).map_err(Error::internal_from)?;
                }
                Ok(body)
            });
        self.finish(run_id, started, &outcome).await?;
        outcome
    }

    /// Records how run `id` ended, with the time since `started`.
    async fn finish(&self, id: &str, started: Instant, outcome: &Result<Value>) -> Result<()> {
        let ms = started.elapsed().as_millis() as i64;
        let runs = self.store.intelligence();
        match outcome {
            Ok(body) => runs.finish(id, Ok(body), ms).await?,
            Err(e) => runs.finish(id, Err(&e.api_envelope(None)), ms).await?,
        };
        Ok(())
    }

    /// Runs (or queues) one request for `p`; the run as it stands.
    pub async fn run(&self, p: &Principal, req: RunRequest) -> Result<RunView> {
        p.require(SCOPES)?;
        let def = req.def;
        if def.service == Service::Plan {
            // a plan's answer is advertising write dry runs, made as the caller
            p.require(&[Grant::AdsRead, Grant::AdsWrite])?;
        }
        let wh = Wh::new(self.warehouses.of(p).await?, &self.warehouses.limits);
        let mut input = self
            .prepare(&wh, &p.tenant, def, req.params, !req.run_async)
            .await?;
        if def.service == Service::Plan {
            let market = self.market.clone().ok_or_else(|| {
                Error::new(
                    Kind::Unavailable,
                    "this gateway has no marketplace to plan writes through",
                )
            })?;
            input.caller = Some(crate::plan::Caller {
                principal: p.clone(),
                market,
            });
        }
        let id = pp_store::random_id("run_", 12)?;
        let accounts = input.scope.accounts();
        let runs = self.store.intelligence();
        runs.insert(&NewRun {
            id: id.clone(),
            tenant: p.tenant.as_str().to_owned(),
            request_id: def.id.to_owned(),
            request_version: def.version.to_owned(),
            accounts: accounts.clone(),
            params: json!({ "params": req.sent, "evidence": req.evidence }),
            mode: if req.run_async { "async" } else { "sync" }.to_owned(),
            actor: p.actor.as_str().to_owned(),
            credential_id: p.credential_id.clone(),
            surface: p.surface.as_wire(),
        })
        .await?;
        if req.run_async {
            let job = IntelligenceRun {
                run_id: id.clone(),
                request_id: def.id.to_owned(),
                merchant: accounts.first().cloned(),
            }
            .enqueue(&self.store, &p.tenant)
            .await?;
            runs.set_job(&id, &job).await?;
            self.wake.notify_waiters();
        } else {
            let caps = self.settings.caps(self.settings.sync_deadline);
            if let Some(refusal) = runs.start(&p.tenant, &id, &accounts, caps).await? {
                runs.discard(&id).await?;
                return Err(busy(refusal, self.settings.per_account));
            }
            let deadline = self.settings.sync_deadline;
            self.compute(&id, &wh, def, &input, req.evidence, deadline)
                .await?;
        }
        Ok(run_row(&self.stored(&p.tenant, &id).await?))
    }

    async fn stored(&self, tenant: &TenantId, id: &str) -> Result<RunRow> {
        self.store
            .intelligence()
            .get(tenant, id)
            .await?
            .ok_or_else(|| {
                Error::new(
                    Kind::NotFound,
                    format!("no intelligence run '{id}' in this account"),
                )
            })
    }

    /// A run as it stands (waiting up to `wait` for a run still computing to finish).
    pub async fn poll(&self, p: &Principal, id: &RunId, wait: Duration) -> Result<RunView> {
        p.require(SCOPES)?;
        let until = Instant::now() + wait.min(Duration::from_secs(25));
        loop {
            let row = self.stored(&p.tenant, &id.0).await?;
            if row.status.terminal() || Instant::now() >= until {
                return Ok(run_row(&row));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// A finished run's answer; `run_not_ready` while it is queued or computing.
    pub async fn result(&self, p: &Principal, id: &RunId) -> Result<RunView> {
        p.require(SCOPES)?;
        let row = self.stored(&p.tenant, &id.0).await?;
        if row.status.terminal() {
            return Ok(run_row(&row));
        }
        Err(Error::new(
            Kind::RunNotReady,
            format!("run {} is {}", id.0, row.status.as_str()),
        )
        .with_field("status", row.status.as_str()))
    }

    /// The checked input of the forecast scope `req` names (one merchant, or its sub-brand),
    /// and its forecast state scope id.
    async fn forecast_scope(
        &self,
        p: &Principal,
        req: &impl Serialize,
    ) -> Result<(Wh, Input, String)> {
        p.require(&[Grant::AppstateWrite])?;
        let def = registry::find("FCT-BASELINE-01")?;
        let wh = Wh::new(self.warehouses.of(p).await?, &self.warehouses.limits);
        let params = serde_json::to_value(req).map_err(Error::internal_from)?;
        let params = Params::read(&params, def.accepts, def.required)?;
        let input = self.prepare(&wh, &p.tenant, def, params, false).await?;
        let id = crate::forecasting::state::scope_id(&input)
            .ok_or_else(|| Error::internal("a sellerId scope has a forecast state scope id"))?;
        Ok((wh, input, id))
    }

    /// Publishes the scope's forecast (revenue and units, computed now) as `p`.
    pub async fn publish(&self, p: &Principal, req: PublishRequest) -> Result<Publication> {
        let (wh, input, id) = self.forecast_scope(p, &req).await?;
        let (h, _) = crate::forecasting::load(&wh, &input).await?;
        crate::forecasting::publish::publish(
            &input.state,
            &id,
            p.actor.as_str(),
            &h,
            input.forecast.horizon,
            input.forecast.spend_basis,
        )
        .await
    }

    /// Withdraws the scope's published forecast as `p`, with a reason.
    pub async fn withdraw(&self, p: &Principal, req: WithdrawRequest) -> Result<Withdrawal> {
        let reason = req.reason.clone().map(Value::String);
        let reason = pp_core::text::one_line("reason", reason.as_ref(), 500)?
            .filter(|r| !r.trim().is_empty())
            .ok_or_else(|| {
                Error::new(
                    Kind::BadParams,
                    "reason is required: one line, up to 500 characters",
                )
            })?;
        let (_, input, id) = self.forecast_scope(p, &req).await?;
        crate::forecasting::publish::withdraw(&input.state, &id, p.actor.as_str(), &reason).await
    }

    /// The job kinds this service owns (asynchronous runs, monitor evaluations), for the worker
    /// pool's registry.
    /// A run computes in one step, under the run's own deadline (longer than the pool's).
    pub fn job_handlers(&self) -> Vec<Arc<dyn Handler>> {
        let mut kinds: Vec<Arc<dyn Handler>> =
            vec![pp_store::jobs::handler(RunSteps(self.clone()))];
        kinds.extend(crate::monitors::job_handlers(&self.monitors()));
        kinds
    }

    /// `/v1/profit`'s daily read over this service's store and warehouses.
    pub fn profit_daily(&self) -> crate::profit::daily::ProfitDaily {
        crate::profit::daily::ProfitDaily::new(self.store.clone(), self.warehouses.clone())
    }

    /// The monitors over this service's store and warehouses.
    pub fn monitors(&self) -> crate::monitors::Monitors {
        crate::monitors::Monitors::new(self.store.clone(), self.warehouses.clone())
    }

    /// One step of an asynchronous run's job: compute it once it holds its slots.
    async fn step(&self, input: IntelligenceRun, job: &Job) -> (Outcome, Vec<Item>) {
        match self.step_inner(&input.run_id, job).await {
            Ok(outcome) => (outcome, Vec::new()),
            Err(e) => {
                if e.kind == Kind::Unknown {
                    tracing::error!(job = %job.id, error = %e.chain(), "an intelligence run failed");
                }
                (
                    Outcome::Failed {
                        state: job.state.clone(),
                        error: e.api_envelope(None),
                    },
                    Vec::new(),
                )
            }
        }
    }

    async fn step_inner(&self, id: &str, job: &Job) -> Result<Outcome> {
        let runs = self.store.intelligence();
        let row = runs
            .by_id(id)
            .await?
            .ok_or_else(|| Error::internal(format!("job {} names no run {id}", job.id)))?;
        let state = json!({ "runId": id });
        if row.status.terminal() {
            return Ok(Outcome::Succeeded { state, done: 1 });
        }
        let tenant = TenantId::parse(&row.tenant)?;
        let caps = self.settings.caps(self.settings.async_deadline);
        if runs
            .start(&tenant, id, &row.accounts, caps)
            .await?
            .is_some()
        {
            // the account is at its cap: try again shortly, holding nothing
            return Ok(Outcome::Continue {
                state: json!({ "runId": id, "waiting": "the account already holds its computing runs" }),
                done: 0,
                run_after: pp_store::jobs::now_ms() + 2_000,
            });
        }
        // the run is checked again: the account may have been switched off, or its data moved
        let started = Instant::now();
        let prepared = async {
            let def = registry::find(&row.request_id)?;
            let engine = self.warehouses.of_tenant(&tenant).await?;
            let wh = Wh::new(engine, &self.warehouses.limits);
            let params = Params::read(&row.params["params"], def.accepts, def.required)?;
            let input = self.prepare(&wh, &tenant, def, params, false).await?;
            Ok((def, wh, input))
        }
        .await;
        let outcome = match prepared {
            Ok((def, wh, input)) => {
                let evidence = row.params["evidence"].as_bool().unwrap_or(false);
                let deadline = self.settings.async_deadline;
                self.compute(id, &wh, def, &input, evidence, deadline).await
            }
            Err(e) => {
                let failed = Err(e);
                self.finish(id, started, &failed).await?;
                failed
            }
        };
        Ok(match outcome {
            Ok(_) => Outcome::Succeeded { state, done: 1 },
            Err(e) => Outcome::Failed {
                state,
                error: e.api_envelope(None),
            },
        })
    }
}

/// The request's periods, defaults filled (`comparePeriod`: the same days just before;
/// lost sales: the last 365 days of data), each checked against the days the data holds.
fn periods(
    def: &Request,
    params: &Params,
    data: Period,
) -> Result<(Option<Period>, Option<Period>)> {
    let mut period = params.period;
    if def.source == Source::Inventory && period.is_none() {
        period = Some(Period {
            start: (data.end - chrono::Duration::days(364)).max(data.start),
            end: data.end,
        });
    }
    let compare = match &period {
        Some(p) if def.accepts.contains(&"comparePeriod") => {
            Some(params.compare_period.unwrap_or_else(|| p.previous()))
        }
        _ => None,
    };
    for (name, p) in [("period", &period), ("comparePeriod", &compare)] {
        if let Some(p) = p
            && (p.start < data.start || p.end > data.end)
        {
            return Err(outside_data(format!("{name} {}", p.label()), data));
        }
    }
    if let Some(m) = &params.month
        && (m.first() < data.start || m.first() > data.end)
    {
        return Err(outside_data(format!("month {m}"), data));
    }
    Ok((period, compare))
}

/// `no_data_for_period` for `what`, with the days the data holds.
fn outside_data(what: String, data: Period) -> Error {
    Error::new(
        Kind::NoDataForPeriod,
        format!(
            "{what} is outside the data ({} to {})",
            data.start, data.end
        ),
    )
    .with_field("dataFrom", data.start.to_string())
    .with_field("dataThrough", data.end.to_string())
}

fn busy(r: Refusal, per_account: i64) -> Error {
    let msg = match r {
        Refusal::Account(a) => {
            format!("{a} already holds {per_account} computing intelligence requests")
        }
        Refusal::Service => {
            "the service is at its cap of computing intelligence requests".to_owned()
        }
    };
    Error::new(Kind::Busy, msg)
        .with_fix("Retry in a few seconds, or send async: true to queue the run.")
}

/// The asynchronous run, as the worker pool runs it.
struct RunSteps(Intelligence);

impl Steps for RunSteps {
    type Job = IntelligenceRun;

    fn deadline(&self) -> Option<Duration> {
        Some(self.0.settings.async_deadline + Duration::from_secs(5))
    }

    fn step<'a>(&'a self, input: IntelligenceRun, job: &'a Job) -> StepFuture<'a> {
        Box::pin(self.0.step(input, job))
    }

    /// An asynchronous run finished: its id, request and status (poll it for the answer).
    fn ended(&self, input: &IntelligenceRun, job: &Job, outcome: &Outcome) -> Option<NewEvent> {
        let (status, error) = match outcome {
            Outcome::Failed { error, .. } => ("failed", Some(error.clone())),
            _ => ("complete", None),
        };
        Some(
            NewEvent::of(&IntelligenceRunFinished {
                subject: RunSubject {
                    run_id: input.run_id.clone(),
                    merchant: job.merchant.clone(),
                },
                data: IntelligenceRunData {
                    request_id: input.request_id.clone(),
                    status: status.to_owned(),
                    error,
                },
            })
            .once(format!("job:{}:ended", job.id)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run queued by an earlier release reads as [`IntelligenceRun`], and one queued now is
    /// what that release wrote (its merchant is the row's column, not its input).
    #[test]
    fn runs_queued_before_kinds_were_types_still_read() {
        let old = json!({ "runId": "run_1", "requestId": "sales_bridge" });
        let run: IntelligenceRun = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(
            (run.run_id.as_str(), run.merchant.as_deref()),
            ("run_1", None)
        );
        assert_eq!(serde_json::to_value(&run).unwrap(), old);
    }
}

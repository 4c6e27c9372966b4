//! The job step of one (merchant, dataset): plan a run, ask the dataset's reader for a slice,
//! look at its reports until they are done, and load its rows in one transaction that
//! replaces the slice (with the slices asked for ahead whose reports are done too); then the
//! next slice, and once the run reaches yesterday, wait for the
//! next day. Every step is safe to repeat: the checkpoint names the run and the slice's
//! reports, a create is keyed by slice and run (a repeated create gets the first one's
//! report), and a repeated load replaces the same rows. A lapsed connection pauses the dataset
//! until a reconnect wakes it. What a dataset asks for and how its documents become rows is
//! its reader's (`readers/`); nothing here names a dataset.

use chrono::{NaiveDate, Timelike};
use pp_core::events::payloads::{
    SyncFailed, SyncFailedData, SyncFinished, SyncFinishedData, SyncSubject,
};
use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_store::events::NewEvent;
use pp_store::jobs::{BackgroundJob, Job, Lane, Outcome, StepFuture, Steps, now_ms};
use pp_store::monitors::MonitorRun;
use pp_store::sync::{AdoptJob, Progress};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::checkpoint::{Checkpoint, RunCk};
use crate::datasets::Dataset;
use crate::plan;
use crate::reader::{Cx, Load, Seller, Started, is_document_gone};
use crate::service::WarehouseSync;

/// The job that syncs one merchant's dataset (its row in `sync_datasets` names it).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncDataset {
    /// The warehouse's `seller.ID`.
    pub seller_id: i64,
    pub dataset: String,
    /// The merchant's token (the job row's own column, not its input).
    #[serde(skip)]
    pub merchant: Option<String>,
}

impl BackgroundJob for SyncDataset {
    const KIND: &'static str = "warehouse_sync";
    /// A backfill is thousands of steps; webhook deliveries and runs a person started go
    /// before them.
    const LANE: Lane = Lane::Background;

    fn merchant(&self) -> Option<String> {
        self.merchant.clone()
    }

    fn total(&self) -> i64 {
        0
    }
}

/// How long a paused dataset waits before it looks at its connection again (a reconnect
/// wakes it sooner).
const PAUSED_MS: i64 = 15 * 60 * 1000;

/// How long one step keeps going while the provider answers at once.
const STEP_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest wait a step sleeps through itself rather than hand the job back.
const MAX_WAIT_IN_STEP: std::time::Duration = std::time::Duration::from_millis(600);

/// How many slices of one dataset the provider may be making at once (the one loaded next
/// and those asked for ahead of it), within what the usage plan lets through.
const IN_FLIGHT: usize = 4;

/// Steps each [`SyncDataset`].
pub(crate) struct DatasetSteps(pub(crate) WarehouseSync);

impl Steps for DatasetSteps {
    type Job = SyncDataset;

    fn deadline(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(120))
    }

    fn step<'a>(&'a self, input: SyncDataset, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            let outcome = match self.step(&input, job).await {
                Ok(o) => o,
                // the store or the warehouse failed: the same step again in a minute
                Err(e) => {
                    tracing::warn!(
                        tenant = job.tenant.as_str(),
                        error = e.message(),
                        cause = %e.chain(),
                        "warehouse sync step failed"
                    );
                    Outcome::Continue {
                        state: job.state.clone(),
                        done: job.done,
                        run_after: now_ms() + 60_000,
                    }
                }
            };
            (outcome, Vec::new())
        })
    }
}

/// Steps each [`AdoptJob`]: adopts the tenant's connected merchants and starts their
/// datasets, once.
pub(crate) struct AdoptSteps(pub(crate) WarehouseSync);

impl Steps for AdoptSteps {
    type Job = AdoptJob;

    fn step<'a>(&'a self, _: AdoptJob, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            let adopted = match TenantId::parse(&job.tenant) {
                Ok(t) => self.0.adopt(&t).await,
                Err(e) => Err(e),
            };
            let outcome = match adopted {
                Ok(added) => Outcome::Succeeded {
                    state: json!({ "sellersAdded": added }),
                    done: added.len() as i64,
                },
                // the provider or the warehouse is not answering: again in a minute
                Err(e) if e.retryable() => Outcome::Continue {
                    state: job.state.clone(),
                    done: 0,
                    run_after: now_ms() + 60_000,
                },
                // a connection this instance does not see yet (made on another instance or
                // by the command line a moment ago): again shortly, for a while
                Err(e) if e.kind == Kind::MerchantNotFound && unseen(job) < UNSEEN_TRIES => {
                    Outcome::Continue {
                        state: json!({ "unseenConnection": unseen(job) + 1, "why": e.message() }),
                        done: 0,
                        run_after: now_ms() + 5_000,
                    }
                }
                Err(e) => Outcome::Failed {
                    state: job.state.clone(),
                    error: e.api_envelope(None),
                },
            };
            (outcome, Vec::new())
        })
    }
}

/// How many times an adopt step tries again, 5 s apart, for a connection it does not see yet
/// (two minutes) before it fails with the reason.
const UNSEEN_TRIES: i64 = 24;

/// The tries an adopt job has made for a connection it did not see.
fn unseen(job: &Job) -> i64 {
    job.state["unseenConnection"].as_i64().unwrap_or(0)
}

/// How many times a run asks again at once for a report whose document was gone, before
/// the dataset fails with the reason (and asks again when it tries again).
const ASK_AGAIN_AT_ONCE: u32 = 3;

/// How many times the run in `ck` asked for a slice's report again.
fn asked_again(ck: &Checkpoint) -> u32 {
    ck.run.as_ref().map_or(0, |r| r.asked_again)
}

/// Drops the slice's report so it is asked for again, under a new key.
fn ask_again(ck: &mut Checkpoint) {
    ck.report = None;
    if let Some(run) = ck.run.as_mut() {
        run.asked_again += 1;
        run.asked_again_ms = Some(now_ms());
    }
}

fn cont(ck: &Checkpoint, run_after: i64) -> Outcome {
    Outcome::Continue {
        state: serde_json::to_value(ck).unwrap_or(Value::Null),
        done: 0,
        run_after,
    }
}

/// The next daily run after now, at `hour` UTC.
pub(crate) fn next_daily(hour: u32) -> i64 {
    let now = chrono::Utc::now();
    let today = now
        .date_naive()
        .and_hms_opt(hour.min(23), 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now);
    let next = if today > now && now.hour() < hour {
        today
    } else {
        today + chrono::Duration::days(1)
    };
    next.timestamp_millis()
}

/// Whether `e` says the merchant's connection lapsed (it must be connected again).
fn lapsed(e: &Error) -> bool {
    matches!(e.kind, Kind::ReauthRequired | Kind::MerchantInactive)
}

/// A load that did not land: conflicts with concurrent loads that outlasted its tries are
/// the warehouse being busy (tried again shortly), anything else an internal fault with its
/// cause kept for the log.
fn load_failed(dataset: &str, table: &str, e: pp_warehouse::managed::LoadError) -> Error {
    let context = format!("loading {dataset} into {table}");
    if e.conflict {
        Error::new(
            Kind::Unavailable,
            format!("{context}: the warehouse was busy with other loads ({e})"),
        )
        .with_retryable(true)
    } else {
        Error::internal_with(context, e)
    }
}

/// Which dataset a step records for: tenant, seller id, dataset name.
type At<'a> = (&'a TenantId, i64, &'a str);

impl DatasetSteps {
    /// One step: finds the dataset, its merchant and its checkpoint, lets the reader find
    /// what it needs once, checks the connection, then drives the run.
    async fn step(&self, input: &SyncDataset, job: &Job) -> Result<Outcome> {
        let sync = &self.0;
        let tenant = TenantId::parse(&job.tenant)?;
        let at = (&tenant, input.seller_id, input.dataset.as_str());
        let gone = |e: Error| Outcome::Failed {
            state: job.state.clone(),
            error: e.api_envelope(None),
        };
        let Some(ds) = sync.datasets.find(&input.dataset) else {
            return Ok(gone(Error::internal(format!(
                "no dataset {}",
                input.dataset
            ))));
        };
        let Some(loader) = sync.loader(&tenant).await? else {
            // the warehouse is no longer managed: nothing more to fill
            return Ok(Outcome::Succeeded {
                state: job.state.clone(),
                done: job.done,
            });
        };
        let mut ck = match Checkpoint::read(&job.state) {
            Ok(ck) => ck,
            Err(e) => return self.failing(at, job.state.clone(), None, e).await,
        };
        let Some(merchant) = self.merchant(&tenant, input.seller_id).await? else {
            let e = Error::not_found(format!("the warehouse has no seller {}", input.seller_id));
            return Ok(gone(e));
        };
        let mut cx = Cx::new(sync, tenant.clone(), ds, merchant, loader);
        cx.set_profile(ck.profile);
        cx.dsp = ck.dsp.clone();
        if let Some(why) = ds.reader.prepare(&mut cx).await? {
            return self.unavailable(at, &ck, why).await;
        }
        (ck.profile, ck.dsp) = (cx.profile, cx.dsp.clone());
        if let Err(e) = cx.feeds().usable(&tenant, &cx.account()).await {
            return match lapsed(&e) {
                true => self.paused(at, &ck, e).await,
                false => Err(e),
            };
        }
        match self.drive(&mut cx, &mut ck).await {
            Ok(o) => Ok(o),
            // the connection lapsed on the way
            Err(e) if lapsed(&e) => self.paused(at, &ck, e).await,
            // the gateway's own pacing (no provider answer behind it) says when the usage
            // plan has a slot: the dataset waits for it, it has not failed
            Err(e) if let Some(wait) = pp_marketplace::triage::held_back(&e) => {
                Ok(cont(&ck, now_ms() + wait.as_millis() as i64))
            }
            Err(e) => {
                if e.kind == Kind::ReportFatal {
                    // the report is dropped, to be asked for again (a new request: the one
                    // that failed would be handed back under the same key)
                    ask_again(&mut ck);
                }
                let state = serde_json::to_value(&ck).map_err(Error::internal_from)?;
                let run = ck.run.as_ref().map(|r| r.started_ms.to_string());
                self.failing(at, state, run, e).await
            }
        }
    }

    /// The merchant of the warehouse's seller `seller_id`, and the seller as its rows carry it.
    async fn merchant(
        &self,
        tenant: &TenantId,
        seller_id: i64,
    ) -> Result<Option<(Merchant, Seller)>> {
        let sellers = self.0.sellers(tenant).await?;
        Ok(sellers.into_iter().find(|s| s.id == seller_id).map(|s| {
            let seller = Seller {
                id: s.id,
                token: s.token.clone(),
                currency: s.currency.clone(),
            };
            (Merchant::from(s), seller)
        }))
    }

    /// Goes on with the run while the provider is quick (reports made in a moment), within a
    /// budget; the checkpoint it ends with covers everything it loaded.
    async fn drive(&self, cx: &mut Cx<'_>, ck: &mut Checkpoint) -> Result<Outcome> {
        let ds = cx.dataset;
        let at = (&cx.tenant.clone(), cx.seller.id, ds.name);
        let began = std::time::Instant::now();
        loop {
            cx.run = ck.run.clone();
            let o = match (&ck.run, &ck.report) {
                // a new run's checkpoint is kept before its first ask: the creates' keys name
                // the run, so a step repeated after a crash must find the same run, or it
                // would ask for its slices again
                (None, _) => return self.plan_run(at, ds, ck).await,
                (Some(run), None) => {
                    let Some(days) = run.next_slice(ds.slice_days) else {
                        // (a run kept with nothing left to read)
                        return self.run_over(at, ds, ck).await;
                    };
                    match ds.reader.start(cx, days).await? {
                        Started::Asked(r) => {
                            ck.report = Some(r);
                            cont(ck, now_ms() + cx.first_look().as_millis() as i64)
                        }
                        Started::Rows(loads) => self.load(cx, days, loads, ck).await?,
                        Started::Wait { note, after } => {
                            let next = now_ms() + after.as_millis() as i64;
                            let p = Progress {
                                note: Some(Some(note)),
                                next_run_ms: Some(next),
                                ..Progress::default()
                            };
                            self.0.store.sync().record(at.0, at.1, at.2, p).await?;
                            cont(ck, next)
                        }
                        Started::Unavailable(why) => {
                            ck.run = None;
                            return self.unavailable(at, ck, why).await;
                        }
                    }
                }
                (Some(_), Some(r)) => {
                    let r = r.clone();
                    self.ask_ahead(cx, ck).await?;
                    match ds.reader.collect(cx, &r).await {
                        // a document the provider no longer has: its report again, at once,
                        // a few times a run (a provider that keeps losing them fails)
                        Err(e) if is_document_gone(&e) && asked_again(ck) < ASK_AGAIN_AT_ONCE => {
                            tracing::info!(
                                dataset = ds.name,
                                error = e.message(),
                                "a slice's report is asked for again"
                            );
                            ask_again(ck);
                            cont(ck, now_ms())
                        }
                        Err(e) => return Err(e),
                        Ok(None) => {
                            let looks = r.looks + 1;
                            if let Some(head) = ck.report.as_mut() {
                                head.looks = looks;
                            }
                            cont(ck, now_ms() + cx.look_after(looks).as_millis() as i64)
                        }
                        Ok(Some(loads)) => {
                            let (days, loads) = self.with_done_ahead(cx, ck, r.days(), loads).await;
                            self.load(cx, days, loads, ck).await?
                        }
                    }
                }
            };
            let Outcome::Continue { run_after, .. } = &o else {
                return Ok(o);
            };
            let wait = (*run_after - now_ms()).max(0) as u64;
            let wait = std::time::Duration::from_millis(wait);
            if wait > MAX_WAIT_IN_STEP || began.elapsed() + wait > STEP_BUDGET {
                return Ok(o);
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// Asks for the run's next slices while the one loaded next is being made, up to
    /// [`IN_FLIGHT`] slices at once, so the provider makes them side by side; they are loaded
    /// in the run's order. Their creates go only while the usage plan has room to spare
    /// (half its burst beyond the live calls' share: a slice asked for in turn, such as
    /// another dataset's first, finds its token first); it stops at the first it has none
    /// for, and at one that is not a report to wait for (its turn decides).
    async fn ask_ahead(&self, cx: &mut Cx<'_>, ck: &mut Checkpoint) -> Result<()> {
        let ds = cx.dataset;
        while ck.ahead.len() + 1 < IN_FLIGHT {
            let (Some(run), Some(head)) = (&ck.run, &ck.report) else {
                return Ok(());
            };
            let last = ck.ahead.last().unwrap_or(head).days();
            let Some(days) = run.after(last, ds.slice_days) else {
                return Ok(());
            };
            cx.ahead = true;
            let asked = ds.reader.start(cx, days).await;
            cx.ahead = false;
            match asked {
                Ok(Started::Asked(r)) => ck.ahead.push(r),
                Ok(_) => return Ok(()),
                Err(e) if pp_marketplace::triage::held_back(&e).is_some() => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The slice just collected (`days`, `loads`) with the slices asked for ahead of it whose
    /// reports are done too, collected in the run's order, so their days load in one
    /// transaction (on a server the commit, not a day's rows, is most of a load's cost): the
    /// days they cover together and their loads. Stops at the first not done yet; one that
    /// fails is left to fail in its turn, as the slice loaded next.
    async fn with_done_ahead(
        &self,
        cx: &mut Cx<'_>,
        ck: &mut Checkpoint,
        (mut from, mut to): (NaiveDate, NaiveDate),
        mut loads: Vec<Load>,
    ) -> ((NaiveDate, NaiveDate), Vec<Load>) {
        while let Some(next) = ck.ahead.first().cloned() {
            match cx.dataset.reader.collect(cx, &next).await {
                Ok(Some(more)) => {
                    loads.extend(more);
                    ck.ahead.remove(0);
                    (from, to) = (from.min(next.from), to.max(next.to));
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::debug!(error = %e.chain(), "a slice asked for ahead waits for its turn");
                    break;
                }
            }
        }
        ((from, to), loads)
    }

    /// Plans the next run from what the warehouse holds (last month first, then older days;
    /// see [`plan::Read::next`]), or waits for tomorrow when it is current and whole.
    async fn plan_run(&self, at: At<'_>, ds: &Dataset, ck: &mut Checkpoint) -> Result<Outcome> {
        match self.next_run(at, ds).await? {
            Some((read, run)) => self.begin(at, ds, ck, &read, run).await,
            None => self.synced(at, ck).await,
        }
    }

    /// The run that comes next for what the warehouse holds of the dataset, with what it was
    /// planned against.
    async fn next_run(&self, at: At<'_>, ds: &Dataset) -> Result<Option<(plan::Read, plan::Run)>> {
        let (tenant, seller_id, _) = at;
        let sync = &self.0;
        let row = sync.store.sync().get(tenant, seller_id, ds.name).await?;
        let day = |d: Option<&String>| d.and_then(|d| d.parse::<NaiveDate>().ok());
        let held = plan::Held {
            data_through: day(row.as_ref().and_then(|r| r.data_through.as_ref())),
            covered_from: day(row.as_ref().and_then(|r| r.covered_from.as_ref())),
            restating_then: day(row.as_ref().and_then(|r| r.restating_from.as_ref())),
        };
        let settings = sync.settings_for(tenant).await?;
        let read = plan::Read {
            today: sync.market.feeds().today().await?,
            lookback_days: settings.reach_days(ds.lookback_days),
            restate_days: settings.restate(ds.side),
        };
        let chunk = plan::chunk_days(ds.slice_days);
        Ok(read
            .next(held, chunk, ds.grain == "week")
            .map(|run| (read, run)))
    }

    /// Starts `run`, its checkpoint kept before its first ask; the dataset is `backfilling`
    /// while it reads newest first (a first run, older days), `syncing` otherwise.
    async fn begin(
        &self,
        (tenant, seller_id, name): At<'_>,
        ds: &Dataset,
        ck: &mut Checkpoint,
        read: &plan::Read,
        run: plan::Run,
    ) -> Result<Outcome> {
        ck.run = Some(RunCk {
            started_ms: now_ms(),
            from: run.from,
            to: run.to,
            cursor: if run.backwards { run.to } else { run.from },
            backwards: run.backwards,
            backfill: run.backfill,
            earliest: read.earliest(),
            // a backfill reads no restated day
            restating_from: if run.backfill {
                None
            } else {
                read.restating_from()
            },
            asked_again: 0,
            asked_again_ms: None,
        });
        ck.report = None;
        let state = if run.backwards {
            "backfilling"
        } else {
            "syncing"
        };
        let p = Progress {
            state: Some(state.into()),
            next_run_ms: Some(now_ms()),
            reach_from: read.reach(ds.grain == "week").map(|d| d.to_string()),
            ..Progress::default()
        };
        self.0
            .store
            .sync()
            .record(tenant, seller_id, name, p)
            .await?;
        Ok(cont(ck, now_ms()))
    }

    /// Loads the rows of the slices `from..=to` in one transaction, records the progress and
    /// moves the run's cursor past them.
    async fn load(
        &self,
        cx: &Cx<'_>,
        (from, to): (NaiveDate, NaiveDate),
        loads: Vec<Load>,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let (tenant, seller, ds) = (&cx.tenant, &cx.seller, cx.dataset);
        let mut tables: Vec<&str> = loads.iter().map(|l| l.slice.table.name).collect();
        tables.sort_unstable();
        tables.dedup();
        let n = cx
            .loader
            .replace_all(&loads)
            .await
            .map_err(|e| load_failed(ds.name, &tables.join(", "), e))? as i64;
        let m = pp_core::metrics::get();
        m.sync_rows
            .with_label_values(&[ds.name, cx.loader.engine_name()])
            .inc_by(n as u64);
        m.sync_slices.with_label_values(&[ds.name, "loaded"]).inc();
        let store = self.0.store.sync();
        let row = store.get(tenant, seller.id, ds.name).await?;
        let day = |d: Option<&String>| d.and_then(|d| d.parse::<NaiveDate>().ok());
        let through = day(row.as_ref().and_then(|x| x.data_through.as_ref()));
        let covered = day(row.as_ref().and_then(|x| x.covered_from.as_ref()));
        let p = Progress {
            // a load that follows a failure puts the dataset back on its way
            state: Some(
                if through.is_none() {
                    "backfilling"
                } else {
                    "syncing"
                }
                .into(),
            ),
            data_through: Some(through.map_or(to, |d| d.max(to)).to_string()),
            covered_from: Some(covered.map_or(from, |d| d.min(from)).to_string()),
            loaded: Some(n),
            error: Some(None),
            // whatever it waited for (the catalog's ASINs) has come
            note: Some(None),
            ..Progress::default()
        };
        store.record(tenant, seller.id, ds.name, p).await?;
        let run = ck
            .run
            .as_mut()
            .ok_or_else(|| Error::internal("a slice without its run"))?;
        run.past((from, to));
        // the next slice asked for ahead, if any, is loaded next
        ck.report = (!ck.ahead.is_empty()).then(|| ck.ahead.remove(0));
        if run.next_slice(ds.slice_days).is_some() {
            return Ok(cont(ck, now_ms()));
        }
        self.run_over((tenant, seller.id, ds.name), ds, ck).await
    }

    /// The run has read its days: while older days are still to fetch the next run starts at
    /// once (the next backfill month, or a day that passed meanwhile); the feed is told of the
    /// first run, of forward runs and of the backfill's last part. Otherwise the dataset is
    /// synced until tomorrow.
    async fn run_over(&self, at: At<'_>, ds: &Dataset, ck: &mut Checkpoint) -> Result<Outcome> {
        let next = self.next_run(at, ds).await?;
        let Some((read, run)) = next.filter(|(_, r)| r.backfill || r.older_left) else {
            return self.synced(at, ck).await;
        };
        let part = ck.run.as_ref().is_some_and(|r| r.backfill);
        self.finished(at, ck, !part).await?;
        self.begin(at, ds, ck, &read, run).await
    }

    /// Records that the dataset waits in `state` until `next` (with what else `p` says: the
    /// failure, the reason), and hands the job back until then with `ck`.
    async fn wait_as(
        &self,
        (tenant, seller_id, name): At<'_>,
        ck: &Checkpoint,
        state: &str,
        next: i64,
        p: Progress,
    ) -> Result<Outcome> {
        let p = Progress {
            state: Some(state.into()),
            next_run_ms: Some(next),
            ..p
        };
        self.0
            .store
            .sync()
            .record(tenant, seller_id, name, p)
            .await?;
        Ok(cont(ck, next))
    }

    /// The run is over (or there is none to make): synced, nothing failing, the next run
    /// tomorrow (or when woken).
    async fn synced(&self, at: At<'_>, ck: &mut Checkpoint) -> Result<Outcome> {
        self.finished(at, ck, true).await?;
        let next = self.0.next_daily_run(at.0).await?;
        self.wait_as(at, ck, "synced", next, Progress::default())
            .await
    }

    /// Records the run in `ck` as read (its days, the days it found restating; its error and
    /// note cleared), tells the feed and the monitors when `tell`, and clears the checkpoint.
    async fn finished(&self, at: At<'_>, ck: &mut Checkpoint, tell: bool) -> Result<()> {
        let store = &self.0.store;
        let (tenant, seller_id, dataset) = at;
        if let Some(run) = ck.run.as_ref().filter(|_| tell) {
            let e = NewEvent::of(&SyncFinished {
                subject: SyncSubject {
                    seller_id,
                    dataset: dataset.to_owned(),
                },
                data: SyncFinishedData {
                    from: run.from.to_string(),
                    through: run.to.to_string(),
                    started_at: pp_store::rfc3339_ms(run.started_ms),
                },
            })
            .once(format!(
                "sync:{seller_id}:{dataset}:{}:finished",
                run.started_ms
            ));
            store.events().append(tenant, e).await?;
            // the monitors look at the merchant's fresh data (once, however many datasets end)
            let monitors = MonitorRun {
                seller_id: Some(seller_id),
            };
            monitors.enqueue_once(store, tenant).await?;
        }
        let run = ck.run.take();
        // (the profile and DSP advertiser are found again by the next run)
        *ck = Checkpoint::default();
        let cleared = Progress {
            error: Some(None),
            note: Some(None),
            last_run: run.as_ref().map(|r| (r.from.to_string(), r.to.to_string())),
            restating_from: run
                .as_ref()
                .and_then(|r| r.restating_from)
                .map(|d| d.to_string()),
            ..Progress::default()
        };
        store
            .sync()
            .record(tenant, seller_id, dataset, cleared)
            .await
    }

    /// The connection lapsed: the dataset waits, with the provider's words, until it is
    /// connected again (a reconnect wakes it) or the pause is over.
    async fn paused(&self, at: At<'_>, ck: &Checkpoint, e: Error) -> Result<Outcome> {
        let p = Progress {
            error: Some(Some(e.api_envelope(None))),
            ..Progress::default()
        };
        self.wait_as(at, ck, "paused", now_ms() + PAUSED_MS, p)
            .await
    }

    /// The dataset cannot be read for this merchant (`why`, shown as its note): it waits for
    /// the next daily run, which looks again.
    async fn unavailable(&self, at: At<'_>, ck: &Checkpoint, why: String) -> Result<Outcome> {
        let p = Progress {
            note: Some(Some(why)),
            error: Some(None),
            ..Progress::default()
        };
        let next = self.0.next_daily_run(at.0).await?;
        self.wait_as(at, ck, "unavailable", next, p).await
    }

    /// The step failed with `e`: the dataset is `failing` with its words (told once per run,
    /// `run`, or per day without one), and the job tries again after a pause with `state`
    /// kept as it is.
    async fn failing(
        &self,
        at: At<'_>,
        state: Value,
        run: Option<String>,
        e: Error,
    ) -> Result<Outcome> {
        let (tenant, seller_id, name) = at;
        tracing::warn!(
            tenant = tenant.as_str(),
            seller_id,
            dataset = name,
            kind = ?e.kind,
            error = e.message(),
            cause = %e.chain(),
            "a dataset failed; it will try again"
        );
        pp_core::metrics::get()
            .sync_slices
            .with_label_values(&[name, "failed"])
            .inc();
        let wait = if e.retryable() { 30_000 } else { 15 * 60_000 };
        let envelope = e.api_envelope(None);
        // told once per run (a run failing again and again is one failure to tell)
        let run = run.unwrap_or_else(|| chrono::Utc::now().date_naive().to_string());
        let told = NewEvent::of(&SyncFailed {
            subject: SyncSubject {
                seller_id,
                dataset: name.to_owned(),
            },
            data: SyncFailedData {
                error: envelope.clone(),
                retry_in_seconds: wait / 1000,
            },
        })
        .once(format!("sync:{seller_id}:{name}:{run}:failed"));
        self.0.store.events().append(tenant, told).await?;
        let next = now_ms() + wait;
        let p = Progress {
            state: Some("failing".into()),
            next_run_ms: Some(next),
            error: Some(Some(envelope)),
            ..Progress::default()
        };
        self.0
            .store
            .sync()
            .record(tenant, seller_id, name, p)
            .await?;
        Ok(Outcome::Continue {
            state,
            done: 0,
            run_after: next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dataset job queued by an earlier release reads as [`SyncDataset`], and one queued now
    /// is what that release wrote.
    #[test]
    fn dataset_jobs_queued_before_kinds_were_types_still_read() {
        let old = json!({ "sellerId": 3, "dataset": "catalog" });
        let job: SyncDataset = serde_json::from_value(old.clone()).unwrap();
        assert_eq!((job.seller_id, job.dataset.as_str()), (3, "catalog"));
        assert_eq!(serde_json::to_value(&job).unwrap(), old);
    }
}

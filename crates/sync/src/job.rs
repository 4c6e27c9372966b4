//! The job step of one (merchant, dataset): plan a run, create a slice's report through the
//! ledger, look at it until it is done, and load its rows in one transaction that replaces
//! the slice; then the next slice, and once the run reaches yesterday, wait for the next
//! day. Every step is safe to repeat: the checkpoint names the run and the slice's report,
//! the create is keyed by slice and run (a repeated create gets the first one's report), and
//! a repeated load replaces the same rows. A lapsed connection pauses the dataset until a
//! reconnect wakes it.

use chrono::{NaiveDate, Timelike};
use pp_core::events;
use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::ledger::Family;
use pp_marketplace::reports::normalize;
use pp_marketplace::service::Account;
use pp_store::events::NewEvent;
use pp_store::jobs::{Handler, Job, Outcome, StepFuture, now_ms};
use pp_store::sync::Progress;
use pp_warehouse::directory;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::datasets::{self, Dataset, Source};
use crate::plan;
use crate::rows::{self, Load, Seller};
use crate::service::WarehouseSync;
use pp_world::schema::table;

/// The job kind of a dataset's sync.
pub const KIND: &str = "warehouse_sync";

/// How long a paused dataset waits before it looks at its connection again (a reconnect
/// wakes it sooner).
const PAUSED_MS: i64 = 15 * 60 * 1000;

/// How long one step keeps going while the provider answers at once.
const STEP_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest wait a step sleeps through itself rather than hand the job back.
const MAX_WAIT_IN_STEP: std::time::Duration = std::time::Duration::from_millis(600);

/// The job kind, as the registry holds it.
pub(crate) struct SyncJob(pub(crate) WarehouseSync);

impl Handler for SyncJob {
    fn name(&self) -> &'static str {
        KIND
    }

    fn deadline(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(120))
    }

    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            let outcome = match self.0.step(job).await {
                Ok(o) => o,
                // the store or the warehouse failed: the same step again in a minute
                Err(e) => {
                    tracing::warn!(
                        tenant = job.tenant.as_str(),
                        error = e.message(),
                        cause = e.cause().unwrap_or(""),
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

/// The job kind that takes a managed tenant's connections in (queued by
/// `admin connection add`, [`pp_store::sync::Sync::request_adopt`]).
pub const ADOPT_KIND: &str = pp_store::sync::ADOPT_KIND;

/// Adopts the tenant's connected merchants and starts their datasets, once.
pub(crate) struct AdoptJob(pub(crate) WarehouseSync);

impl Handler for AdoptJob {
    fn name(&self) -> &'static str {
        ADOPT_KIND
    }

    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
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
                Err(e) => Outcome::Failed {
                    state: job.state.clone(),
                    error: e.api_envelope(None),
                },
            };
            (outcome, Vec::new())
        })
    }
}

/// The run in progress.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunCk {
    pub(crate) started_ms: i64,
    pub(crate) from: NaiveDate,
    pub(crate) to: NaiveDate,
    pub(crate) cursor: NaiveDate,
    /// The oldest day the provider lets this run read.
    #[serde(default)]
    pub(crate) earliest: Option<NaiveDate>,
}

/// The slice whose report was created.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReportCk {
    pub(crate) id: String,
    pub(crate) from: NaiveDate,
    pub(crate) to: NaiveDate,
    /// A second report the slice needs (the inventory's latest day: its inbound units; a
    /// vendor's traffic beside its sales).
    #[serde(default)]
    pub(crate) also: Option<String>,
    /// The slice's further reports (search query performance: one per list of ASINs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) parts: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Checkpoint {
    pub(crate) run: Option<RunCk>,
    pub(crate) report: Option<ReportCk>,
    /// The advertising profile an advertising dataset reads (found once).
    pub(crate) profile: Option<i64>,
    /// The DSP advertiser the DSP dataset reads (found once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dsp: Option<crate::dsp::Dsp>,
}

pub(crate) fn cont(ck: &Checkpoint, run_after: i64) -> Outcome {
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

/// A report the provider could not make.
pub(crate) fn fatal(r: &ReportCk, reason: &str, report: Value) -> Error {
    Error::new(
        Kind::ReportFatal,
        format!(
            "the provider could not make report {} for {}..{} ({reason})",
            r.id, r.from, r.to
        ),
    )
    .with_field("provider", report)
}

/// A document that should be JSON.
fn json_doc(ds: &Dataset, text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::new(
            Kind::UpstreamUnavailable,
            format!("the provider's {} document does not read: {e}", ds.name),
        )
    })
}

/// Whether `e` says the merchant's connection lapsed (it must be connected again).
fn lapsed(e: &Error) -> bool {
    matches!(e.kind, Kind::ReauthRequired | Kind::MerchantInactive)
}

/// A selling-side report request for `report_type`, over `days` when it has a window.
pub(crate) fn spapi_request(
    report_type: &str,
    merchant: &Merchant,
    days: Option<(NaiveDate, NaiveDate)>,
    options: Value,
) -> Value {
    let mut body = json!({
        "reportType": report_type,
        "marketplaceIds": [merchant.marketplace_id],
    });
    if let Some((from, to)) = days {
        body["dataStartTime"] = format!("{from}T00:00:00Z").into();
        body["dataEndTime"] = format!("{to}T23:59:59Z").into();
    }
    if !options.is_null() {
        body["reportOptions"] = options;
    }
    body
}

/// Which dataset a step records for: tenant, seller id, dataset name.
pub(crate) type At<'a> = (&'a TenantId, i64, &'a str);

impl WarehouseSync {
    /// Records that the dataset waits in `state` until `next` (with what else `p` says: the
    /// failure, the reason), and hands the job back until then with `ck`.
    pub(crate) async fn wait_as(
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
        self.store.sync().record(tenant, seller_id, name, p).await?;
        Ok(cont(ck, next))
    }

    /// The run is over (or there is none to make): synced, nothing failing, the next run
    /// tomorrow (or when woken).
    async fn synced(&self, at: At<'_>, ck: &mut Checkpoint) -> Result<Outcome> {
        if let Some(run) = &ck.run {
            let (tenant, seller_id, dataset) = at;
            let e = NewEvent::new(
                &events::SYNC_FINISHED,
                json!({ "sellerId": seller_id, "dataset": dataset }),
                json!({ "from": run.from, "through": run.to, "startedAt": pp_store::rfc3339_ms(run.started_ms) }),
            )
            .once(format!("sync:{seller_id}:{dataset}:{}:finished", run.started_ms));
            self.store.events().append(tenant, e).await?;
            // the monitors look at the merchant's fresh data (once, however many datasets end)
            self.store
                .jobs()
                .enqueue_once(
                    tenant,
                    pp_store::monitors::KIND,
                    Some(&seller_id.to_string()),
                    &json!({ "sellerId": seller_id }),
                )
                .await?;
        }
        *ck = Checkpoint::default();
        let next = self.next_daily_run(at.0).await?;
        let cleared = Progress {
            error: Some(None),
            ..Progress::default()
        };
        self.wait_as(at, ck, "synced", next, cleared).await
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
    pub(crate) async fn unavailable(
        &self,
        at: At<'_>,
        ck: &Checkpoint,
        why: String,
    ) -> Result<Outcome> {
        let p = Progress {
            note: Some(Some(why)),
            error: Some(None),
            ..Progress::default()
        };
        let next = self.next_daily_run(at.0).await?;
        self.wait_as(at, ck, "unavailable", next, p).await
    }

    /// When the tenant's next daily run starts (its own hour, or the service's).
    pub(crate) async fn next_daily_run(&self, tenant: &TenantId) -> Result<i64> {
        Ok(next_daily(self.settings_for(tenant).await?.daily_hour))
    }

    /// Looks at the slice's report again after the poll interval.
    pub(crate) fn later(&self, ck: &Checkpoint) -> Outcome {
        cont(ck, now_ms() + self.settings.poll.as_millis() as i64)
    }

    /// A selling-side report's document once it is done: `None` while it is being made,
    /// `Some(None)` when it ended without one (nothing for those days). A report the provider
    /// could not make fails the slice (its report is dropped, to be made again).
    pub(crate) async fn spapi_done(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        r: &ReportCk,
        id: &str,
        ck: &mut Checkpoint,
    ) -> Result<Option<Option<String>>> {
        let feeds = self.market.feeds();
        let report = feeds.spapi_report(tenant, account, id).await?;
        let (status, reason) = normalize(&report);
        match status {
            "queued" | "running" => Ok(None),
            "failed" | "cancelled" => {
                ck.report = None;
                Err(fatal(r, reason.unwrap_or("provider_fatal"), report))
            }
            _ => match report["reportDocumentId"].as_str() {
                Some(doc) => Ok(Some(Some(
                    feeds.spapi_document(tenant, account, doc).await?,
                ))),
                None => Ok(Some(None)),
            },
        }
    }

    /// The catalog items of the listed ASINs, twenty to a call.
    async fn catalog_items(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        listings: &[std::collections::BTreeMap<String, String>],
    ) -> Result<Vec<Value>> {
        let mut asins: Vec<&str> = listings
            .iter()
            .filter_map(|l| l.get("asin1").map(String::as_str))
            .collect();
        asins.sort_unstable();
        asins.dedup();
        let mut items = Vec::new();
        for chunk in asins.chunks(20) {
            let mut args = serde_json::Map::new();
            args.insert("identifiers".into(), chunk.join(",").into());
            args.insert("identifiersType".into(), "ASIN".into());
            args.insert("pageSize".into(), 20.into());
            args.insert(
                "includedData".into(),
                "summaries,attributes,relationships,vendorDetails".into(),
            );
            let body = self
                .market
                .feeds()
                .read(tenant, account, "catalog.search_catalog_items", &args)
                .await?;
            items.extend(body["items"].as_array().into_iter().flatten().cloned());
        }
        Ok(items)
    }

    /// The advertising profile of `merchant`'s marketplace, if its login has one.
    async fn profile_of(&self, tenant: &TenantId, merchant: &Merchant) -> Result<Option<i64>> {
        let login = Account::Ads {
            login: &merchant.seller_id,
            profile: None,
        };
        let body = self
            .market
            .feeds()
            .read(tenant, &login, "profiles.list", &serde_json::Map::new())
            .await?;
        Ok(body
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| {
                p["accountInfo"]["id"] == merchant.seller_id.as_str()
                    && p["countryCode"] == merchant.marketplace.as_str()
            })
            .and_then(|p| {
                p["profileId"]
                    .as_i64()
                    .or_else(|| p["profileId"].as_str().and_then(|s| s.parse().ok()))
            }))
    }

    pub(crate) async fn step(&self, job: &Job) -> Result<Outcome> {
        let tenant = TenantId::parse(&job.tenant)?;
        let seller_id = job.input["sellerId"].as_i64().unwrap_or_default();
        let name = job.input["dataset"].as_str().unwrap_or_default();
        let at = (&tenant, seller_id, name);
        let Some(ds) = datasets::find(name) else {
            return Ok(Outcome::Failed {
                state: job.state.clone(),
                error: Error::internal(format!("no dataset {name}")).api_envelope(None),
            });
        };
        let Some(loader) = self.loader(&tenant).await? else {
            // the warehouse is no longer managed: nothing more to fill
            return Ok(Outcome::Succeeded {
                state: job.state.clone(),
                done: job.done,
            });
        };
        let mut ck: Checkpoint = serde_json::from_value(job.state.clone()).unwrap_or_default();
        let Some(s) = self
            .sellers(&tenant)
            .await?
            .into_iter()
            .find(|s| s.id == seller_id)
        else {
            return Ok(Outcome::Failed {
                state: job.state.clone(),
                error: Error::not_found(format!("the warehouse has no seller {seller_id}"))
                    .api_envelope(None),
            });
        };
        let seller = Seller {
            id: s.id,
            token: s.token.clone(),
            currency: s.currency.clone(),
        };
        let merchant = Merchant::from(s);
        let feeds = self.market.feeds();
        if matches!(ds.source, Source::AdsV3 { .. } | Source::AdsEntities) && ck.profile.is_none() {
            match self.profile_of(&tenant, &merchant).await {
                Ok(Some(p)) => ck.profile = Some(p),
                Ok(None) => {
                    let why = format!(
                        "the advertising login of {} has no profile in {}",
                        merchant.seller_id, merchant.marketplace
                    );
                    return self.unavailable(at, &ck, why).await;
                }
                // a lapsed login is the usability check's to report
                Err(e) if e.kind == Kind::ReauthRequired => {}
                Err(e) => return Err(e),
            }
        }
        if ds.source == Source::DspV1 && ck.dsp.is_none() {
            match crate::dsp::advertiser(&feeds, &tenant, &merchant).await {
                Ok(Some(d)) => {
                    let row = crate::dsp::advertiser_row(&seller, &d);
                    loader
                        .replace(&row.slice, row.rows)
                        .await
                        .map_err(|e| Error::internal(format!("writing dsp_advertiser: {e}")))?;
                    ck.dsp = Some(d);
                }
                Ok(None) => {
                    let why = format!(
                        "no DSP advertiser is linked to {} in {}",
                        merchant.seller_id, merchant.marketplace
                    );
                    return self.unavailable(at, &ck, why).await;
                }
                Err(e) if e.kind == Kind::ReauthRequired => {}
                Err(e) => return Err(e),
            }
        }
        let profile = ck.profile.map(|p| p.to_string());
        let account = match ds.source {
            Source::SpapiReport(_)
            | Source::Settlements
            | Source::Catalog
            | Source::Inventory
            | Source::Vendor
            | Source::SearchQueryPerformance => Account::Seller(&merchant),
            Source::AdsV3 { .. } | Source::AdsEntities => Account::Ads {
                login: &merchant.seller_id,
                profile: profile.as_deref(),
            },
            // Reporting v1 names its accounts in the body
            Source::DspV1 => Account::Ads {
                login: &merchant.seller_id,
                profile: None,
            },
        };
        if let Err(e) = feeds.usable(&tenant, &account).await {
            return match lapsed(&e) {
                true => self.paused(at, &ck, e).await,
                false => Err(e),
            };
        }
        // one step goes on while the provider is quick (reports made in a moment), within a
        // budget; the checkpoint it ends with covers everything it loaded
        let began = std::time::Instant::now();
        let attempt = async {
            loop {
                let o = match (&ck.run, &ck.report) {
                    // a new run's checkpoint is kept before its first create: the creates'
                    // keys name the run, so a step repeated after a crash must find the
                    // same run, or it would ask for its slices again
                    (None, _) => return self.plan_run(&tenant, seller_id, ds, &mut ck).await,
                    (Some(run), None) if ds.source.is_listed() => {
                        let run = run.clone();
                        self.listed(&tenant, &account, &seller, ds, &run, &loader, &mut ck)
                            .await?
                    }
                    (Some(run), None) => {
                        let run = run.clone();
                        self.create(&tenant, &merchant, &account, seller_id, ds, &run, &mut ck)
                            .await?
                    }
                    (Some(_), Some(r)) => {
                        let r = r.clone();
                        self.collect(&tenant, &account, &seller, ds, &r, &loader, &mut ck)
                            .await?
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
        };
        let attempt: Result<Outcome> = attempt.await;
        match attempt {
            Ok(o) => Ok(o),
            // the connection lapsed on the way
            Err(e) if lapsed(&e) => self.paused(at, &ck, e).await,
            // the gateway's own pacing (no provider answer behind it) says when the usage
            // plan has a slot: the dataset waits for it, it has not failed
            Err(e) if let Some(wait) = pp_marketplace::triage::held_back(&e) => {
                Ok(cont(&ck, now_ms() + wait.as_millis() as i64))
            }
            Err(e) => {
                pp_core::metrics::get()
                    .sync_slices
                    .with_label_values(&[ds.name, "failed"])
                    .inc();
                // the provider's words are kept; the slice is tried again after a pause
                let wait = if e.retryable() { 30_000 } else { 15 * 60_000 };
                let envelope = e.api_envelope(None);
                // told once per run (a run failing again and again is one failure to tell)
                let run = ck.run.as_ref().map_or_else(
                    || chrono::Utc::now().date_naive().to_string(),
                    |r| r.started_ms.to_string(),
                );
                let told = NewEvent::new(
                    &events::SYNC_FAILED,
                    json!({ "sellerId": seller_id, "dataset": name }),
                    json!({ "error": envelope, "retryInSeconds": wait / 1000 }),
                )
                .once(format!("sync:{seller_id}:{name}:{run}:failed"));
                self.store.events().append(&tenant, told).await?;
                let p = Progress {
                    error: Some(Some(envelope)),
                    ..Progress::default()
                };
                self.wait_as(at, &ck, "failing", now_ms() + wait, p).await
            }
        }
    }

    /// Plans the next run from the warehouse's coverage, or waits for tomorrow.
    async fn plan_run(
        &self,
        tenant: &TenantId,
        seller_id: i64,
        ds: &Dataset,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let row = self.store.sync().get(tenant, seller_id, ds.name).await?;
        let through = row
            .as_ref()
            .and_then(|r| r.data_through.as_deref())
            .and_then(|d| d.parse().ok());
        let today = self.market.feeds().today().await?;
        let restate = self.settings_for(tenant).await?.restate(ds.side);
        let earliest = today.checked_sub_days(chrono::Days::new(ds.lookback_days as u64));
        let mut days = plan::run_days(today, ds.lookback_days, restate, through);
        if ds.grain == "week" {
            days = days.and_then(|d| plan::whole_weeks(d, earliest.unwrap_or(d.0)));
        }
        match days {
            None => self.synced((tenant, seller_id, ds.name), ck).await,
            Some((from, to)) => {
                ck.run = Some(RunCk {
                    started_ms: now_ms(),
                    from,
                    to,
                    cursor: from,
                    earliest,
                });
                ck.report = None;
                let state = if through.is_none() {
                    "backfilling"
                } else {
                    "syncing"
                };
                self.store
                    .sync()
                    .record(
                        tenant,
                        seller_id,
                        ds.name,
                        Progress {
                            state: Some(state.into()),
                            next_run_ms: Some(now_ms()),
                            ..Progress::default()
                        },
                    )
                    .await?;
                Ok(cont(ck, now_ms()))
            }
        }
    }

    /// Creates the report of the slice at the run's cursor.
    #[allow(clippy::too_many_arguments)]
    async fn create(
        &self,
        tenant: &TenantId,
        merchant: &Merchant,
        account: &Account<'_>,
        seller_id: i64,
        ds: &Dataset,
        run: &RunCk,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let (from, to) = plan::slice(run.cursor, run.to, ds.slice_days);
        let spapi =
            |t: &str, days, options| (Family::Spapi, spapi_request(t, merchant, days, options));
        let (family, body) = match ds.source {
            Source::SpapiReport(t) => spapi(
                t,
                Some((from, to)),
                json!({ "dateGranularity": "DAY", "asinGranularity": "CHILD" }),
            ),
            // the sales report; the traffic report is the slice's second
            Source::Vendor => spapi(
                "GET_VENDOR_SALES_REPORT",
                Some((from, to)),
                json!({ "reportPeriod": "DAY", "distributorView": "MANUFACTURING", "sellingProgram": "RETAIL" }),
            ),
            // a report per list of ASINs
            Source::SearchQueryPerformance => {
                return self
                    .create_sqp(
                        tenant,
                        merchant,
                        account,
                        (seller_id, ds),
                        (from, to),
                        run,
                        ck,
                    )
                    .await;
            }
            Source::Catalog => spapi("GET_MERCHANT_LISTINGS_ALL_DATA", None, Value::Null),
            Source::AdsEntities | Source::Settlements => {
                return Err(Error::internal("this dataset is listed, not reported"));
            }
            Source::Inventory => {
                // the 27 days before the slice too, for its days of supply
                let start = (from - chrono::Days::new(27)).max(run.earliest.unwrap_or(from));
                spapi(
                    "GET_LEDGER_SUMMARY_VIEW_DATA",
                    Some((start, to)),
                    json!({ "aggregatedByTimePeriod": "DAILY", "aggregateByLocation": "COUNTRY" }),
                )
            }
            Source::DspV1 => {
                let d = ck
                    .dsp
                    .as_ref()
                    .ok_or_else(|| Error::internal("a DSP slice without its advertiser"))?;
                (Family::AdsV1, crate::dsp::request(d, from, to))
            }
            Source::AdsV3 {
                report,
                product,
                group_by,
                columns,
            } => (
                Family::AdsV3,
                json!({
                    "name": format!("partner platform sync {} {from}..{to}", ds.name),
                    "startDate": from.to_string(),
                    "endDate": to.to_string(),
                    "configuration": {
                        "adProduct": product,
                        "groupBy": group_by,
                        "columns": columns,
                        "reportTypeId": report,
                        "timeUnit": "DAILY",
                        "format": "GZIP_JSON",
                    },
                }),
            ),
        };
        let key = format!(
            "sync|{seller_id}|{}|{}|{from}|{to}",
            ds.name, run.started_ms
        );
        let feeds = self.market.feeds();
        let id = feeds
            .create_report(tenant, account, family, body, &key, run.started_ms)
            .await?;
        // a second report: the run's last day's inbound units (today's inventory report), a
        // vendor's traffic beside its sales
        let second = match ds.source {
            Source::Inventory if to == run.to => Some((
                "inbound",
                spapi_request(
                    "GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA",
                    merchant,
                    None,
                    Value::Null,
                ),
            )),
            Source::Vendor => Some((
                "traffic",
                spapi_request(
                    "GET_VENDOR_TRAFFIC_REPORT",
                    merchant,
                    Some((from, to)),
                    json!({ "reportPeriod": "DAY" }),
                ),
            )),
            _ => None,
        };
        let also = match second {
            Some((what, body)) => {
                let key = format!("{key}|{what}");
                Some(
                    feeds
                        .create_report(tenant, account, family, body, &key, run.started_ms)
                        .await?,
                )
            }
            None => None,
        };
        ck.report = Some(ReportCk {
            id,
            from,
            to,
            also,
            parts: Vec::new(),
        });
        Ok(cont(
            ck,
            now_ms() + self.settings.poll.as_millis() as i64 / 4,
        ))
    }

    /// Looks at the slice's report; once done, loads its rows and moves the cursor on.
    #[allow(clippy::too_many_arguments)]
    async fn collect(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        seller: &Seller,
        ds: &Dataset,
        r: &ReportCk,
        loader: &pp_world::Managed,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let feeds = self.market.feeds();
        let loads: Vec<Load> = match ds.source {
            Source::SearchQueryPerformance => {
                match self.collect_sqp(tenant, account, seller, r, ck).await? {
                    Some(load) => vec![load],
                    None => return Ok(self.later(ck)),
                }
            }
            Source::SpapiReport(_) | Source::Catalog | Source::Inventory | Source::Vendor => {
                let Some(text) = self.spapi_done(tenant, account, r, &r.id, ck).await? else {
                    return Ok(self.later(ck));
                };
                let also = match &r.also {
                    Some(id) => match self.spapi_done(tenant, account, r, id, ck).await? {
                        None => return Ok(self.later(ck)),
                        Some(t) => Some(t),
                    },
                    None => None,
                };
                match (ds.source, text) {
                    (Source::Catalog, text) => {
                        let listings = match &text {
                            Some(t) => pp_marketplace::documents::tsv("all-listings", t)?,
                            None => Vec::new(),
                        };
                        let items = self.catalog_items(tenant, account, &listings).await?;
                        vec![rows::catalog(seller, &listings, &items)?]
                    }
                    (Source::Vendor, text) => {
                        let sales = match &text {
                            Some(t) => {
                                pp_marketplace::documents::selling::vendor_sales(&json_doc(ds, t)?)?
                            }
                            None => Vec::new(),
                        };
                        let traffic = match also.flatten() {
                            Some(t) => pp_marketplace::documents::selling::vendor_traffic(
                                &json_doc(ds, &t)?,
                            )?,
                            None => Vec::new(),
                        };
                        vec![rows::vendor_sales_and_traffic(
                            seller,
                            (r.from, r.to),
                            &sales,
                            &traffic,
                        )]
                    }
                    (Source::Inventory, text) => {
                        let ledger = match &text {
                            Some(t) => pp_marketplace::documents::selling::ledger(t)?,
                            None => Vec::new(),
                        };
                        let inbound = match also.flatten() {
                            Some(t) => Some(rows::inbound_units(&t)?),
                            None => None,
                        };
                        let latest = inbound.as_ref().map(|m| (r.to, m));
                        vec![rows::fba_inventory(seller, (r.from, r.to), &ledger, latest)]
                    }
                    (_, Some(text)) => {
                        rows::sales_and_traffic(seller, r.from, &json_doc(ds, &text)?)?
                    }
                    // done without a document: the provider has nothing for these days
                    (_, None) => Vec::new(),
                }
            }
            Source::AdsEntities | Source::Settlements => {
                return Err(Error::internal("this dataset is listed, not reported"));
            }
            Source::DspV1 => {
                let answer = feeds
                    .ads_report(tenant, account, Family::AdsV1, &r.id)
                    .await?;
                let report = &answer["success"][0]["report"];
                match report["status"].as_str().unwrap_or_default() {
                    "COMPLETED" => {}
                    "FAILED" => {
                        ck.report = None;
                        return Err(fatal(r, "provider_fatal", report.clone()));
                    }
                    "" => {
                        return Err(Error::new(
                            Kind::UpstreamUnavailable,
                            format!("the provider did not describe report {}: {answer}", r.id),
                        ));
                    }
                    _ => return Ok(self.later(ck)),
                }
                let url = report["completedReportParts"][0]["url"]
                    .as_str()
                    .ok_or_else(|| {
                        Error::new(
                            Kind::UpstreamUnavailable,
                            format!("completed report {} names no URL", r.id),
                        )
                    })?;
                let text = feeds.download(url, true).await?;
                let read = pp_marketplace::documents::ads::v1(&text)?;
                let d = ck
                    .dsp
                    .as_ref()
                    .ok_or_else(|| Error::internal("a DSP slice without its advertiser"))?;
                vec![rows::dsp_daily(seller, d.id, (r.from, r.to), &read)?]
            }
            Source::AdsV3 { product, .. } => {
                let report = feeds
                    .ads_report(tenant, account, Family::AdsV3, &r.id)
                    .await?;
                match report["status"].as_str().unwrap_or_default() {
                    "COMPLETED" => {}
                    "FAILED" => {
                        ck.report = None;
                        return Err(fatal(r, "provider_fatal", report));
                    }
                    _ => return Ok(self.later(ck)),
                }
                let url = report["url"].as_str().ok_or_else(|| {
                    Error::new(
                        Kind::UpstreamUnavailable,
                        format!("completed report {} names no URL", r.id),
                    )
                })?;
                let text = feeds.download(url, true).await?;
                let read = pp_marketplace::documents::ads::v3(&text)?;
                let profile = ck.profile.unwrap_or_default();
                ds.tables
                    .iter()
                    .map(|t| {
                        rows::ads_v3(seller, profile, product, table(t), (r.from, r.to), &read)
                    })
                    .collect::<Result<_>>()?
            }
        };
        self.load(tenant, seller, ds, (r.from, r.to), loads, loader, ck)
            .await
    }

    /// A dataset read by listing rather than by a report it asks for (advertising entities,
    /// settlements): its rows, loaded as the run's slice.
    #[allow(clippy::too_many_arguments)]
    async fn listed(
        &self,
        tenant: &TenantId,
        account: &Account<'_>,
        seller: &Seller,
        ds: &Dataset,
        run: &RunCk,
        loader: &pp_world::Managed,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let feeds = self.market.feeds();
        let loads = match ds.source {
            Source::AdsEntities => {
                let listed = crate::entities::read(&feeds, tenant, account).await?;
                let engine = self.warehouses.of_tenant(tenant).await?;
                let brands =
                    directory::asin_brands(engine.as_ref(), &self.warehouses.limits, seller.id)
                        .await?;
                let profile = ck.profile.unwrap_or_default();
                crate::entities::rows(seller, profile, &listed, &brands)
            }
            Source::Settlements => {
                crate::settlements::read(&feeds, tenant, account, seller).await?
            }
            _ => return Err(Error::internal("this dataset asks for reports")),
        };
        let (from, to) = plan::slice(run.cursor, run.to, ds.slice_days);
        self.load(tenant, seller, ds, (from, to), loads, loader, ck)
            .await
    }

    /// Loads a slice's rows (each table's part in one transaction), records the progress and
    /// moves the run's cursor past the slice.
    #[allow(clippy::too_many_arguments)]
    async fn load(
        &self,
        tenant: &TenantId,
        seller: &Seller,
        ds: &Dataset,
        (from, to): (NaiveDate, NaiveDate),
        loads: Vec<Load>,
        loader: &pp_world::Managed,
        ck: &mut Checkpoint,
    ) -> Result<Outcome> {
        let mut n = 0;
        for l in loads {
            n += loader.replace(&l.slice, l.rows).await.map_err(|e| {
                Error::internal(format!(
                    "loading {} into {}: {e}",
                    ds.name, l.slice.table.name
                ))
            })? as i64;
        }
        let m = pp_core::metrics::get();
        m.sync_rows
            .with_label_values(&[ds.name, loader.engine_name()])
            .inc_by(n as u64);
        m.sync_slices.with_label_values(&[ds.name, "loaded"]).inc();
        let row = self.store.sync().get(tenant, seller.id, ds.name).await?;
        let through = row
            .as_ref()
            .and_then(|x| x.data_through.as_deref())
            .and_then(|d| d.parse::<NaiveDate>().ok())
            .map_or(to, |d| d.max(to));
        let from = row
            .as_ref()
            .and_then(|x| x.covered_from.as_deref())
            .and_then(|d| d.parse::<NaiveDate>().ok())
            .map_or(from, |d| d.min(from));
        self.store
            .sync()
            .record(
                tenant,
                seller.id,
                ds.name,
                Progress {
                    // a load that follows a failure puts the dataset back on its way
                    state: Some(
                        match row.as_ref().and_then(|x| x.data_through.as_ref()) {
                            None => "backfilling",
                            Some(_) => "syncing",
                        }
                        .into(),
                    ),
                    data_through: Some(through.to_string()),
                    covered_from: Some(from.to_string()),
                    loaded: Some(n),
                    error: Some(None),
                    ..Progress::default()
                },
            )
            .await?;
        let run = ck
            .run
            .as_mut()
            .ok_or_else(|| Error::internal("a slice without its run"))?;
        run.cursor = to.succ_opt().unwrap_or(to);
        ck.report = None;
        if run.cursor <= run.to {
            return Ok(cont(ck, now_ms()));
        }
        // the run reached yesterday: the next one plans tomorrow (or when woken)
        self.synced((tenant, seller.id, ds.name), ck).await
    }
}

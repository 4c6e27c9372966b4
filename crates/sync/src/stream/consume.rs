//! One receive from a tenant's stream queue, and the days it touched made into the warehouse.
//! A batch is kept in one state-store transaction before any of its messages is deleted, so
//! nothing received is lost to a crash (the messages come back after their visibility) and
//! nothing is kept twice (the record's `idempotency_id` is the store's key).

use std::collections::{BTreeMap, HashMap};

use pp_core::{Error, Result, TenantId};
use pp_store::events::NewEvent;
use pp_store::jobs::BackgroundJob;
use pp_store::monitors::MonitorIntraday;
use pp_store::streams::{NewRecord, ReportNotice};

use super::Streams;
use super::message::{self, Message};
use super::{Pass, load};

/// How long a claim on a day to make holds: far longer than making a day takes.
const MAKING_LEASE_MS: i64 = 10_000;

/// The longest body kept of a message that could not be read.
const KEPT_BODY: usize = 64 * 1024;

pub(crate) fn stream_config(s: &Streams) -> Result<&super::StreamConfig> {
    s.sync
        .stream
        .as_deref()
        .ok_or_else(|| Error::internal("the gateway has no stream queues configured"))
}

/// The warehouses' seller rows, read once per tenant per pass: (merchant token, marketplace
/// id) → seller id.
#[derive(Default)]
pub(crate) struct Sellers(HashMap<String, BTreeMap<(String, String), i64>>);

impl Sellers {
    async fn of(
        &mut self,
        s: &Streams,
        tenant: &TenantId,
    ) -> Result<&BTreeMap<(String, String), i64>> {
        if !self.0.contains_key(tenant.as_str()) {
            let rows = s
                .sync
                .sellers(tenant)
                .await?
                .into_iter()
                .map(|r| ((r.token, r.marketplace_id), r.id))
                .collect();
            self.0.insert(tenant.as_str().to_owned(), rows);
        }
        Ok(&self.0[tenant.as_str()])
    }

    /// The merchant token of seller row `id`.
    async fn token(&mut self, s: &Streams, tenant: &TenantId, id: i64) -> Result<String> {
        self.of(s, tenant)
            .await?
            .iter()
            .find(|(_, v)| **v == id)
            .map(|((token, _), _)| token.clone())
            .ok_or_else(|| Error::internal(format!("seller {id} left the warehouse")))
    }
}

/// One receive (up to ten messages) from `tenant`'s `dataset` queue at `url`.
pub(crate) async fn consume(
    s: &Streams,
    known: &mut Sellers,
    tenant: &TenantId,
    dataset: &str,
    url: &str,
) -> Result<Pass> {
    let cfg = stream_config(s)?;
    let (got, mut pass) = receive(cfg, url).await?;
    if got.is_empty() {
        return Ok(pass);
    }
    let sellers = known.of(s, tenant).await?;
    let (mut records, mut rejects, mut done) = (Vec::new(), Vec::new(), Vec::new());
    for m in &got {
        match message::read(&m.body) {
            Ok(Message::Confirmation {
                topic,
                subscribe_url,
            }) => {
                // a confirmation that fails stays on the queue, to be tried again
                match confirm(s, &subscribe_url).await {
                    Ok(()) => {
                        tracing::info!(
                            tenant = tenant.as_str(),
                            dataset,
                            topic,
                            "stream subscription confirmed"
                        );
                        s.sync.store.streams().confirmed(tenant, dataset).await?;
                        pass.confirmed += 1;
                        done.push(m.receipt_handle.as_str());
                    }
                    Err(why) => {
                        tracing::warn!(tenant = tenant.as_str(), dataset, %why, "a stream confirmation failed");
                    }
                }
            }
            Ok(Message::Record(r)) => {
                match sellers.get(&(r.advertiser.clone(), r.marketplace_id.clone())) {
                    Some(&seller_id) => records.push(NewRecord {
                        idempotency_id: r.idempotency_id,
                        seller_id,
                        day: r.day.to_string(),
                        record: r.body,
                        published_ms: r.published_ms,
                        makes_rows: true,
                    }),
                    None => rejects.push((
                        format!(
                            "no seller row for advertiser {} in marketplace {}",
                            r.advertiser, r.marketplace_id
                        ),
                        keep(&m.body),
                    )),
                }
                done.push(m.receipt_handle.as_str());
            }
            Err(why) => {
                rejects.push((why, keep(&m.body)));
                done.push(m.receipt_handle.as_str());
            }
        }
    }
    pass.rejected = rejects.len() as u64;
    let kept = s
        .sync
        .store
        .streams()
        .commit(tenant, dataset, records, rejects)
        .await?;
    pass.kept = kept.inserted;
    pass.duplicates = kept.duplicates;
    delete(cfg, tenant, dataset, url, &done).await?;
    Ok(pass)
}

/// One receive of up to ten messages from the queue at `url`, and the pass counting them.
async fn receive(cfg: &super::StreamConfig, url: &str) -> Result<(Vec<pp_sqs::Message>, Pass)> {
    let got = cfg
        .sqs
        .receive(url, 10, cfg.wait, cfg.visibility)
        .await
        .map_err(|e| Error::internal_with("receiving from a stream queue", e))?;
    let pass = Pass {
        received: got.len() as u64,
        ..Pass::default()
    };
    Ok((got, pass))
}

/// Deletes the kept messages (`done`, receipt handles) from the queue: only after their
/// commit. A handle that expired meanwhile brings its message back, whose record is then a
/// duplicate.
async fn delete(
    cfg: &super::StreamConfig,
    tenant: &TenantId,
    dataset: &str,
    url: &str,
    done: &[&str],
) -> Result<()> {
    let failed = cfg
        .sqs
        .delete(url, done)
        .await
        .map_err(|e| Error::internal_with("deleting stream messages", e))?;
    for (_, why) in failed {
        tracing::info!(tenant = tenant.as_str(), dataset, %why, "a kept message comes back");
    }
    Ok(())
}

/// One receive (up to ten messages) from `tenant`'s notifications queue at `url`: each
/// notification told as its event (once per notification id, so a redelivery or a second
/// instance's copy tells nothing twice) or, a finished report, its word kept for the sync;
/// then kept in the journal and deleted. One that cannot be read is kept aside with why.
pub(crate) async fn consume_notices(s: &Streams, tenant: &TenantId, url: &str) -> Result<Pass> {
    use super::notices::{self, Meaning};
    let cfg = stream_config(s)?;
    let (got, mut pass) = receive(cfg, url).await?;
    if got.is_empty() {
        return Ok(pass);
    }
    let (mut records, mut rejects, mut done) = (Vec::new(), Vec::new(), Vec::new());
    for m in &got {
        done.push(m.receipt_handle.as_str());
        let read = notices::read(&m.body).and_then(|n| notices::meaning(&n).map(|w| (n, w)));
        let (n, what) = match read {
            Ok(r) => r,
            Err(why) => {
                rejects.push((why, keep(&m.body)));
                continue;
            }
        };
        match what {
            Meaning::Event(e) => {
                let once = format!("notification:{}", n.id);
                s.sync
                    .store
                    .events()
                    .append(tenant, NewEvent::of(&e).once(once))
                    .await?;
            }
            Meaning::Report {
                report_id,
                report_type,
                status,
                document_id,
            } => {
                let notice = ReportNotice {
                    report_type,
                    status,
                    document_id,
                    at_ms: n.published_ms,
                };
                s.sync
                    .store
                    .streams()
                    .report_finished(tenant, &report_id, &notice)
                    .await?;
            }
        }
        records.push(NewRecord {
            idempotency_id: n.id.clone(),
            seller_id: 0,
            day: notices::day(&n),
            record: n.body,
            published_ms: n.published_ms,
            makes_rows: false,
        });
    }
    pass.rejected = rejects.len() as u64;
    let kept = s
        .sync
        .store
        .streams()
        .commit(tenant, notices::QUEUE, records, rejects)
        .await?;
    pass.kept = kept.inserted;
    pass.duplicates = kept.duplicates;
    delete(cfg, tenant, notices::QUEUE, url, &done).await?;
    Ok(pass)
}

/// Visits a confirmation's `SubscribeURL`, if it points at an allowed origin.
async fn confirm(s: &Streams, url: &str) -> std::result::Result<(), String> {
    let cfg = stream_config(s).map_err(|e| e.to_string())?;
    let parsed = url::Url::parse(url).map_err(|e| format!("SubscribeURL is not a URL: {e}"))?;
    let origin = parsed.origin().ascii_serialization();
    if !cfg
        .confirm_origins
        .iter()
        .any(|o| o.trim_end_matches('/') == origin)
    {
        return Err(format!(
            "SubscribeURL's origin {origin} is not the provider's"
        ));
    }
    let r = cfg
        .http
        .get(parsed)
        .send()
        .await
        .map_err(|e| format!("visiting SubscribeURL: {}", e.without_url()))?;
    if r.status().is_success() {
        Ok(())
    } else {
        Err(format!("SubscribeURL answered {}", r.status()))
    }
}

/// Makes up to `limit` marked days into the warehouse, each under a claim; how many.
pub(crate) async fn make_stream_days(s: &Streams, known: &mut Sellers, limit: i64) -> Result<u64> {
    let mut made = 0;
    let mut watched = std::collections::BTreeSet::new();
    for p in s.sync.store.streams().claim(limit, MAKING_LEASE_MS).await? {
        let tenant = TenantId::parse(&p.tenant)?;
        let Some(loader) = s.sync.loader(&tenant).await? else {
            // an external warehouse is never written: the marks go
            s.sync.store.streams().made(&p).await?;
            continue;
        };
        let token = known.token(s, &tenant, p.seller_id).await?;
        let records = s
            .sync
            .store
            .streams()
            .records(&p.tenant, p.seller_id, &p.dataset, &p.day)
            .await?;
        let mut timed = Vec::with_capacity(records.len());
        for r in records {
            let (_, hour) = message::when(&p.dataset, &r).map_err(Error::internal)?;
            timed.push((hour, r));
        }
        let rows =
            load::rows(&p.dataset, p.seller_id, &token, &p.day, &timed).map_err(Error::internal)?;
        loader
            .replace(&load::slice(&p.dataset, p.seller_id, &p.day), rows)
            .await
            .map_err(|e| Error::internal(format!("loading stream hours: {e}")))?;
        s.sync.store.streams().made(&p).await?;
        made += 1;
        if p.dataset.ends_with("-traffic") || p.dataset == "budget-usage" {
            watched.insert((tenant, p.seller_id));
        }
    }
    queue_intraday(s, watched).await?;
    Ok(made)
}

/// Queues the intraday monitors of each merchant whose traffic or budget use was just made
/// (`watched`), each at most once per `monitor_every` from this consumer (and once while one
/// waits, whichever instance queued it).
async fn queue_intraday(
    s: &Streams,
    watched: std::collections::BTreeSet<(TenantId, i64)>,
) -> Result<()> {
    let every = stream_config(s)?.monitor_every;
    for (tenant, seller_id) in watched {
        let key = (tenant.as_str().to_owned(), seller_id);
        let due = {
            let mut seen = s.monitored.lock().unwrap_or_else(|p| p.into_inner());
            let due = seen.get(&key).is_none_or(|at| at.elapsed() >= every);
            if due {
                seen.insert(key, std::time::Instant::now());
            }
            due
        };
        if due {
            MonitorIntraday { seller_id }
                .enqueue_once(&s.sync.store, &tenant)
                .await?;
        }
    }
    Ok(())
}

fn keep(body: &str) -> String {
    let mut end = body.len().min(KEPT_BODY);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body[..end].to_owned()
}

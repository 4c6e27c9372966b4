//! Monitors' state: a tenant's own settings (a JSON document laid over the documented defaults
//! by `pp-intelligence`) and episodes. An episode is one monitor firing for one subject (an
//! item, a campaign, a merchant's month) from the day it started until the day it ended; an
//! evaluation opens the episodes that start, keeps the open ones seen again, and closes the
//! rest, each change with its event in the same transaction, so an alert is told once per
//! episode however often (and on however many instances) it is evaluated.

use pp_core::{Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row};
use crate::events::NewEvent;
use crate::jobs::now_ms;

/// The job that evaluates a tenant's monitors, one merchant's or (`None`) every one's
/// (`pp-intelligence` steps it; a sync that finishes queues it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MonitorRun {
    pub seller_id: Option<i64>,
}

impl crate::jobs::BackgroundJob for MonitorRun {
    const KIND: &'static str = "monitor_run";

    fn merchant(&self) -> Option<String> {
        self.seller_id.map(|s| s.to_string())
    }
}

/// The job that evaluates one merchant's intraday monitors on the stream's latest day, as its
/// hours arrive (`pp-intelligence` steps it; the stream consumer queues it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MonitorIntraday {
    pub seller_id: i64,
}

impl crate::jobs::BackgroundJob for MonitorIntraday {
    const KIND: &'static str = "monitor_intraday";

    fn merchant(&self) -> Option<String> {
        Some(self.seller_id.to_string())
    }
}

/// An episode as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeRow {
    pub monitor: String,
    pub subject: String,
    pub started_on: String,
    pub ended_on: Option<String>,
    pub last_seen_on: String,
    pub evidence: Value,
}

fn episode(r: &Row) -> Result<EpisodeRow> {
    Ok(EpisodeRow {
        monitor: r.text(0)?,
        subject: r.text(1)?,
        started_on: r.text(2)?,
        ended_on: r.opt_text(3)?,
        last_seen_on: r.text(4)?,
        evidence: r.json(5)?,
    })
}

const COLUMNS: &str = "monitor, subject, started_on, ended_on, last_seen_on, evidence";

/// What an episode's start or end tells: its event, and its entries on the brands' timelines.
#[derive(Debug, Clone)]
pub struct Told {
    pub event: NewEvent,
    pub timeline: Vec<crate::brand::NewEvent>,
}

/// One subject a monitor fires for.
#[derive(Debug, Clone)]
pub struct Firing {
    pub subject: String,
    /// The rows it read, as the episode keeps them.
    pub evidence: Value,
    /// What its episode's start tells.
    pub started: Told,
}

/// What one evaluation of one monitor over one merchant found on day `on`.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub monitor: String,
    /// The subjects of this evaluation (`{seller}:…`): open episodes of others are left alone.
    pub prefix: String,
    pub on: String,
    pub firing: Vec<Firing>,
    /// What an open episode's end tells, for a subject no longer firing on `on`.
    pub ended: fn(&EpisodeRow, &str) -> Result<Told>,
}

/// Who the monitors' timeline entries are by.
const BY: &str = "service:monitors";

async fn tell(tx: &mut crate::db::Tx, tenant: &str, t: &Told) -> Result<()> {
    crate::events::append_in(tx, tenant, &t.event).await?;
    let by = crate::brand::Author {
        actor: BY.into(),
        surface: "monitor".into(),
    };
    for entry in &t.timeline {
        crate::brand::timeline::insert(tx, tenant, entry, &by).await?;
    }
    Ok(())
}

/// What an evaluation changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changed {
    pub started: Vec<EpisodeRow>,
    pub ended: Vec<EpisodeRow>,
}

/// The monitors aggregate.
pub struct Monitors<'a>(pub(crate) &'a Db);

impl Monitors<'_> {
    /// The tenant's own settings, if it set any.
    pub async fn settings(&self, tenant: &TenantId) -> Result<Option<(Value, String, i64)>> {
        self.0
            .one(
                "SELECT settings, updated_by, updated_ms FROM monitor_settings WHERE tenant_id = ?1",
                args![tenant.as_str()],
            )
            .await?
            .map(|r| Ok((r.json(0)?, r.text(1)?, r.i64(2)?)))
            .transpose()
    }

    /// Replaces the tenant's own settings.
    pub async fn set_settings(&self, tenant: &TenantId, settings: &Value, by: &str) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO monitor_settings (tenant_id, settings, updated_by, updated_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (tenant_id) DO UPDATE SET settings = excluded.settings, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
                args![tenant.as_str(), settings.to_string(), by, now_ms()],
            )
            .await?;
        Ok(())
    }

    /// The tenant's episodes of `monitor` (every monitor when `None`), open ones only unless
    /// `all`, newest first.
    pub async fn episodes(
        &self,
        tenant: &TenantId,
        monitor: Option<&str>,
        all: bool,
        limit: i64,
    ) -> Result<Vec<EpisodeRow>> {
        let open = if all { "" } else { " AND ended_on IS NULL" };
        self.0
            .all(
                format!(
                    "SELECT {COLUMNS} FROM monitor_episodes WHERE tenant_id = ?1 AND (?2 IS NULL OR monitor = ?2){open}
                     ORDER BY started_on DESC, monitor, subject LIMIT ?3"
                ),
                args![tenant.as_str(), monitor, limit],
            )
            .await?
            .iter()
            .map(episode)
            .collect()
    }

    /// Applies one evaluation in one transaction: an episode starts for each firing subject
    /// without an open one (its event appended), an open one seen again is kept (its last day
    /// moved), and an open one of the evaluation's subjects not firing ends the day before
    /// `on` (its event appended). An evaluation of a day before an open episode's last day
    /// (a replay going back) changes nothing.
    pub async fn apply(&self, tenant: &TenantId, e: Evaluation) -> Result<Changed> {
        let tenant = tenant.as_str().to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("monitors/{tenant}/{}", e.monitor))
                        .await?;
                    let open = tx
                        .all(
                            format!(
                                "SELECT {COLUMNS} FROM monitor_episodes WHERE tenant_id = ?1 AND monitor = ?2 AND ended_on IS NULL AND subject LIKE ?3"
                            ),
                            args![&tenant, &e.monitor, format!("{}%", e.prefix)],
                        )
                        .await?
                        .iter()
                        .map(episode)
                        .collect::<Result<Vec<_>>>()?;
                    if open.iter().any(|o| o.last_seen_on > e.on) {
                        return Ok(Changed::default());
                    }
                    let mut changed = Changed::default();
                    for f in &e.firing {
                        let (subject, evidence) = (&f.subject, &f.evidence);
                        if let Some(o) = open.iter().find(|o| &o.subject == subject) {
                            tx.exec(
                                "UPDATE monitor_episodes SET last_seen_on = ?5 WHERE tenant_id = ?1 AND monitor = ?2 AND subject = ?3 AND started_on = ?4",
                                args![&tenant, &e.monitor, subject, &o.started_on, &e.on],
                            )
                            .await?;
                            continue;
                        }
                        let inserted = tx
                            .exec(
                                "INSERT INTO monitor_episodes (tenant_id, monitor, subject, started_on, last_seen_on, evidence)
                                 VALUES (?1, ?2, ?3, ?4, ?4, ?5) ON CONFLICT DO NOTHING",
                                args![&tenant, &e.monitor, subject, &e.on, evidence.to_string()],
                            )
                            .await?;
                        if inserted == 1 {
                            tell(tx, &tenant, &f.started).await?;
                            changed.started.push(EpisodeRow {
                                monitor: e.monitor.clone(),
                                subject: subject.clone(),
                                started_on: e.on.clone(),
                                ended_on: None,
                                last_seen_on: e.on.clone(),
                                evidence: evidence.clone(),
                            });
                        }
                    }
                    for o in open {
                        if e.firing.iter().any(|f| f.subject == o.subject) {
                            continue;
                        }
                        tx.exec(
                            "UPDATE monitor_episodes SET ended_on = ?5 WHERE tenant_id = ?1 AND monitor = ?2 AND subject = ?3 AND started_on = ?4",
                            args![&tenant, &e.monitor, &o.subject, &o.started_on, &e.on],
                        )
                        .await?;
                        tell(tx, &tenant, &(e.ended)(&o, &e.on)?).await?;
                        changed.ended.push(EpisodeRow {
                            ended_on: Some(e.on.clone()),
                            ..o
                        });
                    }
                    Ok(changed)
                })
            })
            .await
    }
}

//! Reports as rows: created, then queued, running and done (or fatal, or cancelled) as time
//! passes — the phase is read from the clock, so nothing runs in the background and a restart
//! loses nothing. The document is built from the world's facts when the report is first read
//! done, and kept.

use serde_json::Value;

use crate::error::SimError;
use crate::sim::Sim;

/// A report's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Queued,
    Running,
    Done,
    Fatal,
    Cancelled,
}

/// One stored report.
#[derive(Debug, Clone)]
pub struct ReportRow {
    pub id: String,
    pub created_ms: i64,
    pub ready_ms: i64,
    pub outcome: String,
    pub request: Value,
    pub document: Option<String>,
}

impl ReportRow {
    /// The phase at `now_ms`.
    pub fn phase(&self, now_ms: i64) -> Phase {
        if self.outcome == "cancelled" {
            return Phase::Cancelled;
        }
        let third = (self.ready_ms - self.created_ms) / 3;
        if now_ms < self.created_ms + third {
            Phase::Queued
        } else if now_ms < self.ready_ms {
            Phase::Running
        } else if self.outcome == "fatal" {
            Phase::Fatal
        } else {
            Phase::Done
        }
    }

    /// Whether it still runs.
    pub fn in_flight(&self, now_ms: i64) -> bool {
        matches!(self.phase(now_ms), Phase::Queued | Phase::Running)
    }
}

impl Phase {
    /// The selling side's name of the phase (reports 2021-06-30, data kiosk).
    pub fn sp_status(self) -> &'static str {
        match self {
            Phase::Queued => "IN_QUEUE",
            Phase::Running => "IN_PROGRESS",
            Phase::Done => "DONE",
            Phase::Fatal => "FATAL",
            Phase::Cancelled => "CANCELLED",
        }
    }
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// An ISO 8601 time of `ms`.
pub fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ReportRow> {
    Ok(ReportRow {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        ready_ms: r.get(2)?,
        outcome: r.get(3)?,
        request: serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or(Value::Null),
        document: r.get(5)?,
    })
}

const COLS: &str = "id, created_at, ready_at, outcome, request, document";

impl Sim {
    /// Stores a new report of `family` for `owner`.
    pub fn create_report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
        key: &str,
        request: &Value,
        fatal: bool,
    ) -> Result<ReportRow, SimError> {
        let created = now_ms();
        let r = ReportRow {
            id: id.to_owned(),
            created_ms: created,
            ready_ms: created + self.config.report_ms as i64,
            outcome: if fatal { "fatal" } else { "done" }.into(),
            request: request.clone(),
            document: None,
        };
        self.store.with(|c| {
            c.execute(
                "INSERT INTO reports (id, family, owner, request_key, created_at, ready_at, outcome, request) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![r.id, family, owner, key, r.created_ms, r.ready_ms, r.outcome, request.to_string()],
            )
        })?;
        Ok(r)
    }

    /// Records a report the provider made by itself (a scheduled one), done at `at_ms`;
    /// nothing when it is recorded already.
    pub fn schedule_report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
        request: &Value,
        at_ms: i64,
    ) -> Result<(), SimError> {
        self.store.with(|c| {
            c.execute(
                "INSERT INTO reports (id, family, owner, request_key, created_at, ready_at, outcome, request)
                 VALUES (?1, ?2, ?3, ?1, ?4, ?4, 'done', ?5) ON CONFLICT DO NOTHING",
                rusqlite::params![id, family, owner, at_ms, request.to_string()],
            )
        })?;
        Ok(())
    }

    /// `owner`'s report `id` of `family`.
    pub fn report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
    ) -> Result<Option<ReportRow>, SimError> {
        self.store.with(|c| {
            c.query_row(
                &format!("SELECT {COLS} FROM reports WHERE family = ?1 AND owner = ?2 AND id = ?3"),
                rusqlite::params![family, owner, id],
                row,
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
        })
    }

    /// `owner`'s reports of `family`, newest first; with `key`, only identical requests.
    pub fn reports(
        &self,
        family: &str,
        owner: &str,
        key: Option<&str>,
    ) -> Result<Vec<ReportRow>, SimError> {
        self.store.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLS} FROM reports WHERE family = ?1 AND owner = ?2 AND (?3 IS NULL OR request_key = ?3) ORDER BY created_at DESC, id DESC"
            ))?;
            let rows = st.query_map(rusqlite::params![family, owner, key], row)?;
            rows.collect()
        })
    }

    /// How many reports the provider holds, by family (what a duplicate create would add to).
    pub fn report_counts(&self) -> Result<Vec<(String, i64)>, SimError> {
        self.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT family, count(*) FROM reports GROUP BY family ORDER BY family",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })
    }

    /// Records the document built for report `id`.
    pub fn set_report_document(&self, id: &str, document: &str) -> Result<(), SimError> {
        self.store.with(|c| {
            c.execute(
                "UPDATE reports SET document = ?2 WHERE id = ?1",
                rusqlite::params![id, document],
            )
        })?;
        Ok(())
    }

    /// Cancels report `id` (only while it runs); whether it was.
    pub fn cancel_report(&self, r: &ReportRow) -> Result<bool, SimError> {
        if !r.in_flight(now_ms()) {
            return Ok(false);
        }
        self.store.with(|c| {
            c.execute(
                "UPDATE reports SET outcome = 'cancelled' WHERE id = ?1",
                [&r.id],
            )
        })?;
        Ok(true)
    }
}

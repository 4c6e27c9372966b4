//! Reports as rows: created, then queued, running and done (or fatal, or cancelled) as time
//! passes — the phase is read from the clock, so nothing runs in the background and a restart
//! loses nothing. The document is built from the world's facts when the report is first read
//! done, and kept.

use serde_json::Value;

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

pub(crate) fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ReportRow> {
    Ok(ReportRow {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        ready_ms: r.get(2)?,
        outcome: r.get(3)?,
        request: serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or(Value::Null),
        document: r.get(5)?,
    })
}

pub(crate) const COLS: &str = "id, created_at, ready_at, outcome, request, document";

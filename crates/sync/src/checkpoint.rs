//! A dataset job's checkpoint, as its row keeps it between steps: the run in progress, the
//! slice whose reports were asked for, and what the dataset found once (the advertising
//! profile, the DSP advertiser). Rows queued by an earlier release keep reading: a field is
//! only ever added, with a default. A checkpoint that does not read is the dataset's failure,
//! never a fresh start.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// The run in progress.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCk {
    pub started_ms: i64,
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// The next slice's first day (its last day when the run goes newest first).
    pub cursor: NaiveDate,
    /// Newest slice first: a first run and a backfill (runs of an earlier release went
    /// oldest first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub backwards: bool,
    /// A backfill: days older than any the warehouse held when it began.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub backfill: bool,
    /// The oldest day the provider lets this run read.
    #[serde(default)]
    pub earliest: Option<NaiveDate>,
    /// The oldest day the provider is still restating as this run reads (read again by the
    /// run after it, however late that comes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restating_from: Option<NaiveDate>,
    /// How many times this run asked for a slice's report again (the provider could not make
    /// it, or no longer had its document): the creates after it carry the count in their key,
    /// so the ledger sends a new request rather than hand back the report that failed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub asked_again: u32,
    /// When it last asked again (unix ms): an identical request sent before then is not
    /// reused either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_again_ms: Option<i64>,
}

impl RunCk {
    /// The next slice's days, `slice_days` long, or `None` when the run has read them all.
    pub fn next_slice(&self, slice_days: i64) -> Option<(NaiveDate, NaiveDate)> {
        match self.backwards {
            true => (self.cursor >= self.from)
                .then(|| crate::plan::slice_back(self.cursor, self.from, slice_days)),
            false => (self.cursor <= self.to)
                .then(|| crate::plan::slice(self.cursor, self.to, slice_days)),
        }
    }

    /// The slice after `days` in the run's order (older when it goes newest first), or
    /// `None` when `days` is its last.
    pub fn after(
        &self,
        days: (NaiveDate, NaiveDate),
        slice_days: i64,
    ) -> Option<(NaiveDate, NaiveDate)> {
        let mut rest = self.clone();
        rest.past(days);
        rest.next_slice(slice_days)
    }

    /// Moves the cursor past the slice `from..=to` just loaded.
    pub fn past(&mut self, (from, to): (NaiveDate, NaiveDate)) {
        self.cursor = match self.backwards {
            // (a run that reaches the provider's first day ends below it)
            true => from.pred_opt().unwrap_or(NaiveDate::MIN),
            false => to.succ_opt().unwrap_or(NaiveDate::MAX),
        };
    }
}

/// The slice whose reports were asked for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportCk {
    pub id: String,
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// A second report the slice needs (the inventory's latest day: its inbound units; a
    /// vendor's traffic beside its sales).
    #[serde(default)]
    pub also: Option<String>,
    /// The slice's further reports (search query performance: one per list of ASINs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    /// How many times the slice's reports were looked at and found still being made.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub looks: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ReportCk {
    /// The report `id`, covering `from..=to`.
    pub fn new(id: String, (from, to): (NaiveDate, NaiveDate)) -> Self {
        Self {
            id,
            from,
            to,
            also: None,
            parts: Vec::new(),
            looks: 0,
        }
    }

    /// The slice's days.
    pub fn days(&self) -> (NaiveDate, NaiveDate) {
        (self.from, self.to)
    }
}

/// What a dataset job keeps between steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    pub run: Option<RunCk>,
    /// The slice loaded next, its reports asked for.
    pub report: Option<ReportCk>,
    /// The slices after it whose reports were asked for too (in the run's order), made by
    /// the provider meanwhile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ahead: Vec<ReportCk>,
    /// The advertising profile an advertising dataset reads (found once).
    pub profile: Option<i64>,
    /// The DSP advertiser the DSP dataset reads (found once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsp: Option<crate::readers::dsp::Dsp>,
}

impl Checkpoint {
    /// The checkpoint a job row holds: `{}` (a new job) is a fresh start; anything else that
    /// does not read as one is an error naming why.
    pub fn read(state: &serde_json::Value) -> pp_core::Result<Self> {
        serde_json::from_value(state.clone()).map_err(|e| {
            pp_core::Error::new(
                pp_core::Kind::Unknown,
                format!("the dataset's checkpoint does not read ({e}): it was kept as it is, and nothing was started over"),
            )
            .with_fix("Tell the gateway's operator: the warehouse keeps what was loaded, and the dataset waits until its checkpoint is mended.")
        })
    }
}

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
    pub cursor: NaiveDate,
    /// The oldest day the provider lets this run read.
    #[serde(default)]
    pub earliest: Option<NaiveDate>,
    /// The oldest day the provider is still restating as this run reads (read again by the
    /// run after it, however late that comes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restating_from: Option<NaiveDate>,
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
    pub report: Option<ReportCk>,
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

//! When the outcome of a committed change can be read: the rule `INS-CHANGE-OUTCOME-01` windows
//! by, shared by the doors that link to it (the audit record, the timeline's `ads_change`
//! projection). A change committed on a day is in force from the next day on; its outcome
//! compares `WINDOW_DAYS` from then with as many days before the commit, once the provider has
//! stopped restating the last of them: a day's advertising figures grow as late attribution
//! arrives until `SETTLES_AFTER_DAYS` have passed.

use chrono::{DateTime, Duration, NaiveDate};
use serde::Serialize;

/// The outcome request's id.
pub const REQUEST: &str = "INS-CHANGE-OUTCOME-01";
/// Days each window holds by default (whole weeks, so both windows hold the same weekdays).
pub const WINDOW_DAYS: i64 = 14;
/// A day's advertising figures are final once this many days have passed: with data through
/// day L (read on L + 1), the days through L − 13 are settled and the 13 after are restating.
pub const SETTLES_AFTER_DAYS: i64 = 14;

/// The last settled day of data that runs through `last`.
pub fn last_settled(last: NaiveDate) -> NaiveDate {
    last - Duration::days(SETTLES_AFTER_DAYS - 1)
}

/// Where an audited write's outcome is read, and from when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeLink {
    /// The intelligence request that reads it.
    pub request: &'static str,
    /// Its `params` besides the merchant: `{ "auditId": … }`.
    pub params: serde_json::Value,
    /// The first day the whole window can be read (its data settled and synced).
    pub readable_from: String,
    /// Whether that day has come.
    pub ready: bool,
}

/// The day a write committed at `committed_ms` took full effect: the day after the commit.
pub fn first_full_day(committed_ms: i64) -> NaiveDate {
    let day = DateTime::from_timestamp_millis(committed_ms)
        .map(|t| t.date_naive())
        .unwrap_or_default();
    day + Duration::days(1)
}

/// The clock day from which a change in force from `first_day` can be read over `window`
/// days: its last day is then settled (no longer restated) and in yesterday's data.
pub fn readable_from(first_day: NaiveDate, window: i64) -> NaiveDate {
    first_day + Duration::days(window - 1 + SETTLES_AFTER_DAYS)
}

/// The link an audited write committed at `committed_ms` carries, as of `now_ms`.
pub fn link(audit_id: &str, committed_ms: i64, now_ms: i64) -> OutcomeLink {
    let from = readable_from(first_full_day(committed_ms), WINDOW_DAYS);
    let today = DateTime::from_timestamp_millis(now_ms)
        .map(|t| t.date_naive())
        .unwrap_or_default();
    OutcomeLink {
        request: REQUEST,
        params: serde_json::json!({ "auditId": audit_id }),
        readable_from: from.to_string(),
        ready: today >= from,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_is_readable_once_its_window_has_settled() {
        // committed 2026-11-01 10:00 UTC: in force from 11-02, window 11-02..11-15, the 15th
        // settled once data reaches the 28th, which is there on the 29th
        let at = DateTime::parse_from_rfc3339("2026-11-01T10:00:00Z")
            .unwrap()
            .timestamp_millis();
        let day = |d: &str| {
            DateTime::parse_from_rfc3339(&format!("{d}T00:00:00Z"))
                .unwrap()
                .timestamp_millis()
        };
        let l = link("au_1", at, day("2026-11-28"));
        assert_eq!(l.readable_from, "2026-11-29");
        assert!(!l.ready);
        assert!(link("au_1", at, day("2026-11-29")).ready);
    }
}

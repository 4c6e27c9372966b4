//! The two windows an outcome compares: as many whole weeks after the change as the settled
//! data holds (up to the days asked for), and the same number of days just before it (before
//! a day the change took effect part-way through), so both hold the same weekdays. Advertising
//! days the provider is still restating are left out and named.

use chrono::Duration;
use chrono::NaiveDate;
use pp_core::outcome::{last_settled, readable_from};
use pp_core::{Error, Kind, Result};
use schemars::JsonSchema;
use serde::Serialize;

use super::change::Change;
use crate::params::Period;

/// The windows, and the days left out of them with why.
#[derive(Debug, Clone)]
pub struct Windows {
    pub before: Period,
    pub after: Period,
    pub left_out: Vec<LeftOut>,
}

/// Days left out of the windows, and why.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OutcomeLeftOut")]
pub struct LeftOut {
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub why: String,
}

impl Windows {
    /// Days in each window.
    pub fn days(&self) -> i64 {
        self.after.days()
    }

    /// From the first day before to the last day after.
    pub fn span(&self) -> Period {
        Period {
            start: self.before.start,
            end: self.after.end,
        }
    }
}

/// The windows of `change` over `want` days, given the retail data's days (`retail`, when
/// the outcome reads retail) and the advertising data's (`ads`, when it reads advertising).
pub fn of(
    change: &Change,
    want: i64,
    retail: Option<Period>,
    ads: Option<Period>,
) -> Result<Windows> {
    let mut left_out = Vec::new();
    let mut last = None;
    let mut first = None;
    if let Some(r) = retail {
        last = Some(r.end);
        first = Some(r.start);
    }
    if let Some(a) = ads {
        let settled = last_settled(a.end);
        if settled < a.end {
            left_out.push(LeftOut {
                start: settled + Duration::days(1),
                end: a.end,
                why: "advertising figures the provider is still restating as late attribution arrives".into(),
            });
        }
        last = Some(last.map_or(settled, |l: NaiveDate| l.min(settled)));
        first = Some(first.map_or(a.start, |f: NaiveDate| f.max(a.start)));
    }
    let (Some(last), Some(data_start)) = (last, first) else {
        return Err(Error::internal(
            "an outcome reads retail or advertising data",
        ));
    };
    let settled_days = (last - change.first_day).num_days() + 1;
    let days = want.min(settled_days.max(0) / 7 * 7);
    if days < 7 {
        return Err(Error::new(
            Kind::NoDataForPeriod,
            format!(
                "the first week from {} is not in the settled data yet (it runs through {last})",
                change.first_day
            ),
        )
        .with_field(
            "readableFrom",
            readable_from(change.first_day, want).to_string(),
        )
        .with_field("settledThrough", last.to_string())
        .with_fix("Ask again from readableFrom, once the days after the change have settled."));
    }
    if days < want {
        left_out.push(LeftOut {
            start: change.first_day + Duration::days(days),
            end: change.first_day + Duration::days(want - 1),
            why: format!("not settled yet: the windows are shortened to {days} days (whole weeks)"),
        });
    }
    if let Some(d) = change.partial_day {
        left_out.push(LeftOut {
            start: d,
            end: d,
            why: "the change took effect part-way through this day".into(),
        });
    }
    let after = Period {
        start: change.first_day,
        end: change.first_day + Duration::days(days - 1),
    };
    let before_end = change.partial_day.unwrap_or(change.first_day) - Duration::days(1);
    let before = Period {
        start: before_end - Duration::days(days - 1),
        end: before_end,
    };
    if before.start < data_start {
        return Err(Error::new(
            Kind::NoDataForPeriod,
            format!(
                "the {days} days before the change start on {}, before the data ({data_start})",
                before.start
            ),
        )
        .with_field("dataFrom", data_start.to_string()));
    }
    Ok(Windows {
        before,
        after,
        left_out,
    })
}

//! Which days a run reads and how it cuts them into slices, as pure functions of the
//! provider's today, the dataset's lookback and the warehouse's coverage: a first run
//! backfills from the oldest day the provider allows; a later run reads from the oldest day
//! the warehouse lacks or the provider still restates — counting the days that were still
//! restating when the warehouse was last read, however long ago — through yesterday.

use chrono::{Datelike, Days, NaiveDate, Weekday};

/// What a run is planned against: the provider's today, how far back it reaches, and how
/// many days it is still restating.
#[derive(Debug, Clone, Copy)]
pub struct Read {
    pub today: NaiveDate,
    pub lookback_days: i64,
    pub restate_days: i64,
}

impl Read {
    /// The oldest day the provider is still restating today.
    pub fn restating_from(&self) -> Option<NaiveDate> {
        self.today
            .checked_sub_days(Days::new(self.restate_days.max(0) as u64))
    }

    /// The days one run reads, `from..=to`, or `None` when the warehouse is current.
    ///
    /// A first run (nothing loaded) backfills from the oldest day the provider reaches. A
    /// later one reads from the oldest of: the first day the warehouse lacks (after
    /// `data_through`), the oldest day the provider restates now, and `restating_then`, the
    /// oldest day it was still restating at the dataset's last finished run — however long
    /// ago that was, so a gap of any length between runs converges to the provider's values.
    pub fn days(
        &self,
        data_through: Option<NaiveDate>,
        restating_then: Option<NaiveDate>,
    ) -> Option<(NaiveDate, NaiveDate)> {
        let last = self.today.pred_opt()?;
        let earliest = self
            .today
            .checked_sub_days(Days::new(self.lookback_days.max(1) as u64))?;
        let from = match data_through {
            None => earliest,
            Some(through) => {
                let mut from = through.succ_opt()?.min(self.restating_from()?);
                if let Some(then) = restating_then {
                    from = from.min(then);
                }
                from.max(earliest)
            }
        };
        (from <= last).then_some((from, last))
    }
}

/// The days one run reads, with no record of the last run's restating days (see
/// [`Read::days`]).
pub fn run_days(
    today: NaiveDate,
    lookback_days: i64,
    restate_days: i64,
    data_through: Option<NaiveDate>,
) -> Option<(NaiveDate, NaiveDate)> {
    let read = Read {
        today,
        lookback_days,
        restate_days,
    };
    read.days(data_through, None)
}

/// A run's days cut to whole weeks (Sunday to Saturday) for a weekly dataset: the first
/// week is the one holding `from` (or the next whole week when that one starts before
/// `earliest`, the oldest day the provider reaches), the last the one ending on or before
/// `to`. `None` when no whole week is left.
pub fn whole_weeks(
    (from, to): (NaiveDate, NaiveDate),
    earliest: NaiveDate,
) -> Option<(NaiveDate, NaiveDate)> {
    let sunday = |d: NaiveDate| d - Days::new(d.weekday().num_days_from_sunday().into());
    let mut start = sunday(from);
    if start < earliest {
        start = sunday(earliest) + Days::new(if sunday(earliest) < earliest { 7 } else { 0 });
    }
    let end = to - Days::new(u64::from((to.weekday().num_days_from_sunday() + 1) % 7));
    debug_assert_eq!(end.weekday(), Weekday::Sat);
    (start < end).then_some((start, end))
}

/// The slice that starts at `cursor`: `slice_days` days, cut at `to`.
pub fn slice(cursor: NaiveDate, to: NaiveDate, slice_days: i64) -> (NaiveDate, NaiveDate) {
    let end = cursor
        .checked_add_days(Days::new(slice_days.max(1) as u64 - 1))
        .unwrap_or(to)
        .min(to);
    (cursor, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_first_run_backfills_and_later_runs_reread_the_restated_days() {
        let today = d("2026-11-22");
        assert_eq!(
            run_days(today, 730, 3, None),
            Some((d("2024-11-22"), d("2026-11-21")))
        );
        // current through yesterday: only the restated days again
        assert_eq!(
            run_days(today, 730, 3, Some(d("2026-11-21"))),
            Some((d("2026-11-19"), d("2026-11-21")))
        );
        // a gap older than the restatement window is filled from its first missing day
        assert_eq!(
            run_days(today, 730, 3, Some(d("2026-11-01"))),
            Some((d("2026-11-02"), d("2026-11-21")))
        );
        // nothing restated and nothing missing: no run
        assert_eq!(run_days(today, 730, 0, Some(d("2026-11-21"))), None);
        // a warehouse older than the lookback starts where the provider still reaches
        assert_eq!(
            run_days(today, 60, 14, Some(d("2020-01-01"))),
            Some((d("2026-09-23"), d("2026-11-21")))
        );
    }

    #[test]
    fn days_still_restating_at_the_last_run_are_read_again_however_late() {
        // read on 11-15 (restating from 11-01), then nothing for a week
        let read = Read {
            today: d("2026-11-22"),
            lookback_days: 95,
            restate_days: 14,
        };
        assert_eq!(
            read.days(Some(d("2026-11-14")), Some(d("2026-11-01"))),
            Some((d("2026-11-01"), d("2026-11-21")))
        );
        assert_eq!(read.restating_from(), Some(d("2026-11-08")));
        // run daily, the window alone decides
        assert_eq!(
            read.days(Some(d("2026-11-21")), Some(d("2026-11-07"))),
            Some((d("2026-11-07"), d("2026-11-21")))
        );
        // never older than the provider reaches
        assert_eq!(
            read.days(Some(d("2026-01-01")), Some(d("2025-12-01"))),
            Some((d("2026-08-19"), d("2026-11-21")))
        );
    }

    #[test]
    fn a_weekly_run_reads_whole_weeks_within_reach() {
        // the world's today is a Sunday: the last whole week ended yesterday
        let today = d("2026-11-22");
        let earliest = d("2024-11-24");
        assert_eq!(
            whole_weeks((earliest, d("2026-11-21")), earliest),
            Some((d("2024-11-24"), d("2026-11-21")))
        );
        // a reach that starts mid-week begins with the next whole week
        assert_eq!(
            whole_weeks((d("2024-11-25"), d("2026-11-22")), d("2024-11-25")),
            Some((d("2024-12-01"), d("2026-11-21")))
        );
        // the re-read of the last days reads their whole week again
        let (from, to) = run_days(today, 728, 3, Some(d("2026-11-21"))).unwrap();
        assert_eq!(
            whole_weeks((from, to), earliest),
            Some((d("2026-11-15"), d("2026-11-21")))
        );
        // mid-week, with the last whole week loaded and past its re-read: nothing to read
        let (from, to) = run_days(d("2026-11-25"), 728, 3, Some(d("2026-11-21"))).unwrap();
        assert_eq!(whole_weeks((from, to), earliest), None);
    }

    #[test]
    fn slices_cover_the_run_without_passing_its_end() {
        assert_eq!(
            slice(d("2026-11-01"), d("2026-11-21"), 7),
            (d("2026-11-01"), d("2026-11-07"))
        );
        assert_eq!(
            slice(d("2026-11-20"), d("2026-11-21"), 7),
            (d("2026-11-20"), d("2026-11-21"))
        );
        assert_eq!(
            slice(d("2026-11-20"), d("2026-11-21"), 1),
            (d("2026-11-20"), d("2026-11-20"))
        );
    }
}

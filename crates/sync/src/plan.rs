//! Which days a run reads and how it cuts them into slices, as pure functions of the
//! provider's today, the dataset's lookback and the warehouse's coverage. Last month first:
//! a first run reads the most recent [`RECENT_DAYS`] days, newest slice first, so the
//! warehouse is current within minutes; backfill runs then read older days a chunk at a time,
//! newest first, down to the oldest day the provider allows, so the covered days never have a
//! hole. A new day (or a daily run once the backfill is done) is a forward run: from the
//! oldest day the warehouse lacks or the provider still restates — counting the days that were
//! still restating when the warehouse was last read, however long ago — through yesterday.

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

/// How many recent days a first run reads before anything older.
pub const RECENT_DAYS: u64 = 35;

/// The days a run reads, and which way it goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// Newest slice first (a first run, a backfill), or oldest first (a forward run).
    pub backwards: bool,
    /// Days older than any the warehouse holds (a backfill), not the newest ones.
    pub backfill: bool,
    /// Older days than the warehouse holds are still to fetch (by this run or after it).
    pub older_left: bool,
}

/// What the warehouse holds of a dataset: its newest and oldest day, and the oldest day the
/// provider was still restating at its last forward run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Held {
    pub data_through: Option<NaiveDate>,
    pub covered_from: Option<NaiveDate>,
    pub restating_then: Option<NaiveDate>,
}

impl Read {
    /// The oldest day the provider lets a run read.
    pub fn earliest(&self) -> Option<NaiveDate> {
        self.today
            .checked_sub_days(Days::new(self.lookback_days.max(1) as u64))
    }

    /// The oldest day a run can hold: the provider's first day, or for a `weekly` dataset the
    /// first Sunday on or after it (a backfill ends there).
    pub fn reach(&self, weekly: bool) -> Option<NaiveDate> {
        let earliest = self.earliest()?;
        if !weekly {
            return Some(earliest);
        }
        let back = u64::from(earliest.weekday().num_days_from_sunday());
        Some(match back {
            0 => earliest,
            n => earliest + Days::new(7 - n),
        })
    }

    /// The next run, or `None` when the warehouse is current and whole: with nothing held,
    /// the last [`RECENT_DAYS`] days backwards; with a day missing at the recent end, a
    /// forward run; with older days still to fetch, the next `chunk_days` of them backwards;
    /// otherwise the forward re-read of the restated days (a daily run). A `weekly` dataset's
    /// runs are cut to whole weeks (`chunk_days` a multiple of 7 keeps its backfill whole).
    pub fn next(&self, held: Held, chunk_days: u64, weekly: bool) -> Option<Run> {
        let last = self.today.pred_opt()?;
        let earliest = self.earliest()?;
        let fit = |run: Run| match weekly {
            false => Some(run),
            true => {
                whole_weeks((run.from, run.to), earliest).map(|(from, to)| Run { from, to, ..run })
            }
        };
        let (Some(through), Some(covered)) = (held.data_through, held.covered_from) else {
            let from = last
                .checked_sub_days(Days::new(RECENT_DAYS - 1))?
                .max(earliest);
            let reach = self.reach(weekly)?;
            return fit(Run {
                from,
                to: last,
                backwards: true,
                backfill: false,
                older_left: true,
            })
            .map(|run| Run {
                older_left: run.from > reach,
                ..run
            });
        };
        // (a weekly dataset holds from the first Sunday within reach)
        let left = covered > self.reach(weekly)?;
        let forward = || {
            let (from, to) = self.days(Some(through), held.restating_then)?;
            fit(Run {
                from,
                to,
                backwards: false,
                backfill: false,
                older_left: left,
            })
        };
        if (through < last || !left)
            && let Some(run) = forward()
        {
            return Some(run);
        }
        if !left {
            return None;
        }
        let from = covered
            .checked_sub_days(Days::new(chunk_days.max(1)))?
            .max(earliest);
        fit(Run {
            from,
            to: covered.pred_opt()?,
            backwards: true,
            backfill: true,
            older_left: true,
        })
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

/// How many days one backfill run reads: about a month, in whole slices (a weekly dataset's
/// four-week slices make it whole weeks). A forward run for a new day waits at most one such
/// run.
pub fn chunk_days(slice_days: i64) -> u64 {
    let slice = slice_days.max(1) as u64;
    slice * 31u64.div_ceil(slice)
}

/// The slice that ends at `cursor` (a run read newest first): `slice_days` days, cut at
/// `from`.
pub fn slice_back(cursor: NaiveDate, from: NaiveDate, slice_days: i64) -> (NaiveDate, NaiveDate) {
    let start = cursor
        .checked_sub_days(Days::new(slice_days.max(1) as u64 - 1))
        .unwrap_or(from)
        .max(from);
    (start, cursor)
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
    fn last_month_comes_first_then_older_days_newest_first_without_a_hole() {
        let read = Read {
            today: d("2026-11-22"),
            lookback_days: 730,
            restate_days: 3,
        };
        let chunk = chunk_days(1);
        assert_eq!(chunk, 31);
        // nothing held: the last 35 days, newest first
        let first = read.next(Held::default(), chunk, false).unwrap();
        assert_eq!(
            first,
            Run {
                from: d("2026-10-18"),
                to: d("2026-11-21"),
                backwards: true,
                backfill: false,
                older_left: true,
            }
        );
        // then the month before what is held, newest first, ending the day before it
        let held = |from: &str| Held {
            data_through: Some(d("2026-11-21")),
            covered_from: Some(d(from)),
            restating_then: Some(d("2026-11-19")),
        };
        let back = read.next(held("2026-10-18"), chunk, false).unwrap();
        assert_eq!(
            (back.from, back.to, back.backwards, back.backfill),
            (d("2026-09-17"), d("2026-10-17"), true, true)
        );
        // down to the provider's first day, and no further
        let back = read.next(held("2024-12-01"), chunk, false).unwrap();
        assert_eq!((back.from, back.to), (d("2024-11-22"), d("2024-11-30")));
        // a new day comes before older ones
        let newer = Held {
            data_through: Some(d("2026-11-20")),
            ..held("2026-10-18")
        };
        let fwd = read.next(newer, chunk, false).unwrap();
        assert_eq!(
            (fwd.from, fwd.to, fwd.backwards, fwd.older_left),
            (d("2026-11-19"), d("2026-11-21"), false, true)
        );
        // whole: the daily re-read
        let fwd = read.next(held("2024-11-22"), chunk, false).unwrap();
        assert_eq!(
            (fwd.from, fwd.to, fwd.backfill, fwd.older_left),
            (d("2026-11-19"), d("2026-11-21"), false, false)
        );
        // a weekly dataset: whole weeks, four-week slices, eight-week backfills
        let weekly = Read {
            lookback_days: 728,
            ..read
        };
        let first = weekly.next(Held::default(), chunk_days(28), true).unwrap();
        assert_eq!((first.from, first.to), (d("2026-10-18"), d("2026-11-21")));
        let held = Held {
            data_through: Some(d("2026-11-21")),
            covered_from: Some(d("2026-10-18")),
            restating_then: None,
        };
        let back = weekly.next(held, chunk_days(28), true).unwrap();
        assert_eq!((back.from, back.to), (d("2026-08-23"), d("2026-10-17")));
        // mid-week with the last whole week held: the backfill, not an empty forward run
        let later = Read {
            today: d("2026-11-25"),
            ..weekly
        };
        assert!(later.next(held, chunk_days(28), true).unwrap().backfill);
    }

    #[test]
    fn a_backwards_run_slices_from_its_newest_day() {
        assert_eq!(
            slice_back(d("2026-11-21"), d("2026-11-01"), 7),
            (d("2026-11-15"), d("2026-11-21"))
        );
        assert_eq!(
            slice_back(d("2026-11-03"), d("2026-11-01"), 7),
            (d("2026-11-01"), d("2026-11-03"))
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

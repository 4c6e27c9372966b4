//! The world's exchange rates: reference rates against the euro for each working day, as a
//! central bank publishes them (the ECB's daily file: units of a currency per euro, four
//! decimals), walking from realistic levels. A weekend or holiday takes the last working
//! day's rate. Converting an amount is one rule, used by the ground truth and documented for
//! the product: `amount × rate(to) ÷ rate(from)` on the posted date, rounded half away from
//! zero to the cent.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

use crate::rng::Rng;

/// The currencies the world has rates for, beside the euro, in the file's column order.
pub const CURRENCIES: [&str; 3] = ["USD", "CAD", "MXN"];

/// One working day's rates: units of each of [`CURRENCIES`] per euro, times 10,000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Day {
    pub date: NaiveDate,
    pub per_eur_e4: [i64; 3],
}

/// The rates of every working day from the origin.
pub struct Rates {
    origin: NaiveDate,
    /// Indexed by day from the origin; weekends hold the Friday before (or the first day's).
    days: Vec<Day>,
}

impl Rates {
    /// Draws `days` days of rates from the origin. Day by day from the origin, so a world moved
    /// forward keeps every rate it had.
    pub fn draw(origin: NaiveDate, days: i64, rng: &mut Rng) -> Rates {
        let start = [10_850.0_f64, 14_700.0, 185_000.0];
        let mut level = start;
        let mut out: Vec<Day> = Vec::with_capacity(days.max(0) as usize);
        for d in 0..days {
            let date = origin + Duration::days(d);
            let working = !matches!(date.weekday(), Weekday::Sat | Weekday::Sun);
            if working || out.is_empty() {
                for (k, l) in level.iter_mut().enumerate() {
                    // a small daily move, pulled gently back toward where it began
                    let step = (rng.unit() - 0.5) * [0.010, 0.010, 0.016][k];
                    *l *= 1.0 + step - 0.002 * (*l / start[k] - 1.0);
                }
                out.push(Day {
                    date,
                    per_eur_e4: level.map(|l| l.round() as i64),
                });
            } else {
                let last = *out.last().expect("a day before");
                out.push(Day { date, ..last });
            }
        }
        Rates { origin, days: out }
    }

    /// The rates in force on `date` (the last working day's on or before it).
    pub fn on(&self, date: NaiveDate) -> &Day {
        let i = (date - self.origin)
            .num_days()
            .clamp(0, self.days.len() as i64 - 1);
        &self.days[i as usize]
    }

    /// Every working day's rates, in order (what a reference-rate file lists), and the first
    /// day's whatever day it is, so every posted date has a rate on or before it.
    pub fn published(&self) -> impl Iterator<Item = &Day> {
        self.days.iter().enumerate().filter_map(|(i, d)| {
            (i == 0 || !matches!(d.date.weekday(), Weekday::Sat | Weekday::Sun)).then_some(d)
        })
    }
}

/// Units of `currency` per euro on that day, times 10,000 (the euro itself is 10,000).
pub fn per_eur(day: &Day, currency: &str) -> i64 {
    CURRENCIES
        .iter()
        .position(|c| *c == currency)
        .map_or(10_000, |k| day.per_eur_e4[k])
}

/// `cents` of `from` in `to` at `day`'s rates, rounded half away from zero to the cent.
pub fn convert(cents: i64, from: &str, to: &str, day: &Day) -> i64 {
    if from == to {
        return cents;
    }
    let (num, den) = (
        i128::from(cents) * i128::from(per_eur(day, to)),
        i128::from(per_eur(day, from)),
    );
    let q = (2 * num.abs() + den) / (2 * den);
    (q * num.signum()) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_rounds_half_away_from_zero() {
        let day = Day {
            date: NaiveDate::from_ymd_opt(2026, 1, 5).unwrap(),
            per_eur_e4: [10_000, 20_000, 180_000],
        };
        // 1 CAD cent = 0.5 USD cent: half rounds away from zero, both ways
        assert_eq!(convert(1, "CAD", "USD", &day), 1);
        assert_eq!(convert(-1, "CAD", "USD", &day), -1);
        assert_eq!(convert(-3, "CAD", "USD", &day), -2);
        assert_eq!(convert(1_800, "MXN", "USD", &day), 100);
        assert_eq!(convert(123, "USD", "USD", &day), 123);
    }

    #[test]
    fn weekends_keep_fridays_rate() {
        let origin = NaiveDate::from_ymd_opt(2026, 1, 2).unwrap(); // a Friday
        let r = Rates::draw(origin, 10, &mut Rng::new(3));
        let (fri, sat, mon) = (
            r.on(origin),
            r.on(origin + Duration::days(1)),
            r.on(origin + Duration::days(3)),
        );
        assert_eq!(fri.per_eur_e4, sat.per_eur_e4);
        assert_ne!(fri.per_eur_e4, mon.per_eur_e4);
        assert_eq!(r.published().count(), 6, "Fri 2, Mon 5 to Fri 9");
    }
}

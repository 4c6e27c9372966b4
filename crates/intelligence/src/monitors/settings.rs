//! A tenant's monitor settings: each monitor's switch and thresholds, with the documented
//! defaults (docs/events.md#monitors). A tenant's own document names only what it changes; what
//! it leaves out keeps the default. Read strictly: an unknown field or an out-of-range value is
//! `bad_params` and nothing is saved.

use pp_core::{Error, Kind, Result};
use serde::{Deserialize, Serialize};

/// Every monitor's settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct MonitorSettings {
    pub stockout: Stockout,
    pub low_cover: LowCover,
    pub out_of_budget: OutOfBudget,
    pub out_of_budget_by_hour: OutOfBudgetByHour,
    pub spend_off_plan: SpendOffPlan,
    pub spend_pace_by_hour: SpendPaceByHour,
    pub anomaly: Anomaly,
    pub hourly_anomaly: HourlyAnomaly,
}

/// An item with recent sales at zero sellable units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Stockout {
    pub enabled: bool,
    /// "Recent sales": units sold over this many days before the day.
    pub recent_days: i64,
    /// At least this many units sold over them.
    pub min_recent_units: i64,
}

/// An item whose sellable units cover fewer weeks of its recent sales than `weeks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct LowCover {
    pub enabled: bool,
    pub weeks: f64,
    /// The days whose sales set the weekly rate.
    pub recent_days: i64,
    /// At least this many units sold over them (a rate from two sales says little).
    pub min_recent_units: i64,
}

/// A campaign that spent (nearly) its whole daily budget `days` days running.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct OutOfBudget {
    pub enabled: bool,
    pub days: i64,
    /// The share of the day's budget spent that counts as all of it.
    pub share: f64,
}

/// A campaign whose streamed budget use reached `share` of the day's budget before `hour`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct OutOfBudgetByHour {
    pub enabled: bool,
    /// The hour of the day (marketplace time) it must last until: spent out in an earlier hour
    /// fires.
    pub hour: i64,
    /// The share of the day's budget that counts as all of it.
    pub share: f64,
}

/// Month-to-date advertising spend off the month's plan (forecast state's `adBudget`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct SpendOffPlan {
    pub enabled: bool,
    /// Off by more than this share of the plan to date (either way).
    pub share: f64,
    /// Not before this many days of the month have passed.
    pub min_days: i64,
}

/// Month-to-date advertising spend off the month's plan at an hour of the day (the stream's
/// hours), against the plan to that hour: the month's budget over its days, the day's part
/// taken from the merchant's usual spend by hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct SpendPaceByHour {
    pub enabled: bool,
    /// Off by more than this share of the plan to the hour (either way).
    pub share: f64,
    /// Hours before this one are not judged (little is spent by then).
    pub from_hour: i64,
    /// Not before this many days of the month have passed.
    pub min_days: i64,
}

/// A campaign's hour outside the range of the same hour on the days before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct HourlyAnomaly {
    pub enabled: bool,
    /// The days before whose same hour sets the range.
    pub window_days: i64,
    /// Outside the mean by more than this many standard deviations.
    pub z: f64,
    /// Minimum samples in the hour: clicks (spend, cost per click), impressions (CTR).
    pub min_clicks: i64,
    pub min_impressions: i64,
    /// At least this many days of the window must meet the minimum at that hour too.
    pub min_days: i64,
}

/// A campaign's metric outside its own recent range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Anomaly {
    pub enabled: bool,
    /// The days before that set the range.
    pub window_days: i64,
    /// Outside the mean by more than this many standard deviations.
    pub z: f64,
    /// Minimum samples on the day: clicks (spend, conversion), orders (sales, ACOS),
    /// impressions (CTR); below them nothing is said.
    pub min_clicks: i64,
    pub min_orders: i64,
    pub min_impressions: i64,
    /// At least this many days of the window must meet the minimum too.
    pub min_days: i64,
}

impl Default for Stockout {
    fn default() -> Self {
        Self {
            enabled: true,
            recent_days: 28,
            min_recent_units: 1,
        }
    }
}

impl Default for LowCover {
    fn default() -> Self {
        Self {
            enabled: true,
            weeks: 2.0,
            recent_days: 28,
            min_recent_units: 10,
        }
    }
}

impl Default for OutOfBudget {
    fn default() -> Self {
        Self {
            enabled: true,
            days: 3,
            share: 0.98,
        }
    }
}

impl Default for OutOfBudgetByHour {
    fn default() -> Self {
        Self {
            enabled: true,
            hour: 18,
            share: 0.95,
        }
    }
}

impl Default for SpendOffPlan {
    fn default() -> Self {
        Self {
            enabled: true,
            share: 0.2,
            min_days: 7,
        }
    }
}

impl Default for SpendPaceByHour {
    fn default() -> Self {
        Self {
            enabled: true,
            share: 0.2,
            from_hour: 6,
            min_days: 7,
        }
    }
}

impl Default for HourlyAnomaly {
    fn default() -> Self {
        Self {
            enabled: true,
            window_days: 28,
            z: 4.0,
            min_clicks: 20,
            min_impressions: 1000,
            min_days: 14,
        }
    }
}

impl Default for Anomaly {
    fn default() -> Self {
        Self {
            enabled: true,
            window_days: 28,
            z: 4.0,
            min_clicks: 100,
            min_orders: 10,
            min_impressions: 5000,
            min_days: 14,
        }
    }
}

fn bad(message: String) -> Error {
    Error::new(Kind::BadParams, message)
}

impl MonitorSettings {
    /// A tenant's document laid over the defaults, checked.
    pub fn read(doc: &serde_json::Value) -> Result<Self> {
        let s: Self = pp_core::wire::from_json("monitor settings", doc.clone())?;
        s.check()?;
        Ok(s)
    }

    /// Every value in its range.
    pub fn check(&self) -> Result<()> {
        let days = |name: &str, v: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(bad(format!("{name} must be {lo} to {hi}")))
            }
        };
        let share = |name: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && v >= lo && v <= hi {
                Ok(())
            } else {
                Err(bad(format!("{name} must be {lo} to {hi}")))
            }
        };
        days("stockout.recentDays", self.stockout.recent_days, 7, 90)?;
        days(
            "stockout.minRecentUnits",
            self.stockout.min_recent_units,
            1,
            100_000,
        )?;
        share("lowCover.weeks", self.low_cover.weeks, 0.1, 52.0)?;
        days("lowCover.recentDays", self.low_cover.recent_days, 7, 90)?;
        days(
            "lowCover.minRecentUnits",
            self.low_cover.min_recent_units,
            1,
            100_000,
        )?;
        days("outOfBudget.days", self.out_of_budget.days, 1, 30)?;
        share("outOfBudget.share", self.out_of_budget.share, 0.5, 1.0)?;
        days(
            "outOfBudgetByHour.hour",
            self.out_of_budget_by_hour.hour,
            1,
            23,
        )?;
        share(
            "outOfBudgetByHour.share",
            self.out_of_budget_by_hour.share,
            0.5,
            1.0,
        )?;
        share("spendOffPlan.share", self.spend_off_plan.share, 0.01, 10.0)?;
        days("spendOffPlan.minDays", self.spend_off_plan.min_days, 1, 28)?;
        share(
            "spendPaceByHour.share",
            self.spend_pace_by_hour.share,
            0.01,
            10.0,
        )?;
        days(
            "spendPaceByHour.fromHour",
            self.spend_pace_by_hour.from_hour,
            0,
            23,
        )?;
        days(
            "spendPaceByHour.minDays",
            self.spend_pace_by_hour.min_days,
            1,
            28,
        )?;
        let ha = &self.hourly_anomaly;
        days("hourlyAnomaly.windowDays", ha.window_days, 7, 90)?;
        share("hourlyAnomaly.z", ha.z, 1.0, 20.0)?;
        days("hourlyAnomaly.minClicks", ha.min_clicks, 1, 1_000_000)?;
        days(
            "hourlyAnomaly.minImpressions",
            ha.min_impressions,
            1,
            100_000_000,
        )?;
        days("hourlyAnomaly.minDays", ha.min_days, 3, ha.window_days)?;
        days("anomaly.windowDays", self.anomaly.window_days, 7, 90)?;
        share("anomaly.z", self.anomaly.z, 1.0, 20.0)?;
        days("anomaly.minClicks", self.anomaly.min_clicks, 1, 1_000_000)?;
        days("anomaly.minOrders", self.anomaly.min_orders, 1, 1_000_000)?;
        days(
            "anomaly.minImpressions",
            self.anomaly.min_impressions,
            1,
            100_000_000,
        )?;
        days(
            "anomaly.minDays",
            self.anomaly.min_days,
            3,
            self.anomaly.window_days,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_document_changes_what_it_names_and_is_read_strictly() {
        let s = MonitorSettings::read(&json!({"anomaly": {"minClicks": 50}})).unwrap();
        assert_eq!(s.anomaly.min_clicks, 50);
        assert_eq!(s.anomaly.z, Anomaly::default().z);
        assert_eq!(s.stockout, Stockout::default());
        assert!(MonitorSettings::read(&json!({"anomaly": {"minClickz": 50}})).is_err());
        assert!(MonitorSettings::read(&json!({"outOfBudget": {"share": 2.0}})).is_err());
    }
}

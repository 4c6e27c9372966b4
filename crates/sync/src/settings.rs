//! How syncs run: the service's settings (configuration), and a managed tenant's own schedule
//! over them (its daily hour and restatement windows, set by a tenant admin in the console or
//! by the operator with `admin tenant sync-schedule`). What a tenant leaves out takes the
//! service's value; the status shows the values in force and where each came from.

use std::time::Duration;

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::Store;
use serde::{Deserialize, Serialize};

use crate::datasets::Side;

/// How syncs run.
#[derive(Debug, Clone)]
pub struct SyncSettings {
    /// Recent retail days re-read every run (the provider restates them).
    pub restate_retail_days: i64,
    /// Recent advertising days re-read every run (attribution settles over about 14 days).
    pub restate_ads_days: i64,
    /// The UTC hour a dataset's daily run starts.
    pub daily_hour: u32,
    /// How often a report still being made is looked at.
    pub poll: Duration,
    /// How many days back the sync reaches (each dataset at most its provider lookback);
    /// `None`: all the provider gives.
    pub history_days: Option<i64>,
}

impl Default for SyncSettings {
    fn default() -> Self {
        Self {
            restate_retail_days: 3,
            restate_ads_days: 14,
            daily_hour: 6,
            poll: Duration::from_secs(2),
            history_days: None,
        }
    }
}

impl SyncSettings {
    /// The days of `side` a run re-reads.
    pub fn restate(&self, side: Side) -> i64 {
        match side {
            Side::Retail => self.restate_retail_days,
            Side::Advertising => self.restate_ads_days,
        }
    }

    /// How many days back a dataset the provider keeps `lookback_days` is read.
    pub fn reach_days(&self, lookback_days: i64) -> i64 {
        self.history_days
            .map_or(lookback_days, |h| h.min(lookback_days))
    }

    /// These settings with a tenant's own schedule over them.
    pub fn with(&self, own: &TenantSchedule) -> Self {
        Self {
            restate_retail_days: own.restate_retail_days.unwrap_or(self.restate_retail_days),
            restate_ads_days: own.restate_ads_days.unwrap_or(self.restate_ads_days),
            daily_hour: own.daily_hour_utc.unwrap_or(self.daily_hour),
            poll: self.poll,
            history_days: own.history_days.or(self.history_days),
        }
    }
}

/// The most recent days a run may re-read: the longest lookback a restated dataset has.
pub const MAX_RESTATE_DAYS: i64 = 60;

/// The fewest days a tenant's history may reach: the last month a first run reads.
pub const MIN_HISTORY_DAYS: i64 = crate::plan::RECENT_DAYS as i64;

/// The most: the longest lookback any dataset has (three years).
pub const MAX_HISTORY_DAYS: i64 = 1_095;

/// A managed tenant's own schedule; a value left out takes the service's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TenantSchedule {
    /// The UTC hour (0–23) each dataset's daily run starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_hour_utc: Option<u32>,
    /// Recent retail days every run re-reads (0–60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restate_retail_days: Option<i64>,
    /// Recent advertising days every run re-reads (0–60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restate_ads_days: Option<i64>,
    /// How many days back the sync reaches (35–1,095; each dataset at most its provider
    /// lookback): a tenant that needs only recent history skips the rest of the backfill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_days: Option<i64>,
}

impl TenantSchedule {
    /// Refuses a value outside its range, naming it.
    pub fn check(&self) -> Result<()> {
        if let Some(h) = self.daily_hour_utc
            && h > 23
        {
            return Err(Error::new(
                Kind::BadParams,
                format!("dailyHourUtc is an hour of the day, 0 to 23, not {h}"),
            ));
        }
        for (name, days) in [
            ("restateRetailDays", self.restate_retail_days),
            ("restateAdsDays", self.restate_ads_days),
        ] {
            if let Some(d) = days
                && !(0..=MAX_RESTATE_DAYS).contains(&d)
            {
                return Err(Error::new(
                    Kind::BadParams,
                    format!("{name} is 0 to {MAX_RESTATE_DAYS} days, not {d}"),
                ));
            }
        }
        if let Some(d) = self.history_days
            && !(MIN_HISTORY_DAYS..=MAX_HISTORY_DAYS).contains(&d)
        {
            return Err(Error::new(
                Kind::BadParams,
                format!("historyDays is {MIN_HISTORY_DAYS} to {MAX_HISTORY_DAYS} days, not {d}"),
            ));
        }
        Ok(())
    }

    /// Whether it sets nothing (the service's settings hold).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A tenant's own schedule as stored, with who set it when.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredSchedule {
    pub schedule: TenantSchedule,
    pub updated_by: Option<String>,
    pub updated_at: Option<String>,
}

impl StoredSchedule {
    /// The tenant's schedule as stored (empty, set by no one, when none is).
    pub async fn of(store: &Store, tenant: &TenantId) -> Result<Self> {
        match store.sync().settings(tenant).await? {
            Some(v) => serde_json::from_value(v)
                .map_err(|e| Error::internal(format!("the stored sync schedule of {tenant}: {e}"))),
            None => Ok(Self::default()),
        }
    }

    /// Stores `schedule` as the tenant's, set by `actor` (checked first; an empty one goes
    /// back to the service's settings). A tenant whose warehouse is external has no sync to
    /// schedule.
    pub async fn save(
        store: &Store,
        tenant: &TenantId,
        schedule: TenantSchedule,
        actor: &str,
    ) -> Result<Self> {
        schedule.check()?;
        // an empty schedule goes back to the service's settings: nothing is stored
        let (stored, doc) = if schedule.is_empty() {
            (Self::default(), None)
        } else {
            let stored = Self {
                schedule,
                updated_by: Some(actor.to_owned()),
                updated_at: Some(
                    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ),
            };
            let doc = serde_json::to_value(&stored).map_err(Error::internal_from)?;
            (stored, Some(doc))
        };
        if store.sync().set_settings(tenant, doc.as_ref()).await? {
            Ok(stored)
        } else {
            Err(Error::new(
                Kind::BadParams,
                format!("{tenant}'s warehouse is external: the gateway does not sync it"),
            )
            .with_fix(
                "A tenant created without a warehouse is managed; see docs/warehouse-sync.md.",
            ))
        }
    }
}

/// The schedule in force for a tenant, as the status shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleInForce {
    pub daily_hour_utc: u32,
    pub restate_retail_days: i64,
    pub restate_ads_days: i64,
    /// How many days back the sync reaches; absent: each dataset's whole provider lookback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_days: Option<i64>,
    /// What the tenant set itself (the rest are the service's settings), by whom and when.
    pub tenant_set: StoredSchedule,
}

impl ScheduleInForce {
    pub fn new(service: &SyncSettings, own: StoredSchedule) -> Self {
        let s = service.with(&own.schedule);
        Self {
            daily_hour_utc: s.daily_hour,
            restate_retail_days: s.restate_retail_days,
            restate_ads_days: s.restate_ads_days,
            history_days: s.history_days,
            tenant_set: own,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_schedule_overrides_only_what_it_sets_and_refuses_values_out_of_range() {
        let service = SyncSettings::default();
        let own: TenantSchedule = serde_json::from_str(r#"{"restateAdsDays": 30}"#).unwrap();
        let s = service.with(&own);
        assert_eq!(
            (s.restate_ads_days, s.restate_retail_days, s.daily_hour),
            (30, 3, 6)
        );
        for bad in [
            r#"{"dailyHourUtc": 24}"#,
            r#"{"restateRetailDays": -1}"#,
            r#"{"restateAdsDays": 61}"#,
            r#"{"historyDays": 34}"#,
            r#"{"historyDays": 1096}"#,
        ] {
            let t: TenantSchedule = serde_json::from_str(bad).unwrap();
            assert_eq!(t.check().unwrap_err().kind, Kind::BadParams, "{bad}");
        }
        assert!(serde_json::from_str::<TenantSchedule>(r#"{"hour": 3}"#).is_err());
        assert!(TenantSchedule::default().is_empty());
        // a tenant's history cuts each dataset's reach, never lengthens it
        let own: TenantSchedule = serde_json::from_str(r#"{"historyDays": 90}"#).unwrap();
        own.check().unwrap();
        let s = service.with(&own);
        assert_eq!((s.reach_days(730), s.reach_days(60)), (90, 60));
        assert_eq!(service.reach_days(730), 730);
    }
}

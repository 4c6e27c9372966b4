//! Query-string parameters of a `/v1` call: typed getters with `validation_error`s that name
//! the parameter, and refusal of parameters the endpoint does not take.

use std::collections::HashMap;

use chrono::NaiveDate;
use pp_core::{Error, Result};

/// The parameters of one call.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(transparent)]
pub struct Args(pub HashMap<String, String>);

fn bad(name: &str, why: &str) -> Error {
    Error::invalid_request(format!("{name} {why}"))
}

impl Args {
    /// Refuses any parameter not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<()> {
        let mut unknown: Vec<&str> = self
            .0
            .keys()
            .map(String::as_str)
            .filter(|k| !allowed.contains(k))
            .collect();
        unknown.sort_unstable();
        match unknown.first() {
            None => Ok(()),
            Some(k) => Err(Error::invalid_request(format!("unknown parameter '{k}'"))
                .with_fix(format!("This endpoint takes: {}", allowed.join(", ")))),
        }
    }

    /// A text parameter.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|s| !s.is_empty())
    }

    /// A `YYYY-MM-DD` date (0001–9999); present but empty is refused, not read as absent.
    pub fn date(&self, name: &str) -> Result<Option<NaiveDate>> {
        self.0
            .get(name)
            .map(|s| {
                pp_core::wire::calendar_date(s).ok_or_else(|| {
                    bad(
                        name,
                        "must be a date YYYY-MM-DD from 0001-01-01 to 9999-12-31",
                    )
                })
            })
            .transpose()
    }

    /// A whole number within `lo..=hi` (the rule every surface reads numbers by).
    pub fn int(&self, name: &str, lo: i64, hi: i64) -> Result<Option<i64>> {
        pp_core::wire::int_in(name, self.str(name), lo, hi)
    }

    /// A number.
    pub fn number(&self, name: &str) -> Result<Option<f64>> {
        self.str(name)
            .map(|s| {
                s.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(name, "must be a number"))
            })
            .transpose()
    }

    /// `true` or `false`; absent is `false`.
    pub fn bool(&self, name: &str) -> Result<bool> {
        pp_core::wire::flag(name, self.str(name))
    }

    /// One of `choices`.
    pub fn choice(&self, name: &str, choices: &[&str]) -> Result<Option<String>> {
        match self.str(name) {
            None => Ok(None),
            Some(s) if choices.contains(&s) => Ok(Some(s.to_owned())),
            Some(_) => Err(bad(name, &format!("must be one of {}", choices.join(", ")))),
        }
    }
}

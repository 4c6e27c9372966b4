//! Query limits: the timeout range and the result caps (documented in `docs/warehouse-sql.md`).

use pp_core::{Error, Kind, Result};

/// Caps applied to every query.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Timeout when the caller names none.
    pub default_timeout_ms: u64,
    /// Largest timeout a caller may ask for.
    pub max_timeout_ms: u64,
    /// Most rows returned; more are cut and the response says so.
    pub max_rows: usize,
    /// Most bytes of row data (as JSON) returned; more are cut and the response says so.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            default_timeout_ms: 30_000,
            max_timeout_ms: 120_000,
            max_rows: 10_000,
            max_bytes: 16 * 1024 * 1024,
        }
    }
}

impl Limits {
    /// The timeout to use for a request's `queryTimeoutMs`.
    pub fn timeout_for(&self, requested: Option<u64>) -> Result<u64> {
        match requested {
            None => Ok(self.default_timeout_ms),
            Some(ms) if (1..=self.max_timeout_ms).contains(&ms) => Ok(ms),
            Some(ms) => Err(Error::new(
                Kind::InvalidRequest,
                format!(
                    "queryTimeoutMs {ms} is out of range: use 1 to {}",
                    self.max_timeout_ms
                ),
            )),
        }
    }
}

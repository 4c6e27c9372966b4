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
    /// Longest string or blob a query may build or read (SQLite's length limit). It also
    /// bounds the work of any one function call, such as a `LIKE` or an `instr`, which the
    /// deadline cannot interrupt.
    pub max_value_bytes: usize,
    /// Longest `LIKE` or `GLOB` pattern.
    pub max_pattern_bytes: usize,
    /// Most columns in a result (or a table, index or `GROUP BY`).
    pub max_columns: usize,
    /// Most bytes of temporary files (sorts, `DISTINCT`, materialised subqueries) one query
    /// may hold.
    pub max_temp_bytes: u64,
    /// Most queries running at once across all tenants; more wait for a slot within their
    /// deadline.
    pub max_running: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            default_timeout_ms: 30_000,
            max_timeout_ms: 120_000,
            max_rows: 10_000,
            max_bytes: 16 * 1024 * 1024,
            max_value_bytes: 256 * 1024,
            max_pattern_bytes: 256,
            max_columns: 256,
            max_temp_bytes: 256 * 1024 * 1024,
            max_running: 4,
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

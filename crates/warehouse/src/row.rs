//! Typed readers over a result row: a value of the wrong type is an internal error naming the
//! column, never a silent 0 or "". SQL `NULL` reads as `None` from the `opt_*` readers; the
//! plain readers treat it as missing data and fail too, except [`Row::count`] and
//! [`Row::amount`], where `NULL` is an empty aggregate (SUM over no rows) and reads as zero.

use pp_core::{Error, Result};
use serde_json::{Map, Value};

/// A result row keyed by column name.
pub type RowMap = Map<String, Value>;

fn wrong(column: &str, want: &str, got: Option<&Value>) -> Error {
    let got = match got {
        None => "no such column".to_owned(),
        Some(v) => format!("{v}"),
    };
    let got: String = got.chars().take(60).collect();
    Error::internal(format!(
        "warehouse column {column}: expected {want}, got {got}"
    ))
}

/// Typed access to a row's columns.
pub trait Row {
    /// An integer column that may be `NULL`.
    fn opt_int(&self, column: &str) -> Result<Option<i64>>;
    /// A real (or integer) column that may be `NULL`.
    fn opt_real(&self, column: &str) -> Result<Option<f64>>;
    /// A text column that may be `NULL`.
    fn opt_text(&self, column: &str) -> Result<Option<&str>>;

    /// An integer column that must hold a value.
    fn int(&self, column: &str) -> Result<i64> {
        self.opt_int(column)?
            .ok_or_else(|| wrong(column, "an integer", Some(&Value::Null)))
    }
    /// A text column that must hold a value.
    fn text(&self, column: &str) -> Result<&str> {
        self.opt_text(column)?
            .ok_or_else(|| wrong(column, "text", Some(&Value::Null)))
    }
    /// An aggregated count: `NULL` (no rows) is 0.
    fn count(&self, column: &str) -> Result<i64> {
        Ok(self.opt_int(column)?.unwrap_or(0))
    }
    /// An aggregated amount: `NULL` (no rows) is 0.
    fn amount(&self, column: &str) -> Result<f64> {
        Ok(self.opt_real(column)?.unwrap_or(0.0))
    }
}

impl Row for RowMap {
    fn opt_int(&self, column: &str) -> Result<Option<i64>> {
        match self.get(column) {
            Some(Value::Null) => Ok(None),
            Some(v) if v.is_i64() => Ok(v.as_i64()),
            other => Err(wrong(column, "an integer", other)),
        }
    }

    fn opt_real(&self, column: &str) -> Result<Option<f64>> {
        match self.get(column) {
            Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            other => Err(wrong(column, "a number", other)),
        }
    }

    fn opt_text(&self, column: &str) -> Result<Option<&str>> {
        match self.get(column) {
            Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            other => Err(wrong(column, "text", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mistyped_value_is_an_error_not_a_default() {
        let r: RowMap = json!({"n": 3, "x": 1.5, "t": "a", "z": null, "bad": "7"})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(r.int("n").unwrap(), 3);
        assert_eq!(r.amount("x").unwrap(), 1.5);
        assert_eq!(r.amount("n").unwrap(), 3.0);
        assert_eq!(r.text("t").unwrap(), "a");
        assert_eq!(r.count("z").unwrap(), 0);
        assert_eq!(r.opt_text("z").unwrap(), None);
        let e = r.int("bad").unwrap_err();
        assert_eq!(e.kind, pp_core::Kind::Unknown);
        assert!(e.cause().unwrap().contains("column bad"), "{:?}", e.cause());
        assert!(r.text("n").is_err());
        assert!(r.int("missing").is_err());
        assert!(r.text("z").is_err(), "NULL where a value is required");
    }
}

//! "What We Know": plain sentences a result can stand behind, each with the figures it states
//! and the warehouse rows it was computed from (table, seller rows, days, and the ASIN or brand
//! when it is about one), so a reader can check it with one query.

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::params::Period;
use crate::scope::Scope;

/// The rows a statement stands on.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rows {
    pub table: &'static str,
    pub seller_ids: Vec<i64>,
    pub from: NaiveDate,
    pub to: NaiveDate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asin: Option<String>,
}

impl Rows {
    /// The scope's rows of `table` over `period`.
    pub fn of(scope: &Scope, table: &'static str, period: Period) -> Self {
        Self {
            table,
            seller_ids: scope.seller_ids(),
            from: period.start,
            to: period.end,
            brand: scope.brand.as_ref().map(|b| b.name.clone()),
            asin: None,
        }
    }

    /// The same rows narrowed to one item.
    pub fn asin(mut self, seller_id: i64, asin: &str) -> Self {
        self.seller_ids = vec![seller_id];
        self.asin = Some(asin.to_owned());
        self
    }
}

/// One statement.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    pub text: String,
    pub figures: Map<String, Value>,
    pub rows: Vec<Rows>,
}

impl Statement {
    pub fn new(text: String, figures: &[(&str, Value)], rows: Vec<Rows>) -> Self {
        Self {
            text,
            figures: figures
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
            rows,
        }
    }
}

/// A typed figure (an engine's result part) as a statement's JSON figure.
pub fn figure(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).expect("result types serialize to JSON")
}

/// A whole number with thousands separators.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Cents as a sentence says them: `12,345.67 USD`, with a sign when asked.
pub fn say_money(cents: i64, currency: &str, signed: bool) -> String {
    let sign = if cents < 0 {
        "-"
    } else if signed {
        "+"
    } else {
        ""
    };
    let abs = cents.unsigned_abs();
    format!("{sign}{}.{:02} {currency}", grouped(abs / 100), abs % 100)
}

/// A count with thousands separators.
pub fn say_count(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}", grouped(n.unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_reads_like_money() {
        assert_eq!(say_money(123456789, "USD", false), "1,234,567.89 USD");
        assert_eq!(say_money(-5, "CAD", true), "-0.05 CAD");
        assert_eq!(say_money(100000, "MXN", true), "+1,000.00 MXN");
        assert_eq!(say_count(1234567), "1,234,567");
        assert_eq!(say_count(-12), "-12");
    }
}

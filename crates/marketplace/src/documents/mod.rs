//! Reading the provider's report documents into typed rows: what a warehouse sync loads and
//! what the sandbox's tests read its documents with, so both read them one way. Each reader
//! takes the document as the provider serves it (un-gzipped text), refuses one that does not
//! read (a missing column, a line of the wrong width, a number that is not one) with the
//! reason, and keeps money in whole cents.
//!
//! - `selling`: the selling side's reports (sales and traffic, vendor sales and traffic,
//!   brand analytics search query performance, the inventory ledger, settlements);
//! - `ads`: Reporting v3 and v1 rows.

pub mod ads;
pub mod finances;
pub mod selling;

use std::collections::BTreeMap;
use std::io::Read;

use pp_core::{Error, Result};
use serde_json::Value;

/// Why a document does not read.
pub(crate) fn unreadable(what: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        pp_core::Kind::UpstreamUnavailable,
        format!("the provider's {what} document does not read: {why}"),
    )
}

/// A gzip document's text.
pub fn gunzip(bytes: &[u8]) -> Result<String> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .map_err(|e| unreadable("gzip", e))?;
    Ok(text)
}

/// The lines of a tab-separated document, each keyed by its header.
pub fn tsv(what: &str, text: &str) -> Result<Vec<BTreeMap<String, String>>> {
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| unreadable(what, "it is empty"))?
        .split('\t')
        .collect();
    lines
        .enumerate()
        .map(|(i, l)| {
            let fields: Vec<&str> = l.split('\t').collect();
            if fields.len() != header.len() {
                return Err(unreadable(
                    what,
                    format!(
                        "line {} has {} fields, the header {}",
                        i + 2,
                        fields.len(),
                        header.len()
                    ),
                ));
            }
            Ok(header
                .iter()
                .zip(fields)
                .map(|(h, f)| ((*h).to_owned(), f.to_owned()))
                .collect())
        })
        .collect()
}

/// A decimal amount written as text (`-12.34`, `7`, `0.5`) in whole cents, exactly.
pub fn cents(what: &str, s: &str) -> Result<i64> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let ok = !whole.is_empty()
        && whole.chars().all(|c| c.is_ascii_digit())
        && frac.len() <= 2
        && frac.chars().all(|c| c.is_ascii_digit());
    if !ok {
        return Err(unreadable(what, format!("'{s}' is not an amount")));
    }
    let frac = format!("{frac:0<2}");
    let v = whole
        .parse::<i64>()
        .ok()
        .and_then(|w| w.checked_mul(100))
        .and_then(|w| w.checked_add(frac.parse::<i64>().ok()?))
        .ok_or_else(|| unreadable(what, format!("'{s}' is too large")))?;
    Ok(if neg { -v } else { v })
}

/// A JSON amount (a number, or `{amount, currencyCode}`) in whole cents.
pub fn json_cents(what: &str, v: &Value) -> Result<i64> {
    let n = match v {
        Value::Object(m) => m.get("amount").and_then(Value::as_f64),
        v => v.as_f64(),
    };
    n.filter(|x| x.is_finite())
        .map(|x| (x * 100.0).round() as i64)
        .ok_or_else(|| unreadable(what, format!("{v} is not an amount")))
}

/// A JSON count.
pub fn json_count(what: &str, v: &Value) -> Result<i64> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|x| x.fract() == 0.0).map(|x| x as i64))
        .ok_or_else(|| unreadable(what, format!("{v} is not a count")))
}

/// A whole-number field of a text document.
pub fn count(what: &str, s: &str) -> Result<i64> {
    s.trim()
        .parse()
        .map_err(|_| unreadable(what, format!("'{s}' is not a count")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_to_the_cent_and_nonsense_is_refused() {
        for (s, c) in [("12.34", 1234), ("-0.5", -50), ("7", 700), ("0.05", 5)] {
            assert_eq!(cents("t", s).unwrap(), c, "{s}");
        }
        for bad in ["", "1.234", "1,2", "abc", "--1", "1e3"] {
            assert!(cents("t", bad).is_err(), "{bad}");
        }
        assert_eq!(
            json_cents("t", &serde_json::json!({"amount": 19.99})).unwrap(),
            1999
        );
    }

    #[test]
    fn a_tab_separated_line_of_the_wrong_width_is_refused() {
        let rows = tsv("t", "a\tb\n1\t2\n").unwrap();
        assert_eq!(rows[0]["b"], "2");
        assert!(tsv("t", "a\tb\n1\n").is_err());
        assert!(tsv("t", "").is_err());
    }
}

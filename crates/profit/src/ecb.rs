//! Reading a published euro reference-rate file: the European Central Bank's CSV, in either
//! of its two forms — the historical file (`eurofxref-hist.csv`: a `Date,USD,JPY,…` header,
//! one row per working day, `2026-12-04`, `N/A` where a currency had no rate) and the day's
//! file (`eurofxref.csv`: `Date, USD, JPY, …` with spaces, the day written `04 December
//! 2026`). Every cell is units of the currency one euro buys. The world's
//! `reference-rates.csv` is the historical form. docs/profit.md documents what is accepted.

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use pp_store::costs::Rate;

use crate::money;

fn bad(line: usize, msg: impl std::fmt::Display) -> Error {
    Error::new(
        Kind::BadParams,
        format!("reference-rate file, line {line}: {msg}"),
    )
    .with_fix("Give the ECB's daily or historical CSV: a `Date,USD,…` header, then one row per day (`2026-12-04,1.0517,…` or `04 December 2026, 1.0517, …`)")
}

fn day(line: usize, text: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(text, "%d %B %Y"))
        .map_err(|_| {
            bad(
                line,
                format!("'{text}' is not a day (2026-12-04 or 04 December 2026)"),
            )
        })
}

/// Every rate of the file `text`, of the currencies `only` when it names any (each must be a
/// column of the file), by day as the file gives them. `N/A` or an empty cell is no rate.
pub fn read(text: &str, only: &[String]) -> Result<Vec<Rate>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((_, head)) = lines.next() else {
        return Err(bad(1, "the file is empty"));
    };
    let cols: Vec<&str> = head.split(',').map(str::trim).collect();
    if !cols[0].eq_ignore_ascii_case("date") {
        return Err(bad(
            1,
            format!("the first column is '{}', not Date", cols[0]),
        ));
    }
    let mut codes = Vec::with_capacity(cols.len());
    for c in &cols[1..] {
        // the ECB's rows end with a comma: an empty last header
        if c.is_empty() {
            codes.push(None);
            continue;
        }
        codes.push(Some(money::currency("reference-rate file header", c)?));
    }
    for want in only {
        if !codes.iter().flatten().any(|c| c == want) {
            return Err(bad(1, format!("the file has no {want} column")));
        }
    }
    let mut out = Vec::new();
    for (line, row) in lines {
        let cells: Vec<&str> = row.split(',').map(str::trim).collect();
        if cells.len() > cols.len() {
            return Err(bad(
                line,
                format!("{} cells under {} headers", cells.len(), cols.len()),
            ));
        }
        let d = day(line, cells[0])?.to_string();
        for (cell, code) in cells[1..].iter().zip(&codes) {
            let Some(code) = code else { continue };
            if cell.is_empty() || cell.eq_ignore_ascii_case("N/A") {
                continue;
            }
            if !only.is_empty() && !only.contains(code) {
                continue;
            }
            let per_eur_e6 = money::rate_e6(&format!("line {line}, {code}"), cell)
                .map_err(|e| bad(line, e.message()))?;
            out.push(Rate {
                day: d.clone(),
                currency: code.clone(),
                per_eur_e6,
            });
        }
    }
    if out.is_empty() {
        return Err(bad(1, "the file holds no rate"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_of_the_ecbs_forms_read_alike() {
        let hist =
            "Date,USD,JPY,CAD,\n2026-12-04,1.0517,158.17,N/A,\n2026-12-03,1.05,158.1,1.4731,\n";
        let daily = "Date, USD, JPY, CAD, \n04 December 2026, 1.0517, 158.17, , \n";
        let h = read(hist, &[]).unwrap();
        assert_eq!(h.len(), 5);
        assert_eq!(h[0].day, "2026-12-04");
        assert_eq!(h[0].per_eur_e6, 1_051_700);
        let d = read(daily, &[]).unwrap();
        assert_eq!(d, h[..2].to_vec());
        let only = read(hist, &["CAD".to_owned()]).unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].per_eur_e6, 1_473_100);
    }

    #[test]
    fn a_bad_file_names_its_line() {
        for (text, says) in [
            ("", "empty"),
            ("Day,USD\n2026-12-04,1.05\n", "not Date"),
            ("Date,USD\n2026-13-04,1.05\n", "line 2"),
            ("Date,USD\n2026-12-04,-1.05\n", "line 2"),
            ("Date,USD\n2026-12-04,1.05,2\n", "line 2"),
            ("Date,usd\n", "currency code"),
            ("Date,USD\n2026-12-04,N/A\n", "no rate"),
        ] {
            let e = read(text, &[]).unwrap_err();
            assert!(e.message().contains(says), "{text:?}: {}", e.message());
        }
        assert!(read("Date,USD\n2026-12-04,1.05\n", &["CAD".to_owned()]).is_err());
    }
}

//! The cost file the command line imports and exports (docs/profit.md): CSV with a header
//! row naming the columns `seller_id, marketplace_id, sku, valid_from, currency, unit_cost,
//! freight, duties` (in any order; other columns refused), one period a row, amounts as plain
//! decimals with at most two places. Rows are checked by the same rule as a REST batch.

use pp_core::{Error, Kind, Result};
use serde_json::Value;

use crate::costs::{CostInput, PeriodView};

/// The columns, in the order an export writes them.
pub const COLUMNS: [&str; 8] = [
    "seller_id",
    "marketplace_id",
    "sku",
    "valid_from",
    "currency",
    "unit_cost",
    "freight",
    "duties",
];

fn bad(msg: impl std::fmt::Display) -> Error {
    Error::new(Kind::BadParams, format!("cost file: {msg}")).with_fix(format!(
        "The header row names the columns {}",
        COLUMNS.join(",")
    ))
}

/// Every period of the file `text`, each checked (a bad row is named by its line).
pub fn read(text: &str) -> Result<Vec<CostInput>> {
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let head = r.headers().map_err(bad)?.clone();
    let mut at = [usize::MAX; 8];
    for (i, h) in head.iter().enumerate() {
        let Some(k) = COLUMNS.iter().position(|c| c.eq_ignore_ascii_case(h)) else {
            return Err(bad(format!("unknown column '{h}'")));
        };
        if at[k] != usize::MAX {
            return Err(bad(format!("the column '{h}' is named twice")));
        }
        at[k] = i;
    }
    if let Some(k) = at.iter().position(|i| *i == usize::MAX) {
        return Err(bad(format!("the column '{}' is missing", COLUMNS[k])));
    }
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(bad)?;
        let line = rec.position().map_or(0, |p| p.line());
        let cell = |k: usize| rec.get(at[k]).unwrap_or("").to_owned();
        let input = CostInput {
            seller_id: cell(0),
            marketplace_id: cell(1),
            sku: cell(2),
            valid_from: cell(3),
            currency: cell(4),
            unit_cost: Value::String(cell(5)),
            freight: Value::String(cell(6)),
            duties: Value::String(cell(7)),
        };
        input
            .checked(&format!("line {line}"))
            .map_err(|e| bad(e.message()))?;
        out.push(input);
    }
    if out.is_empty() {
        return Err(bad("the file holds no period"));
    }
    Ok(out)
}

/// Periods as a cost file that [`read`] takes back.
pub fn write(periods: &[PeriodView]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let internal = |e: csv::Error| Error::internal_from(e);
    w.write_record(COLUMNS).map_err(internal)?;
    for p in periods {
        w.write_record([
            p.seller_id.as_str(),
            &p.marketplace_id,
            &p.sku,
            &p.valid_from,
            &p.currency,
            &format!("{:.2}", p.unit_cost),
            &format!("{:.2}", p.freight),
            &format!("{:.2}", p.duties),
        ])
        .map_err(internal)?;
    }
    let bytes = w.into_inner().map_err(|e| Error::internal(e.to_string()))?;
    String::from_utf8(bytes).map_err(Error::internal_from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_in_any_column_order_and_names_its_bad_line() {
        let text = "sku,seller_id,marketplace_id,valid_from,currency,unit_cost,freight,duties\n\
                    \"A,1\",A1,ATVPDKIKX0DER,2026-01-01,USD,12.34,1.5,0\n";
        let rows = read(text).unwrap();
        assert_eq!(rows[0].sku, "A,1");
        assert_eq!(rows[0].unit_cost, Value::String("12.34".into()));
        let bad_line = format!("{text}B,A1,ATVPDKIKX0DER,2026-02-30,USD,1,1,1\n");
        let e = read(&bad_line).unwrap_err();
        assert!(e.message().contains("line 3"), "{}", e.message());
        assert!(
            read("sku,seller_id\nA,B\n")
                .unwrap_err()
                .message()
                .contains("missing")
        );
        assert!(read("sku,sku\n").unwrap_err().message().contains("twice"));
        assert!(
            read(&text.replace("duties", "tax"))
                .unwrap_err()
                .message()
                .contains("unknown")
        );
    }
}

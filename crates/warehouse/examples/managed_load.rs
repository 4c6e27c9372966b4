//! The sync's load path timed on its own, for `bench/sync.sh`: one seller's daily sales and
//! traffic rows (by child ASIN) read from a generated world, loaded into a managed warehouse
//! through `Managed::replace_all` one day's slice each, `days` slices to a transaction (the
//! sync loads up to four days' reports together when the provider made them side by side),
//! and written out as a tab-separated file (`\N` for NULL) that the engine's own bulk load
//! (`COPY`, `LOAD DATA`, `.import`) takes as the floor.
//!
//! Usage: `cargo run --release -p pp-warehouse --example managed_load -- <world.sqlite> <seller id>
//! <managed locator> <tsv out> [days]`; prints one JSON line: rows, slices, transactions,
//! seconds.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use pp_warehouse::schema::Cell;
use pp_warehouse::schema::TABLES;
use pp_warehouse::{Load, Managed, Slice};
use rusqlite::types::Value;

const TABLE: &str = "spapi_sales_and_traffic_by_asin";

fn cell(v: Value, ty: &str) -> Cell {
    let decimal = ty.starts_with("DECIMAL");
    match v {
        Value::Null => Cell::Null,
        // SQLite keeps a whole DECIMAL as an integer (numeric affinity)
        Value::Integer(i) if decimal => Cell::Cents(i * 100),
        Value::Integer(i) => Cell::Int(i),
        Value::Real(f) if decimal => Cell::Cents((f * 100.0).round() as i64),
        Value::Real(f) => Cell::Real(f),
        Value::Text(s) => Cell::Text(s),
        Value::Blob(_) => Cell::Null,
    }
}

fn tsv(c: &Cell, out: &mut String) {
    match c {
        Cell::Null => out.push_str("\\N"),
        Cell::Int(i) => out.push_str(&i.to_string()),
        Cell::Cents(c) => {
            let sign = if *c < 0 { "-" } else { "" };
            out.push_str(&format!("{sign}{}.{:02}", c.abs() / 100, c.abs() % 100));
        }
        Cell::Real(f) => out.push_str(&f.to_string()),
        Cell::Text(s) => out.push_str(s),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (world, seller, locator, out, days_per_tx) = match args.as_slice() {
        [w, s, l, o] => (w, s, l, o, 1),
        [w, s, l, o, d] => (w, s, l, o, d.parse().map_err(|e| format!("days: {e}"))?),
        _ => {
            return Err(
                "usage: managed_load <world.sqlite> <seller id> <locator> <tsv out> [days]".into(),
            );
        }
    };
    let seller: i64 = seller.parse().map_err(|e| format!("seller id: {e}"))?;
    let table = TABLES
        .iter()
        .find(|t| t.name == TABLE)
        .ok_or("no such table")?;
    let date = table
        .columns
        .iter()
        .position(|c| c.name == "Date")
        .ok_or("no Date column")?;

    // the rows, by day, in the table's column order
    let db = rusqlite::Connection::open(world).map_err(|e| e.to_string())?;
    let cols: Vec<String> = table
        .columns
        .iter()
        .map(|c| format!("`{}`", c.name))
        .collect();
    let sql = format!(
        "SELECT {} FROM {TABLE} WHERE SellerID = ?1 ORDER BY Date, ChildASIN",
        cols.join(", ")
    );
    let mut st = db.prepare(&sql).map_err(|e| e.to_string())?;
    let mut days: BTreeMap<String, Vec<Vec<Cell>>> = BTreeMap::new();
    let mut rows = st.query([seller]).map_err(|e| e.to_string())?;
    let mut text = String::new();
    while let Some(r) = rows.next().map_err(|e| e.to_string())? {
        let mut row = Vec::with_capacity(table.columns.len());
        for (i, c) in table.columns.iter().enumerate() {
            row.push(cell(r.get::<_, Value>(i).map_err(|e| e.to_string())?, c.ty));
        }
        for (i, c) in row.iter().enumerate() {
            if i > 0 {
                text.push('\t');
            }
            tsv(c, &mut text);
        }
        text.push('\n');
        let Cell::Text(day) = &row[date] else {
            return Err("a row without its day".into());
        };
        days.entry(day.clone()).or_default().push(row);
    }
    std::fs::File::create(out)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{out}: {e}"))?;

    let loader = Managed::open(locator)?;
    loader.ensure_schema().await?;
    let (n_days, started) = (days.len(), Instant::now());
    let slices: Vec<Load> = days
        .into_iter()
        .map(|(day, rows)| Load {
            slice: Slice {
                table,
                seller_id: seller,
                range: Some(("Date", day.clone(), day)),
                part: None,
            },
            rows,
        })
        .collect();
    let (mut n, mut transactions) = (0, 0);
    for group in slices.chunks(days_per_tx.max(1)) {
        n += loader.replace_all(group).await.map_err(|e| e.to_string())?;
        transactions += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        r#"{{"rows": {n}, "slices": {n_days}, "transactions": {transactions}, "seconds": {secs:.3}}}"#
    );
    Ok(())
}

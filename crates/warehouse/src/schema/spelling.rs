//! How each engine spells the warehouse schema and its values: table, column and index names,
//! types and table options ([`Spelling`]: SQLite, PostgreSQL, MySQL/MariaDB), the DDL they
//! make, and a row's cells as each engine's text. The managed loader and the demo world's
//! generator both spell through here, so a synced warehouse reads exactly like a generated
//! one.
//!
//! - **SQLite** takes the schema's MySQL-flavoured types as they are (it maps them by
//!   affinity).
//! - **PostgreSQL:** names in lower case (unquoted names in queries fold to them, so the
//!   spec's `SellerID` still reads), text columns in the byte-order `"C"` collation (as SQLite
//!   sorts).
//! - **MySQL/MariaDB:** the spec's names and types, `utf8mb4_bin` (byte order again).
//!
//! Money is written from whole cents as exact decimals; date-times (UTC) without their `Z`.

use super::Table;

/// One cell of a row, in its table's column order.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// Integer.
    Int(i64),
    /// Money in cents, written as a two-decimal number.
    Cents(i64),
    /// Other real numbers.
    Real(f64),
    /// Text.
    Text(String),
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_owned())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Self {
        v.map_or(Cell::Null, Cell::Text)
    }
}

/// A cell as SQLite stores it (money as a two-decimal real, as the generated file has it).
impl rusqlite::ToSql for Cell {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match self {
            Cell::Null => ToSqlOutput::Owned(Value::Null),
            Cell::Int(v) => ToSqlOutput::Owned(Value::Integer(*v)),
            Cell::Cents(v) => ToSqlOutput::Owned(Value::Real(*v as f64 / 100.0)),
            Cell::Real(v) => ToSqlOutput::Owned(Value::Real(*v)),
            Cell::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
        })
    }
}

/// How an engine spells the schema: its table, column and index names, its types, and what
/// follows a `CREATE TABLE`.
pub struct Spelling {
    pub table: fn(&str) -> String,
    pub column: fn(&str) -> String,
    pub index: fn(&str) -> String,
    pub ty: fn(&str) -> String,
    pub options: &'static str,
}

/// A name in backticks (SQLite and MySQL).
pub fn backticks(name: &str) -> String {
    format!("`{name}`")
}

/// SQLite takes the schema's MySQL-flavoured types as they are (it maps them by affinity).
pub const SQLITE: Spelling = Spelling {
    table: backticks,
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: "",
};

/// A schema type as PostgreSQL spells it.
pub fn pg_type(ty: &str) -> String {
    match ty {
        "INT" => "INTEGER".into(),
        "DATETIME" => "TIMESTAMP".into(),
        t if t.starts_with("DECIMAL") => t.replacen("DECIMAL", "NUMERIC", 1),
        t if t.starts_with("VARCHAR") => format!("{t} COLLATE \"C\""),
        t => t.into(),
    }
}

/// A name as PostgreSQL keeps it: lower case, quoted.
pub fn pg_name(name: &str) -> String {
    format!("\"{}\"", name.to_lowercase())
}

/// PostgreSQL: lower-case names, the spec's index names as they are, byte-order text.
pub const POSTGRES: Spelling = Spelling {
    table: pg_name,
    column: pg_name,
    index: |n| format!("\"{n}\""),
    ty: pg_type,
    options: "",
};

/// The table options of a MySQL/MariaDB warehouse table.
pub const MY_OPTIONS: &str = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";

/// MySQL/MariaDB with the spec's names in place.
pub const MY_NAMES: Spelling = Spelling {
    table: backticks,
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: MY_OPTIONS,
};

/// Whole cents as an exact decimal.
pub fn cents(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// A cell's text for a column of type `ty` (date-times lose their `T` and `Z`).
pub fn text_of(ty: &str, c: &Cell) -> Option<String> {
    match c {
        Cell::Null => None,
        Cell::Int(v) => Some(v.to_string()),
        Cell::Cents(v) => Some(cents(*v)),
        Cell::Real(v) => Some(v.to_string()),
        Cell::Text(t) if ty == "DATETIME" => Some(t.trim_end_matches('Z').replacen('T', " ", 1)),
        Cell::Text(t) => Some(t.clone()),
    }
}

/// One row in PostgreSQL `COPY`'s text format, written straight into `out` (the text
/// [`text_of`] gives, escaped, without a string made for each cell).
pub fn copy_line(t: &Table, row: &[Cell], out: &mut String) {
    use std::fmt::Write;
    for (i, (c, col)) in row.iter().zip(t.columns).enumerate() {
        if i > 0 {
            out.push('\t');
        }
        // (writing into a String cannot fail)
        match c {
            Cell::Null => out.push_str("\\N"),
            Cell::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Cell::Cents(v) => {
                let sign = if *v < 0 { "-" } else { "" };
                let a = v.unsigned_abs();
                let _ = write!(out, "{sign}{}.{:02}", a / 100, a % 100);
            }
            Cell::Real(v) => {
                let _ = write!(out, "{v}");
            }
            Cell::Text(s) if col.ty == "DATETIME" => {
                escaped(&s.trim_end_matches('Z').replacen('T', " ", 1), out)
            }
            Cell::Text(s) => escaped(s, out),
        }
    }
    out.push('\n');
}

/// `s` with `COPY`'s text-format escapes (backslash, tab, newline, carriage return).
fn escaped(s: &str, out: &mut String) {
    if !s.contains(['\\', '\t', '\n', '\r']) {
        out.push_str(s);
        return;
    }
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// `CREATE TABLE` for one table in an engine's spelling.
pub fn create_table_sql(t: &Table, s: &Spelling) -> String {
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| format!("{} {}", (s.column)(c.name), (s.ty)(c.ty)))
        .collect();
    format!(
        "CREATE TABLE {} ({}){}",
        (s.table)(t.name),
        cols.join(", "),
        s.options
    )
}

/// `CREATE INDEX` statements for one table in an engine's spelling.
pub fn create_index_sql(t: &Table, s: &Spelling) -> Vec<String> {
    t.indexes
        .iter()
        .map(|i| {
            let cols: Vec<String> = i.columns.iter().map(|c| (s.column)(c)).collect();
            format!(
                "CREATE INDEX {} ON {} ({})",
                (s.index)(i.name),
                (s.table)(t.name),
                cols.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::TABLES;

    #[test]
    fn values_as_the_servers_take_them() {
        assert_eq!(cents(-5), "-0.05");
        assert_eq!(cents(123_456), "1234.56");
        assert_eq!(
            text_of("DATETIME", &Cell::Text("2026-01-02T00:00:00Z".into())).unwrap(),
            "2026-01-02 00:00:00"
        );
        let t = &TABLES[0];
        let mut line = String::new();
        let mut row: Vec<Cell> = t.columns.iter().map(|_| Cell::Null).collect();
        row[0] = Cell::Int(3);
        row[2] = Cell::Text("a\tb\\c".into());
        copy_line(t, &row, &mut line);
        assert!(line.starts_with("3\t\\N\ta\\tb\\\\c\t"), "{line}");
        assert_eq!(pg_type("DECIMAL(12,2)"), "NUMERIC(12,2)");
        assert!(
            create_table_sql(t, &POSTGRES)
                .starts_with("CREATE TABLE \"seller\" (\"id\" INTEGER, \"marketplacesellerid\" VARCHAR(32) COLLATE \"C\"")
        );
        let my = create_table_sql(t, &MY_NAMES);
        assert!(my.starts_with("CREATE TABLE `seller` (`ID` INT"), "{my}");
        assert!(my.ends_with("COLLATE=utf8mb4_bin"), "{my}");
        assert_eq!(
            create_index_sql(t, &POSTGRES),
            [
                "CREATE INDEX \"seller_MarketplaceSellerID_IDX\" ON \"seller\" (\"marketplacesellerid\")"
            ]
        );
        assert_eq!(
            pg_name("Settlement-start-date"),
            "\"settlement-start-date\""
        );
    }
}

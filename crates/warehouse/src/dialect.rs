//! The SQL dialect of a warehouse engine: what `/v1` needs to write one query that answers the
//! same on SQLite, PostgreSQL and MySQL/MariaDB (integer casts, exact cents, typed NULLs), and
//! what the lexer needs to read a caller's SQL (quotes, comments, placeholders).

/// Which engine's SQL a warehouse speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The embedded SQLite file.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL or MariaDB.
    MySql,
}

impl Dialect {
    /// The engine's name, as errors and `/health` say it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
            Dialect::MySql => "mysql",
        }
    }

    /// `expr` as a 64-bit integer.
    pub fn int(self, expr: &str) -> String {
        match self {
            Dialect::MySql => format!("CAST({expr} AS SIGNED)"),
            Dialect::Sqlite | Dialect::Postgres => format!("CAST({expr} AS BIGINT)"),
        }
    }

    /// A money column as whole cents, so sums are exact integers on every engine (SQLite
    /// stores money as binary floating point; the others as decimals).
    pub fn cents(self, column: &str) -> String {
        self.int(&format!("ROUND({column} * 100)"))
    }

    /// The sum of a money column in cents.
    pub fn sum_cents(self, column: &str) -> String {
        format!("SUM({})", self.cents(column))
    }

    /// A column whose name needs quoting (the settlement's `Posted-date-time`): backticks on
    /// SQLite and MySQL, lower case in double quotes on PostgreSQL (as `schema::spelling`
    /// created it).
    pub fn column(self, name: &str) -> String {
        match self {
            Dialect::Postgres => format!("\"{}\"", name.to_lowercase()),
            Dialect::Sqlite | Dialect::MySql => format!("`{name}`"),
        }
    }

    /// The calendar month (`YYYY-MM`) of a date or date-time column, as text.
    pub fn month(self, column: &str) -> String {
        match self {
            Dialect::Sqlite => format!("substr({column}, 1, 7)"),
            Dialect::Postgres => format!("to_char({column}, 'YYYY-MM')"),
            Dialect::MySql => format!("DATE_FORMAT({column}, '%Y-%m')"),
        }
    }

    /// An integer NULL (a bare `NULL` has no type on PostgreSQL, so `SUM(NULL)` is ambiguous).
    pub fn null_int(self) -> String {
        self.int("NULL")
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect;

    #[test]
    fn casts_per_engine() {
        assert_eq!(Dialect::Sqlite.int("x"), "CAST(x AS BIGINT)");
        assert_eq!(Dialect::MySql.int("x"), "CAST(x AS SIGNED)");
        assert_eq!(
            Dialect::Postgres.sum_cents("Cost"),
            "SUM(CAST(ROUND(Cost * 100) AS BIGINT))"
        );
    }
}

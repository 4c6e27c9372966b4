//! A managed warehouse's write side: the schema created where it is missing, and a *slice*
//! (one table's rows of one seller, over a date range or whole) replaced in one transaction,
//! so a re-read corrects what it covers and a retry never duplicates; several slices (a
//! report's tables, or the sync's consecutive days) go in one transaction together, since on
//! a server the commit, not the rows, is most of a small slice's cost. Each engine takes the
//! rows its bulk way: SQLite one prepared insert per row inside the transaction, PostgreSQL
//! `COPY`, MySQL/MariaDB multi-row `INSERT`s. Names and types are spelled by
//! `schema::spelling`, as the demo world's loaders spell them, so a synced warehouse reads
//! exactly like a generated one. The one table no slice holds, the tenant's `brand` list, is
//! kept by the catalog's loads: a load into `catalog_item` adds the brands its rows name (see
//! [`brands`]) in the same transaction.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Executor};

use crate::schema::spelling::{
    Cell, MY_NAMES, POSTGRES, SQLITE, Spelling, backticks, copy_line, create_index_sql,
    create_table_sql, pg_name, text_of,
};
use crate::schema::{TABLES, Table};

/// Rows sent to a server in one statement.
const BATCH: usize = 1000;

/// Which rows a load replaces: one seller's rows of `table` (its `seller` row by `ID`), those whose `column` lies in
/// `from..=to` when a range is given (dates as ISO text; date-times compare by their text
/// too, so give a range that covers whole days), all of that seller's rows otherwise.
#[derive(Clone)]
pub struct Slice {
    pub table: &'static Table,
    pub seller_id: i64,
    pub range: Option<(&'static str, String, String)>,
    /// Only the rows whose column holds this value (the ad product of a table that holds
    /// every ad product's rows).
    pub part: Option<(&'static str, String)>,
}

/// The rows of one slice: loading it replaces what the slice held.
pub struct Load {
    pub slice: Slice,
    pub rows: Vec<Vec<Cell>>,
}

enum Engine {
    Sqlite(PathBuf),
    Pg(PgPool),
    My(MySqlPool),
}

/// A warehouse the gateway fills, opened from its loader's locator (`sqlite:<path>`,
/// `postgres://…`, `mysql://…` or `mariadb://…`). Cheap to clone.
#[derive(Clone)]
pub struct Managed {
    engine: Arc<Engine>,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// How long a loader's server connection stays open after its load: a sync loads into
/// hundreds of tenants' warehouses in turn, and a connection kept for each would spend the
/// server's (seen at 100 tenants on one PostgreSQL: its 100 connections gone in a minute
/// without a limit, and 46 open at once with two seconds). Opening one again costs a few
/// milliseconds beside a load's hundreds.
const LOADER_IDLE: std::time::Duration = std::time::Duration::from_millis(500);

/// Tries a load makes in all when the engine rolls it back for a conflict with another
/// transaction (a deadlock, a serialization failure, a lock wait given up).
const CONFLICT_TRIES: u32 = 5;

/// Why a load did not land.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// It met conflicting transactions on every try (concurrent loads): trying it again
    /// later is the remedy, not a fault of the data or the warehouse.
    pub conflict: bool,
    message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

impl From<String> for LoadError {
    fn from(message: String) -> Self {
        Self {
            conflict: false,
            message,
        }
    }
}

/// A server's refusal, told apart: a conflict with another transaction (PostgreSQL's
/// serialization failure and deadlock, MySQL/MariaDB's deadlock and lock wait timeout) or
/// anything else.
fn fault(e: sqlx::Error) -> LoadError {
    let conflict = e.as_database_error().is_some_and(|d| {
        matches!(d.code().as_deref(), Some("40001" | "40P01"))
            || d.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
                .is_some_and(|m| matches!(m.number(), 1205 | 1213))
    });
    LoadError {
        conflict,
        message: e.to_string(),
    }
}

impl Managed {
    /// Opens the warehouse at `locator`; a server is connected on first use.
    pub fn open(locator: &str) -> Result<Self, String> {
        let engine = match locator.split_once(':') {
            Some(("sqlite", path)) => Engine::Sqlite(PathBuf::from(path)),
            Some(("postgres" | "postgresql", _)) => {
                let opts = PgConnectOptions::from_str(locator)
                    .map_err(err)?
                    .disable_statement_logging();
                Engine::Pg(
                    PgPoolOptions::new()
                        .max_connections(2)
                        .idle_timeout(LOADER_IDLE)
                        .connect_lazy_with(opts),
                )
            }
            Some(("mysql" | "mariadb", rest)) => {
                let opts = MySqlConnectOptions::from_str(&format!("mysql:{rest}"))
                    .map_err(err)?
                    .charset("utf8mb4")
                    .disable_statement_logging();
                Engine::My(
                    MySqlPoolOptions::new()
                        .max_connections(2)
                        .idle_timeout(LOADER_IDLE)
                        .connect_lazy_with(opts),
                )
            }
            _ => return Err("a managed warehouse is an SQLite file or a database URL".into()),
        };
        Ok(Self {
            engine: Arc::new(engine),
        })
    }

    /// The engine's name, for logs and metrics.
    pub fn engine_name(&self) -> &'static str {
        match &*self.engine {
            Engine::Sqlite(_) => "sqlite",
            Engine::Pg(_) => "postgres",
            Engine::My(_) => "mysql",
        }
    }

    /// Creates every table of the schema (and its indexes) that the warehouse lacks; the
    /// tables it has are left as they are.
    pub async fn ensure_schema(&self) -> Result<(), String> {
        match &*self.engine {
            Engine::Sqlite(path) => {
                let path = path.clone();
                blocking(move || {
                    if let Some(dir) = path.parent() {
                        private_dir(dir)?;
                    }
                    let mut c = sqlite(&path)?;
                    let tx = c.transaction().map_err(err)?;
                    for t in TABLES {
                        let exists: bool = tx
                            .query_row(
                                "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                                [t.name],
                                |r| r.get(0),
                            )
                            .map_err(err)?;
                        if !exists {
                            for s in ddl(t, &SQLITE) {
                                tx.execute_batch(&s).map_err(err)?;
                            }
                        }
                    }
                    tx.commit().map_err(err)
                })
                .await
            }
            Engine::Pg(pool) => {
                let mut tx = pool.begin().await.map_err(err)?;
                // two instances creating the schema at once take turns
                tx.execute("SELECT pg_advisory_xact_lock(5452171)")
                    .await
                    .map_err(err)?;
                for t in TABLES {
                    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
                        .bind(pg_name(t.name))
                        .fetch_one(&mut *tx)
                        .await
                        .map_err(err)?;
                    if !exists {
                        for s in ddl(t, &POSTGRES) {
                            tx.execute(s.as_str()).await.map_err(err)?;
                        }
                    }
                }
                tx.commit().await.map_err(err)
            }
            Engine::My(pool) => {
                let mut c = pool.acquire().await.map_err(err)?;
                let have: Vec<String> = sqlx::query_scalar(
                    "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
                )
                .fetch_all(&mut *c)
                .await
                .map_err(err)?;
                for t in TABLES.iter().filter(|t| !have.iter().any(|h| h == t.name)) {
                    // MySQL's DDL is not transactional: a table is created with its
                    // indexes in one statement, so a crash leaves it whole or absent
                    c.execute(my_create(t).as_str()).await.map_err(err)?;
                }
                Ok(())
            }
        }
    }

    /// Replaces `slice` with `rows` (cells in the table's column order) in one transaction;
    /// the number of rows written. See [`Self::replace_all`].
    pub async fn replace(&self, slice: &Slice, rows: Vec<Vec<Cell>>) -> Result<u64, LoadError> {
        let load = Load {
            slice: slice.clone(),
            rows,
        };
        self.replace_all(std::slice::from_ref(&load)).await
    }

    /// Replaces each load's slice with its rows, all in one transaction (every slice landed
    /// or none); the number of rows written. A transaction the server rolls back for a
    /// conflict with another (concurrent loads into one table deadlock on MariaDB) is tried
    /// again at once, up to [`CONFLICT_TRIES`] times in all, each retry in the log.
    pub async fn replace_all(&self, loads: &[Load]) -> Result<u64, LoadError> {
        for Load { slice, rows } in loads {
            let t = slice.table;
            if let Some(bad) = rows.iter().find(|r| r.len() != t.columns.len()) {
                return Err(format!(
                    "a row of {} has {} cells, the table {} columns",
                    t.name,
                    bad.len(),
                    t.columns.len()
                )
                .into());
            }
        }
        let Some(first) = loads.first() else {
            return Ok(0);
        };
        let mut tries = 1;
        loop {
            match self.replace_once(loads).await {
                Err(e) if e.conflict && tries < CONFLICT_TRIES => {
                    pp_core::metrics::get()
                        .load_retries
                        .with_label_values(&[first.slice.table.name, self.engine_name()])
                        .inc();
                    tracing::warn!(
                        table = first.slice.table.name,
                        seller_id = first.slice.seller_id,
                        slices = loads.len(),
                        tries,
                        reason = %e,
                        "a load was rolled back for a conflicting transaction; trying it again"
                    );
                    tokio::time::sleep(std::time::Duration::from_millis(20 * u64::from(tries)))
                        .await;
                    tries += 1;
                }
                Err(mut e) if e.conflict => {
                    e.message = format!(
                        "the load met conflicting transactions on all {tries} tries: {}",
                        e.message
                    );
                    return Err(e);
                }
                other => return other,
            }
        }
    }

    /// One try of [`Self::replace_all`].
    async fn replace_once(&self, loads: &[Load]) -> Result<u64, LoadError> {
        let n = loads.iter().map(|l| l.rows.len() as u64).sum();
        match &*self.engine {
            Engine::Sqlite(path) => {
                let path = path.clone();
                let loads: Vec<Load> = loads
                    .iter()
                    .map(|l| Load {
                        slice: l.slice.clone(),
                        rows: l.rows.clone(),
                    })
                    .collect();
                blocking(move || sqlite_replace(&path, &loads)).await?
            }
            Engine::Pg(pool) => {
                let mut tx = pool.begin().await.map_err(fault)?;
                for batch in batches(loads) {
                    pg_replace(&mut tx, batch).await?;
                }
                tx.commit().await.map_err(fault)?;
            }
            Engine::My(pool) => {
                let mut tx = pool.begin().await.map_err(fault)?;
                for batch in batches(loads) {
                    my_replace(&mut tx, batch).await?;
                }
                tx.commit().await.map_err(fault)?;
            }
        }
        Ok(n)
    }
}

/// The loads in runs that replace together: consecutive loads of one table whose slices do
/// not overlap (a day's report each, or a report's ad products), so each run deletes its
/// slices and then sends all its rows at once. A load whose slice overlaps one before it in
/// the run starts the next run, so the rows it replaces are the ones loaded before it.
fn batches(loads: &[Load]) -> Vec<&[Load]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..loads.len() {
        let run = &loads[start..i];
        let next = &loads[i].slice;
        let joins = run[0].slice.table.name == next.table.name
            && run.iter().all(|l| disjoint(&l.slice, next));
        if !joins {
            out.push(run);
            start = i;
        }
    }
    if start < loads.len() {
        out.push(&loads[start..]);
    }
    out
}

/// Whether two slices of one table surely hold no row in common: other values of the same
/// part column, or date ranges of the same column that do not meet.
fn disjoint(a: &Slice, b: &Slice) -> bool {
    let parts =
        matches!((&a.part, &b.part), (Some((ca, va)), Some((cb, vb))) if ca == cb && va != vb);
    let ranges = matches!((&a.range, &b.range),
        (Some((ca, fa, ta)), Some((cb, fb, tb))) if ca == cb && (ta < fb || tb < fa));
    parts || ranges
}

/// A run of slices of one table replaced inside a PostgreSQL transaction: each slice's rows
/// deleted, then all the new rows sent through one `COPY`, written a piece at a time so the
/// server takes one piece while the next is written; the brands a catalog load names added.
async fn pg_replace(tx: &mut sqlx::PgConnection, batch: &[Load]) -> Result<(), LoadError> {
    let t = batch[0].slice.table;
    for l in batch {
        pg_delete(tx, &l.slice).await?;
    }
    let mut copy = tx
        .copy_in_raw(&format!("COPY {} FROM STDIN", pg_name(t.name)))
        .await
        .map_err(fault)?;
    let mut data = String::with_capacity(COPY_PIECE + 4096);
    for r in batch.iter().flat_map(|l| &l.rows) {
        copy_line(t, r, &mut data);
        if data.len() >= COPY_PIECE {
            copy.send(data.as_bytes()).await.map_err(fault)?;
            data.clear();
        }
    }
    if !data.is_empty() {
        copy.send(data.as_bytes()).await.map_err(fault)?;
    }
    copy.finish().await.map_err(fault)?;
    let named: Vec<_> = batch.iter().flat_map(|l| brands(t, &l.rows)).collect();
    if !named.is_empty() {
        // one brand-adding load at a time: the next id is the highest plus one
        let lock = format!(
            "LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE",
            pg_name("brand")
        );
        tx.execute(lock.as_str()).await.map_err(fault)?;
        let sql = add_brand_sql(&POSTGRES, |i| format!("${i}"));
        for (slug, name) in named {
            tx.execute(sqlx::query(&sql).bind(slug).bind(name))
                .await
                .map_err(fault)?;
        }
    }
    Ok(())
}

/// How much `COPY` text is written before it is sent.
const COPY_PIECE: usize = 64 * 1024;

/// A slice's rows deleted inside a PostgreSQL transaction.
async fn pg_delete(tx: &mut sqlx::PgConnection, slice: &Slice) -> Result<(), LoadError> {
    let t = slice.table;
    let (sql, args) = delete_sql(slice, &POSTGRES, |i| format!("${i}"));
    // PostgreSQL compares a date column with a date, not with text: the range's bounds are
    // cast to the column's type (a text column takes them as they are)
    let ty = slice
        .range
        .as_ref()
        .and_then(|(col, _, _)| t.columns.iter().find(|c| c.name == *col))
        .map(|c| c.ty);
    // the range's bounds are the two marks after the seller's (when the table has one)
    let first = 1 + usize::from(matches!(args.first(), Some(Key::Int(_))));
    let sql = match ty {
        Some(ty @ ("DATE" | "DATETIME")) => {
            let ty = if ty == "DATETIME" {
                "TIMESTAMP"
            } else {
                "DATE"
            };
            let (a, b) = (format!("${first}"), format!("${}", first + 1));
            // (at most four marks: `$1` is never the start of another)
            sql.replace(&a, &format!("CAST({a} AS {ty})"))
                .replace(&b, &format!("CAST({b} AS {ty})"))
        }
        _ => sql,
    };
    let mut q = sqlx::query(&sql);
    for a in args {
        q = match a {
            Key::Int(v) => q.bind(v),
            Key::Text(v) => q.bind(v),
        };
    }
    tx.execute(q).await.map_err(fault)?;
    Ok(())
}

/// A run of slices of one table replaced inside a MySQL/MariaDB transaction: each slice's
/// rows deleted, then all the new rows sent in multi-row `INSERT`s of [`BATCH`] (fewer for a
/// wide table: a statement takes at most 65,535 parameters); the brands a catalog load names
/// added.
async fn my_replace(tx: &mut sqlx::MySqlConnection, batch: &[Load]) -> Result<(), LoadError> {
    let t = batch[0].slice.table;
    for l in batch {
        let (sql, args) = delete_sql(&l.slice, &MY_NAMES, |_| "?".into());
        let mut q = sqlx::query(&sql);
        for a in args {
            q = match a {
                Key::Int(v) => q.bind(v),
                Key::Text(v) => q.bind(v),
            };
        }
        tx.execute(q).await.map_err(fault)?;
    }
    let marks = format!("({})", vec!["?"; t.columns.len()].join(", "));
    let rows: Vec<&Vec<Cell>> = batch.iter().flat_map(|l| &l.rows).collect();
    for chunk in rows.chunks(BATCH.min(65_535 / t.columns.len().max(1))) {
        let sql = format!(
            "INSERT INTO {} VALUES {}",
            backticks(t.name),
            vec![marks.as_str(); chunk.len()].join(", ")
        );
        let mut q = sqlx::query(&sql);
        for r in chunk {
            for (cell, col) in r.iter().zip(t.columns) {
                q = match cell {
                    Cell::Int(v) => q.bind(*v),
                    Cell::Real(v) => q.bind(*v),
                    other => q.bind(text_of(col.ty, other)),
                };
            }
        }
        tx.execute(q).await.map_err(fault)?;
    }
    // (two loads adding brands at once may deadlock: the conflict is tried again)
    let sql = add_brand_sql(&MY_NAMES, |_| "?".into());
    for (slug, name) in batch.iter().flat_map(|l| brands(t, &l.rows)) {
        let q = sqlx::query(&sql).bind(slug.clone()).bind(name).bind(slug);
        tx.execute(q).await.map_err(fault)?;
    }
    Ok(())
}

/// The brands (slug, name) the rows of a `catalog_item` load name, each once; none for any
/// other table. A brand's slug is its name in lower case with every run of other characters
/// a hyphen (`Sierra Casa` is `sierra-casa`), as brand memory keys brands.
pub fn brands(t: &Table, rows: &[Vec<Cell>]) -> Vec<(String, String)> {
    if t.name != "catalog_item" {
        return Vec::new();
    }
    let col = t.col("Brand");
    let mut out: Vec<(String, String)> = Vec::new();
    for r in rows {
        if let Some(Cell::Text(name)) = r.get(col)
            && !out.iter().any(|(_, n)| n == name)
        {
            let slug = slug(name);
            if !slug.is_empty() {
                out.push((slug, name.clone()));
            }
        }
    }
    out
}

/// `name`'s slug: lower-case letters and digits, every other run a hyphen, none at the ends.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars().flat_map(char::to_lowercase) {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Adds one brand (slug, name; the slug again as the third parameter where marks are not
/// numbered: MySQL's `?`) numbered after the highest, unless a brand with that slug is there: a brand
/// keeps its id and name once added, and stays when the catalog no longer names it (brand
/// memory keys on its slug).
fn add_brand_sql(s: &Spelling, mark: fn(usize) -> String) -> String {
    let (t, c) = (s.table, s.column);
    // (an aggregate answers one row even when nothing matches: the test is outside it)
    format!(
        "INSERT INTO {b} ({id}, {slug}, {name}) \
         SELECT n.nid, {m1}, {m2} FROM (SELECT COALESCE(MAX({id}), 0) + 1 AS nid FROM {b}) n \
         WHERE NOT EXISTS (SELECT 1 FROM {b} WHERE {slug} = {m3})",
        b = t("brand"),
        id = c("ID"),
        slug = c("Slug"),
        name = c("Name"),
        m1 = mark(1),
        m2 = mark(2),
        m3 = match mark(3).as_str() {
            "?" => "?".to_owned(),
            _ => mark(1),
        },
    )
}

/// A table's `CREATE TABLE` and `CREATE INDEX` statements.
fn ddl(t: &Table, s: &Spelling) -> Vec<String> {
    let mut out = vec![create_table_sql(t, s)];
    out.extend(create_index_sql(t, s));
    out
}

/// MySQL's `CREATE TABLE` with its indexes inside.
fn my_create(t: &Table) -> String {
    let mut sql = create_table_sql(t, &MY_NAMES);
    let body_end = sql.rfind(')').unwrap_or(sql.len());
    let keys: String = t
        .indexes
        .iter()
        .map(|i| {
            let cols: Vec<String> = i.columns.iter().map(|c| backticks(c)).collect();
            format!(", INDEX {} ({})", backticks(i.name), cols.join(", "))
        })
        .collect();
    sql.insert_str(body_end, &keys);
    sql
}

/// The slice's `DELETE` (seller as the first parameter, the range's ends after it).
/// A value a slice's delete binds.
enum Key {
    Int(i64),
    Text(String),
}

/// The delete of a slice's rows and its bound values, in order: seller-scoped tables carry
/// `SellerID`, the `seller` table is keyed by its `ID`, and a table with neither (the
/// tenant's exchange rates) is one slice whole, its `seller_id` unused.
fn delete_sql(slice: &Slice, s: &Spelling, mark: fn(usize) -> String) -> (String, Vec<Key>) {
    let has = |name: &str| slice.table.columns.iter().any(|c| c.name == name);
    let key = ["SellerID", "ID"].into_iter().find(|k| has(k));
    let mut sql = format!("DELETE FROM {} WHERE 1 = 1", (s.table)(slice.table.name));
    let mut args = Vec::new();
    if let Some(key) = key {
        args.push(Key::Int(slice.seller_id));
        sql.push_str(&format!(" AND {} = {}", (s.column)(key), mark(args.len())));
    }
    if let Some((col, from, to)) = &slice.range {
        sql.push_str(&format!(
            " AND {c} >= {} AND {c} <= {}",
            mark(args.len() + 1),
            mark(args.len() + 2),
            c = (s.column)(col)
        ));
        args.push(Key::Text(from.clone()));
        args.push(Key::Text(to.clone()));
    }
    if let Some((col, value)) = &slice.part {
        args.push(Key::Text(value.clone()));
        sql.push_str(&format!(" AND {} = {}", (s.column)(col), mark(args.len())));
    }
    (sql, args)
}

fn sqlite(path: &std::path::Path) -> Result<rusqlite::Connection, String> {
    let c = rusqlite::Connection::open(path).map_err(err)?;
    // readers hold their transaction a few milliseconds at most; wait them out
    c.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(err)?;
    c.execute_batch("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL;")
        .map_err(err)?;
    Ok(c)
}

/// Every load's slice replaced in one SQLite transaction.
fn sqlite_replace(path: &std::path::Path, loads: &[Load]) -> Result<(), String> {
    let mut c = sqlite(path)?;
    let tx = c
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(err)?;
    for Load { slice, rows } in loads {
        sqlite_slice(&tx, slice, rows)?;
    }
    tx.commit().map_err(err)
}

/// One slice replaced inside an SQLite transaction (immediate: one writer at a time numbers
/// the brands).
fn sqlite_slice(
    tx: &rusqlite::Transaction,
    slice: &Slice,
    rows: &[Vec<Cell>],
) -> Result<(), String> {
    let t = slice.table;
    let (sql, args) = delete_sql(slice, &SQLITE, |i| format!("?{i}"));
    let params: Vec<rusqlite::types::Value> = args
        .into_iter()
        .map(|a| match a {
            Key::Int(v) => v.into(),
            Key::Text(v) => v.into(),
        })
        .collect();
    tx.execute(&sql, rusqlite::params_from_iter(params))
        .map_err(err)?;
    let marks = vec!["?"; t.columns.len()].join(", ");
    let mut st = tx
        .prepare_cached(&format!(
            "INSERT INTO {} VALUES ({marks})",
            backticks(t.name)
        ))
        .map_err(err)?;
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            st.raw_bind_parameter(i + 1, c).map_err(err)?;
        }
        st.raw_execute().map_err(err)?;
    }
    let add = add_brand_sql(&SQLITE, |i| format!("?{i}"));
    for (slug, name) in brands(t, rows) {
        tx.execute(&add, rusqlite::params![slug, name])
            .map_err(err)?;
    }
    Ok(())
}

/// Creates `dir` (and its parents) readable by the owner alone.
pub fn private_dir(dir: &std::path::Path) -> Result<(), String> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f).await.map_err(err)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::table;

    #[tokio::test]
    async fn a_slice_is_replaced_whole_and_nothing_else_moves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sqlite");
        let m = Managed::open(&format!("sqlite:{}", path.display())).unwrap();
        m.ensure_schema().await.unwrap();
        m.ensure_schema().await.unwrap();
        let t = table("spapi_sales_and_traffic_by_date");
        let row = |seller: i64, day: &str, units: i64| {
            let mut r: Vec<Cell> = t.columns.iter().map(|_| Cell::Null).collect();
            r[0] = Cell::Int(seller);
            r[t.col("Date")] = Cell::Text(day.into());
            r[t.col("UnitsOrdered")] = Cell::Int(units);
            r
        };
        let slice = |seller, from: &str, to: &str| Slice {
            table: t,
            seller_id: seller,
            range: Some(("Date", from.into(), to.into())),
            part: None,
        };
        let days = ["2026-01-01", "2026-01-02", "2026-01-03"];
        m.replace(
            &slice(1, days[0], days[2]),
            days.iter().map(|d| row(1, d, 1)).collect(),
        )
        .await
        .unwrap();
        m.replace(&slice(2, days[0], days[2]), vec![row(2, days[0], 7)])
            .await
            .unwrap();
        // a re-read of the last two days corrects them, and a retry changes nothing more
        for _ in 0..2 {
            m.replace(
                &slice(1, days[1], days[2]),
                vec![row(1, days[1], 5), row(1, days[2], 6)],
            )
            .await
            .unwrap();
        }
        let c = rusqlite::Connection::open(&path).unwrap();
        let got: Vec<(i64, String, i64)> = c
            .prepare("SELECT SellerID, Date, UnitsOrdered FROM spapi_sales_and_traffic_by_date ORDER BY SellerID, Date")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let want = [
            (1, days[0], 1),
            (1, days[1], 5),
            (1, days[2], 6),
            (2, days[0], 7),
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1.as_str(), g.2), w);
        }
        // a row of the wrong width is refused before anything is written
        let bad = m
            .replace(&slice(1, days[0], days[2]), vec![vec![Cell::Int(1)]])
            .await
            .unwrap_err();
        assert!(bad.to_string().contains("cells"), "{bad}");
    }
}

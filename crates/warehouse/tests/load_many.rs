//! Several slices replaced in one transaction (`Managed::replace_all`, issue 67 item 4: the
//! sync loads the days whose reports were made side by side together), on SQLite,
//! PostgreSQL and MariaDB: every slice is replaced exactly (the rows of other days and other
//! sellers untouched), a later load of an overlapping slice in the same call wins without
//! duplicating a row, loads of two tables interleave, and on the servers a load the engine
//! refuses takes the whole call's slices back with it. The servers are the ones every machine
//! of this project runs (PostgreSQL at 127.0.0.1:5432, MariaDB at 127.0.0.1:3306); without one
//! the test says why it skips that engine (under CI it fails instead).

use pp_warehouse::schema::spelling::Cell;
use pp_warehouse::schema::{Table, table};
use pp_warehouse::{Load, Managed, Slice};
use sqlx::{Connection, Executor, Row};

fn day(d: u32) -> String {
    format!("2026-01-{d:02}")
}

/// A row of `t` for `seller` on `date` with `units` (and the currency `cur`).
fn row(t: &Table, seller: i64, date: &str, units: i64, cur: &str) -> Vec<Cell> {
    let mut r: Vec<Cell> = t.columns.iter().map(|_| Cell::Null).collect();
    r[0] = Cell::Int(seller);
    r[t.col("Date")] = Cell::Text(date.into());
    r[t.col("UnitsOrdered")] = Cell::Int(units);
    r[t.col("Currency")] = Cell::Text(cur.into());
    r
}

/// The load of seller 1's days `from..=to` of `t`, each day's units `units`.
fn days(t: &'static Table, from: u32, to: u32, units: i64) -> Load {
    Load {
        slice: Slice {
            table: t,
            seller_id: 1,
            range: Some(("Date", day(from), day(to))),
            part: None,
        },
        rows: (from..=to)
            .map(|d| row(t, 1, &day(d), units, "USD"))
            .collect(),
    }
}

/// What a table holds: (seller, day, units) in order, read through the engine's own client.
async fn held(engine: &Engine, t: &str) -> Vec<(i64, String, i64)> {
    match engine {
        Engine::Sqlite(path) => {
            let c = rusqlite::Connection::open(path).unwrap();
            let sql = format!("SELECT SellerID, Date, UnitsOrdered FROM {t} ORDER BY 1, 2, 3");
            let mut st = c.prepare(&sql).unwrap();
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        }
        Engine::Pg(url) => {
            let mut c = sqlx::PgConnection::connect(url).await.unwrap();
            let sql = format!(
                "SELECT sellerid::BIGINT, date::TEXT, unitsordered::BIGINT FROM {} ORDER BY 1, 2, 3",
                t.to_lowercase()
            );
            let rows = c.fetch_all(sql.as_str()).await.unwrap();
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect()
        }
        Engine::My(url) => {
            let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
            let sql = format!(
                "SELECT CAST(SellerID AS SIGNED), CAST(Date AS CHAR), CAST(UnitsOrdered AS SIGNED) FROM {t} ORDER BY 1, 2, 3"
            );
            let rows = c.fetch_all(sql.as_str()).await.unwrap();
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect()
        }
    }
}

enum Engine {
    Sqlite(std::path::PathBuf),
    Pg(String),
    My(String),
}

const BY_DATE: &str = "spapi_sales_and_traffic_by_date";
const BY_ASIN: &str = "spapi_sales_and_traffic_by_asin";

/// The checks, on one engine at `locator`.
async fn holds_on(engine: Engine, locator: &str, server: bool) {
    let m = Managed::open(locator).unwrap();
    m.ensure_schema().await.unwrap();
    let (t, a) = (table(BY_DATE), table(BY_ASIN));
    // another seller's day, which no load of seller 1 may touch
    let other = Load {
        slice: Slice {
            table: t,
            seller_id: 2,
            range: Some(("Date", day(1), day(1))),
            part: None,
        },
        rows: vec![row(t, 2, &day(1), 9, "USD")],
    };
    m.replace_all(&[other]).await.unwrap();
    // six days, a load each, two tables interleaved, in one call
    let six: Vec<Load> = (1..=6)
        .flat_map(|d| [days(t, d, d, 1), days(a, d, d, 1)])
        .collect();
    assert_eq!(m.replace_all(&six).await.unwrap(), 12);
    let want = |units: &[i64]| -> Vec<(i64, String, i64)> {
        let mut w: Vec<_> = units
            .iter()
            .enumerate()
            .map(|(i, u)| (1, day(i as u32 + 1), *u))
            .collect();
        w.push((2, day(1), 9));
        w.sort();
        w
    };
    assert_eq!(held(&engine, BY_DATE).await, want(&[1; 6]));
    // days 2 and 3 re-read, then day 3 again in the same call: the later load wins, once
    let again = [days(t, 2, 2, 5), days(t, 3, 3, 5), days(t, 3, 3, 7)];
    m.replace_all(&again).await.unwrap();
    assert_eq!(held(&engine, BY_DATE).await, want(&[1, 5, 7, 1, 1, 1]));
    // the asin table's days stayed as they were
    let asin: Vec<i64> = held(&engine, BY_ASIN).await.iter().map(|r| r.2).collect();
    assert_eq!(asin, vec![1; 6]);
    if server {
        // a load the server refuses (a currency longer than its column) takes back the
        // slices before it in the call
        let mut bad = days(t, 6, 6, 8);
        bad.rows[0][t.col("Currency")] = Cell::Text("DOLLARS".into());
        let e = m
            .replace_all(&[days(t, 4, 5, 8), bad])
            .await
            .expect_err("the server refuses a currency of seven letters");
        assert!(!e.conflict, "{e}");
        assert_eq!(held(&engine, BY_DATE).await, want(&[1, 5, 7, 1, 1, 1]));
    }
}

#[tokio::test]
async fn several_slices_replace_in_one_transaction_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sqlite");
    let locator = format!("sqlite:{}", path.display());
    holds_on(Engine::Sqlite(path), &locator, false).await;

    let db = format!("pp_load_many_{}", std::process::id());
    match sqlx::PgConnection::connect("postgres://postgres@127.0.0.1:5432/postgres").await {
        Ok(mut admin) => {
            admin
                .execute(format!("CREATE DATABASE {db}").as_str())
                .await
                .unwrap();
            let url = format!("postgres://postgres@127.0.0.1:5432/{db}");
            holds_on(Engine::Pg(url.clone()), &url, true).await;
            admin
                .execute(format!("DROP DATABASE {db} WITH (FORCE)").as_str())
                .await
                .unwrap();
        }
        Err(e) => skip("PostgreSQL at 127.0.0.1:5432", e),
    }
    match sqlx::MySqlConnection::connect("mysql://root@127.0.0.1:3306/test").await {
        Ok(mut admin) => {
            admin
                .execute(format!("DROP DATABASE IF EXISTS {db}").as_str())
                .await
                .unwrap();
            admin
                .execute(format!("CREATE DATABASE {db}").as_str())
                .await
                .unwrap();
            let url = format!("mysql://root@127.0.0.1:3306/{db}");
            holds_on(Engine::My(url.clone()), &url, true).await;
            admin
                .execute(format!("DROP DATABASE {db}").as_str())
                .await
                .unwrap();
        }
        Err(e) => skip("MariaDB at 127.0.0.1:3306", e),
    }
}

/// Says why an engine's part was skipped; CI runs both servers, so there it fails.
fn skip(what: &str, e: sqlx::Error) {
    assert!(std::env::var_os("CI").is_none(), "CI runs {what}: {e}");
    eprintln!("skipped: no {what} ({e})");
}

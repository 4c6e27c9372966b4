//! A load that deadlocks with another transaction on MariaDB is rolled back by the server
//! and tried again at once: the slice lands, and the retry is in the log (issue 70, finding
//! 4: concurrent per-merchant loads deadlocked, and the dataset showed an internal error).
//! Needs MariaDB at 127.0.0.1:3306 (root, no password), as every machine of this project
//! runs it; without one the test says why it skipped.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pp_warehouse::schema::spelling::Cell;
use pp_warehouse::schema::table;
use pp_warehouse::{Managed, Slice};
use sqlx::{Connection, Executor, MySqlConnection};

/// The log lines written while the test runs.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_load_rolled_back_for_a_deadlock_is_tried_again_and_lands() {
    let server = "mysql://root@127.0.0.1:3306";
    let Ok(mut admin) = MySqlConnection::connect(&format!("{server}/test")).await else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs MariaDB at 127.0.0.1:3306"
        );
        eprintln!("skipped: no MariaDB at 127.0.0.1:3306");
        return;
    };
    let db = format!("pp_load_conflicts_{}", std::process::id());
    admin
        .execute(format!("DROP DATABASE IF EXISTS {db}").as_str())
        .await
        .unwrap();
    admin
        .execute(format!("CREATE DATABASE {db}").as_str())
        .await
        .unwrap();
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _log = tracing::subscriber::set_default(subscriber);

    let m = Managed::open(&format!("mariadb://root@127.0.0.1:3306/{db}")).unwrap();
    m.ensure_schema().await.unwrap();
    let t = table("spapi_sales_and_traffic_by_date");
    let row = |seller: i64, day: String, units: i64| {
        let mut r: Vec<Cell> = t.columns.iter().map(|_| Cell::Null).collect();
        r[0] = Cell::Int(seller);
        r[t.col("Date")] = Cell::Text(day);
        r[t.col("UnitsOrdered")] = Cell::Int(units);
        r
    };
    let day = |d: u32| format!("2026-01-{d:02}");
    let slice = Slice {
        table: t,
        seller_id: 1,
        range: Some(("Date", day(1), day(6))),
        part: None,
    };
    m.replace(&slice, (1..=6).map(|d| row(1, day(d), 1)).collect())
        .await
        .unwrap();

    // another transaction, heavy with rows of its own, holds a new row inside the slice
    let mut other = MySqlConnection::connect(&format!("{server}/{db}"))
        .await
        .unwrap();
    other.execute("BEGIN").await.unwrap();
    for d in 1..=200 {
        other
            .execute(
                format!(
                    "INSERT INTO spapi_sales_and_traffic_by_date (SellerID, Date, UnitsOrdered) VALUES (2, DATE_ADD('2025-01-01', INTERVAL {d} DAY), 1)"
                )
                .as_str(),
            )
            .await
            .unwrap();
    }
    other
        .execute("INSERT INTO spapi_sales_and_traffic_by_date (SellerID, Date, UnitsOrdered) VALUES (1, '2026-01-04', 99)")
        .await
        .unwrap();
    // the load starts, locks the slice's first days, and waits for that row
    let load = {
        let (m, slice) = (m.clone(), slice.clone());
        let rows: Vec<Vec<Cell>> = (1..=6).map(|d| row(1, day(d), 2)).collect();
        tokio::spawn(async move { m.replace(&slice, rows).await })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    // the other transaction now wants a day the load holds: a deadlock, and the server rolls
    // back the lighter transaction, the load's
    other
        .execute("DELETE FROM spapi_sales_and_traffic_by_date WHERE SellerID = 1 AND Date = '2026-01-02'")
        .await
        .unwrap();
    other.execute("ROLLBACK").await.unwrap();
    let loaded = tokio::time::timeout(Duration::from_secs(60), load)
        .await
        .expect("the load finished")
        .unwrap();
    assert_eq!(loaded.unwrap(), 6);
    let units: Vec<(i64,)> = sqlx::query_as(
        "SELECT UnitsOrdered FROM spapi_sales_and_traffic_by_date WHERE SellerID = 1 ORDER BY Date",
    )
    .fetch_all(&mut other)
    .await
    .unwrap();
    assert_eq!(units, vec![(2,); 6], "the slice is the load's rows");
    let logged = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    assert!(
        logged.contains("trying it again") && logged.contains("Deadlock"),
        "the retry is in the log: {logged}"
    );
    admin
        .execute(format!("DROP DATABASE {db}").as_str())
        .await
        .unwrap();
}

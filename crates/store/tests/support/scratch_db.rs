//! A PostgreSQL or MariaDB database of a test's own, made on the machine's server and dropped
//! when the test ends, for the tests that run on database servers (the store's conformance
//! suite, the several-instances process tests, the warehouse engines). The servers are reached
//! at `$PP_TEST_POSTGRES` (default `postgres://postgres@127.0.0.1:5432/postgres`) and
//! `$PP_TEST_MYSQL` (default `mysql://root@127.0.0.1:3306/test`), the servers every machine of
//! this project runs. Without one, `create` answers none with a note, except under CI, where it
//! fails.

use std::sync::atomic::{AtomicU32, Ordering};

/// The database; its URL is `url`.
pub struct ScratchDb {
    name: String,
    mysql: bool,
    pub url: String,
}

fn admin_url(mysql: bool) -> String {
    if mysql {
        std::env::var("PP_TEST_MYSQL").unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into())
    } else {
        std::env::var("PP_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
    }
}

/// Runs one statement as the server's administrator.
#[allow(dead_code)] // not every test crate that includes this file runs statements of its own
pub async fn admin_exec(mysql: bool, sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::{Connection, Executor};
    if mysql {
        let mut c = sqlx::MySqlConnection::connect(&admin_url(true)).await?;
        c.execute(sql).await?;
        c.close().await
    } else {
        let mut c = sqlx::PgConnection::connect(&admin_url(false)).await?;
        c.execute(sql).await?;
        c.close().await
    }
}

fn drop_sql(mysql: bool, name: &str) -> String {
    if mysql {
        format!("DROP DATABASE IF EXISTS {name}")
    } else {
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    }
}

impl ScratchDb {
    /// A fresh PostgreSQL database named after `prefix`, this process and a counter.
    pub async fn create(prefix: &str) -> Option<Self> {
        Self::on(false, prefix).await
    }

    /// A fresh MariaDB (or MySQL) database.
    #[allow(dead_code)]
    pub async fn create_mysql(prefix: &str) -> Option<Self> {
        Self::on(true, prefix).await
    }

    async fn on(mysql: bool, prefix: &str) -> Option<Self> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("{prefix}_{}_{n}", std::process::id());
        let _ = admin_exec(mysql, &drop_sql(mysql, &name)).await;
        if let Err(e) = admin_exec(mysql, &format!("CREATE DATABASE {name}")).await {
            let why = format!("no database server at {}: {e}", admin_url(mysql));
            assert!(std::env::var_os("CI").is_none(), "{why}");
            eprintln!("SKIPPED the database-server part: {why}");
            return None;
        }
        let admin = admin_url(mysql);
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        Some(Self {
            url: format!("{base}/{name}"),
            name,
            mysql,
        })
    }

    /// The database's name.
    #[allow(dead_code)]
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for ScratchDb {
    fn drop(&mut self) {
        // the test's runtime may be gone: drop the database from a thread of its own
        let (mysql, sql) = (self.mysql, drop_sql(self.mysql, &self.name));
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let _ = rt.block_on(admin_exec(mysql, &sql));
        })
        .join();
    }
}

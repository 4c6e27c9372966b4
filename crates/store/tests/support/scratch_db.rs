//! A PostgreSQL database of a test's own, made on the machine's server and dropped when the
//! test ends, for the tests that run on PostgreSQL (the store's conformance suite, the
//! several-instances process tests). The server is reached at `$PP_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`, the trust-auth server every machine of this
//! project runs). Without one, `create` answers none with a note, except under CI, where it
//! fails.

use std::sync::atomic::{AtomicU32, Ordering};

/// The database; its URL is `url`.
pub struct ScratchDb {
    name: String,
    pub url: String,
}

fn admin_url() -> String {
    std::env::var("PP_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn admin_exec(sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(&admin_url()).await?;
    sqlx::query(sql).execute(&mut c).await?;
    c.close().await
}

impl ScratchDb {
    /// A fresh database named after `prefix`, this process and a counter.
    pub async fn create(prefix: &str) -> Option<Self> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("{prefix}_{}_{n}", std::process::id());
        let _ = admin_exec(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        if let Err(e) = admin_exec(&format!("CREATE DATABASE {name}")).await {
            let why = format!("no PostgreSQL at {}: {e}", admin_url());
            assert!(std::env::var_os("CI").is_none(), "{why}");
            eprintln!("SKIPPED the PostgreSQL part: {why}");
            return None;
        }
        let admin = admin_url();
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        Some(Self {
            url: format!("{base}/{name}"),
            name,
        })
    }
}

impl Drop for ScratchDb {
    fn drop(&mut self) {
        // the test's runtime may be gone: drop the database from a thread of its own
        let name = self.name.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let _ = rt.block_on(admin_exec(&format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )));
        })
        .join();
    }
}

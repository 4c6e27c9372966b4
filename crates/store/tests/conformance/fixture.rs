//! One fresh store per engine. PostgreSQL is reached at `$PP_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`, the trust-auth server every machine of this
//! project runs); each test makes its own database and drops it when done. Without a server
//! the PostgreSQL half is skipped with a note, except under CI, where it fails.

use std::future::Future;

use pp_core::TenantId;
use pp_store::{StateUrl, Store};

/// A store and what keeps it alive.
pub struct Fixture {
    pub store: Store,
    pub engine: &'static str,
    _dir: tempfile::TempDir,
    url: StateUrl,
    database: Option<(String, String)>,
}

impl Fixture {
    /// Makes tenant `id` (most rows belong to one).
    pub async fn tenant(&self, id: &str) -> TenantId {
        let t = TenantId::parse(id).unwrap();
        self.store
            .tenants()
            .create(&t, id, &format!("sqlite:{id}.sqlite"))
            .await
            .unwrap();
        t
    }

    /// Another handle on the same state, as a second gateway instance holds it.
    pub async fn second_instance(&self) -> Store {
        Store::connect(&self.url, self._dir.path()).await.unwrap()
    }
}

fn admin_url() -> String {
    std::env::var("PP_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// `admin_url` with its database replaced by `db`.
fn url_of(db: &str) -> String {
    let admin = admin_url();
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    format!("{base}/{db}")
}

async fn admin_exec(sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(&admin_url()).await?;
    sqlx::query(sql).execute(&mut c).await?;
    c.close().await
}

async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    Fixture {
        store,
        engine: "sqlite",
        url: StateUrl::default_for(dir.path()),
        _dir: dir,
        database: None,
    }
}

async fn postgres() -> Option<Fixture> {
    let name = format!("pp_conformance_{}", pp_store::random_id("", 6).unwrap());
    if let Err(e) = admin_exec(&format!("CREATE DATABASE {name}")).await {
        let why = format!("no PostgreSQL at {}: {e}", admin_url());
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("SKIPPED the PostgreSQL half: {why}");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let url = StateUrl::parse(&url_of(&name), dir.path()).unwrap();
    let store = Store::connect(&url, dir.path()).await.unwrap();
    Some(Fixture {
        store,
        engine: "postgres",
        url,
        _dir: dir,
        database: Some((name, admin_url())),
    })
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some((name, _)) = self.database.take() {
            // the test's runtime may be gone: drop the database from a thread of its own
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
}

/// Runs `test` on a fresh SQLite store, then on a fresh PostgreSQL one.
pub async fn each_engine<F, Fut>(test: F)
where
    F: Fn(Fixture) -> Fut,
    Fut: Future<Output = ()>,
{
    test(sqlite().await).await;
    if let Some(f) = postgres().await {
        test(f).await;
    }
}

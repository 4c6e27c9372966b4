//! One fresh store per engine: SQLite in a temporary folder, PostgreSQL in a database of the
//! test's own (`ScratchDb`, dropped when done; without a server the PostgreSQL half is skipped
//! with a note, except under CI, where it fails).

use std::future::Future;

use pp_core::TenantId;
use pp_store::{StateUrl, Store};

use crate::scratch_db::ScratchDb;

/// A store and what keeps it alive.
pub struct Fixture {
    pub store: Store,
    pub engine: &'static str,
    _dir: tempfile::TempDir,
    url: StateUrl,
    /// Dropped last, after the store's connections.
    _database: Option<ScratchDb>,
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

async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    Fixture {
        store,
        engine: "sqlite",
        url: StateUrl::default_for(dir.path()),
        _dir: dir,
        _database: None,
    }
}

async fn postgres() -> Option<Fixture> {
    let db = ScratchDb::create("pp_conformance").await?;
    let dir = tempfile::tempdir().unwrap();
    let url = StateUrl::parse(&db.url, dir.path()).unwrap();
    let store = Store::connect(&url, dir.path()).await.unwrap();
    Some(Fixture {
        store,
        engine: "postgres",
        url,
        _dir: dir,
        _database: Some(db),
    })
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

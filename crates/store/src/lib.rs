//! The state store: the service's own data (tenants, service credentials, access tokens, and
//! later jobs, audit rows, brand memory and forecast state). SQLite in WAL mode by default;
//! migrations run when the store opens. Calls are synchronous and short; callers on an async
//! runtime keep them that way (no query here scans more than an index range).

mod credentials;
pub mod jobs;
mod migrations;
mod pool;
mod tenants;
mod tokens;

use std::path::{Path, PathBuf};

use pp_core::{Error, Result};

pub use credentials::{CredentialRow, NewCredential};
use pool::Pool;
pub use tenants::TenantRow;
pub use tokens::{NewToken, TokenGrant};

/// The service's state store.
#[derive(Clone)]
pub struct Store {
    pool: Pool,
    data_dir: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `<data_dir>/state.sqlite` and brings its schema up to date.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            Error::internal(format!(
                "cannot create data dir {}: {e}",
                data_dir.display()
            ))
        })?;
        let pool = Pool::new(data_dir.join("state.sqlite"));
        pool.with(migrations::run)?;
        Ok(Self {
            pool,
            data_dir: data_dir.to_path_buf(),
        })
    }

    /// Runs `f` on a pooled connection, for services that keep their own tables here
    /// (their migrations live in this crate so the schema has one version sequence).
    pub fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection) -> Result<T>,
    ) -> Result<T> {
        self.pool.with(f)
    }

    /// Records one metered API call; calls failing with 400 or above are recorded but not
    /// charged.
    pub fn record_usage(
        &self,
        tenant: &str,
        credential_id: &str,
        route: &str,
        status: u16,
    ) -> Result<()> {
        self.pool.with(|c| {
            c.execute(
                "INSERT INTO api_usage (tenant_id, credential_id, route, status, charged, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                rusqlite::params![tenant, credential_id, route, status, status < 400, now_unix()],
            )
            .map_err(db_err)?;
            Ok(())
        })
    }

    /// The folder holding the store and the tenants' default warehouses.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Where a tenant's default (embedded) warehouse file lives.
    pub fn default_warehouse_path(&self, tenant: &pp_core::TenantId) -> PathBuf {
        self.data_dir
            .join("tenants")
            .join(tenant.as_str())
            .join("warehouse.sqlite")
    }
}

impl Store {
    /// A 256-bit key the service keeps for `name`, made on first use and the same ever after
    /// (so cursors stay valid across restarts and across instances sharing the store).
    pub fn service_key(&self, name: &str) -> Result<[u8; 32]> {
        let fresh: [u8; 32] = random_bytes()?;
        self.pool.with(|c| {
            c.execute(
                "INSERT INTO service_keys (name, value, created_at) VALUES (?1, ?2, ?3) ON CONFLICT(name) DO NOTHING",
                rusqlite::params![name, &fresh[..], now_unix()],
            )
            .map_err(db_err)?;
            let v: Vec<u8> = c
                .query_row("SELECT value FROM service_keys WHERE name = ?1", [name], |r| r.get(0))
                .map_err(db_err)?;
            v.try_into().map_err(|_| Error::internal(format!("service key {name} is not 32 bytes")))
        })
    }
}

/// Seconds since the Unix epoch.
pub fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The current time as documents and events stamp it (RFC 3339, milliseconds, UTC).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Maps a SQLite failure to an opaque internal error (the cause is logged, not sent).
pub fn db_err(e: rusqlite::Error) -> Error {
    Error::internal("state store").with_source(e)
}

/// Random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| Error::internal(format!("random source: {e}")))?;
    Ok(buf)
}

/// A short random hex id with a prefix (`cred_…`, `job_…`, `rl_…`), `bytes` (at most 16) long.
pub fn random_id(prefix: &str, bytes: usize) -> Result<String> {
    let raw: [u8; 16] = random_bytes()?;
    Ok(format!("{prefix}{}", hex::encode(&raw[..bytes.min(16)])))
}

//! The state store: everything the service keeps (tenants, credentials and tokens, jobs, and the
//! services' own aggregates), behind async interfaces, one per aggregate (`store.tenants()`,
//! `store.credentials()`, `store.jobs()`, `store.intelligence()` …), on SQLite (the embedded default) or PostgreSQL
//! (several instances sharing one state), picked by the state URL. Migrations run when the
//! store opens. Each aggregate writes its SQL once for both engines (`db`).

pub mod ads_writes;
pub mod approvals;
pub mod brand;
mod connections;
pub mod costs;
mod credentials;
pub mod db;
pub mod events;
pub mod forecast;
pub mod intelligence;
pub mod jobs;
mod keys;
pub mod ledger;
pub mod listing_writes;
pub mod mcp_sessions;
pub mod migrations;
pub mod monitors;
pub mod pacing;
mod people;
mod policies;
pub mod sealing;
pub mod signin;
pub mod streams;
pub mod sync;
mod tenants;
mod tokens;
mod url;
mod usage;
pub mod webhooks;

use std::path::{Path, PathBuf};

use pp_core::{Error, Result};

pub use ads_writes::AdsWrites;
pub use approvals::Approvals;
pub use brand::Brand;
pub use connections::{ConnectStateRow, ConnectStates, ConnectionRow, Connections, NewConnection};
pub use credentials::{CredentialRow, Credentials, NewCredential};
pub use db::Dialect;
use db::{Db, PgDb, SqliteDb};
pub use events::Events;
pub use forecast::Forecast;
pub use intelligence::Intelligence;
pub use jobs::Jobs;
pub use keys::Keys;
pub use ledger::Ledger;
pub use listing_writes::ListingWrites;
pub use mcp_sessions::McpSessions;
pub use pacing::Pacing;
pub use people::{NewPerson, People, PersonRow};
pub use policies::{Policies, PolicyRow};
pub use signin::{ClientRow, Clients, Grants, SessionRow, Sessions, SetupCodes};
pub use sync::Sync;
pub use tenants::{TenantRow, Tenants};
pub use tokens::{Epochs, NewToken, TokenGrant, Tokens};
pub use url::{StateUrl, redact_password};
pub use usage::Usage;
pub use webhooks::Webhooks;

/// The service's state store.
#[derive(Clone)]
pub struct Store {
    db: Db,
    data_dir: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the embedded store `<data_dir>/state.sqlite` and brings its
    /// schema up to date.
    pub fn open(data_dir: &Path) -> Result<Self> {
        Self::open_sqlite(&data_dir.join("state.sqlite"), data_dir)
    }

    fn open_sqlite(file: &Path, data_dir: &Path) -> Result<Self> {
        for dir in [Some(data_dir), file.parent()].into_iter().flatten() {
            pp_core::files::private_dir(dir)
                .map_err(|e| Error::internal_with(format!("cannot create {}", dir.display()), e))?;
        }
        // the store holds password hashes and the secret key: its owner's only (its journal
        // files take the same mode from it)
        pp_core::files::private_file(file)
            .map_err(|e| Error::internal_with(format!("cannot create {}", file.display()), e))?;
        let db = SqliteDb::new(file.to_path_buf());
        db.with(migrations::run_sqlite)?;
        Ok(Self {
            db: Db::Sqlite(db),
            data_dir: data_dir.to_path_buf(),
        })
    }

    /// Opens the store `url` names (SQLite file or PostgreSQL database) and brings its schema
    /// up to date; `data_dir` holds the tenants' embedded warehouses either way.
    pub async fn connect(url: &StateUrl, data_dir: &Path) -> Result<Self> {
        match url {
            StateUrl::Sqlite(file) => Self::open_sqlite(file, data_dir),
            StateUrl::Postgres(u) => {
                pp_core::files::private_dir(data_dir).map_err(|e| {
                    Error::internal_with(format!("cannot create {}", data_dir.display()), e)
                })?;
                let db = PgDb::connect(u, 16).await?;
                migrations::run_postgres(&db).await?;
                Ok(Self {
                    db: Db::Postgres(db),
                    data_dir: data_dir.to_path_buf(),
                })
            }
        }
    }

    /// The database, for the aggregates.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Which engine holds the state.
    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    /// The folder holding the tenants' default warehouses (and the embedded store).
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

    pub fn tenants(&self) -> Tenants<'_> {
        Tenants(&self.db)
    }

    pub fn credentials(&self) -> Credentials<'_> {
        Credentials(&self.db)
    }

    pub fn tokens(&self) -> Tokens<'_> {
        Tokens(&self.db)
    }

    pub fn people(&self) -> People<'_> {
        People(&self.db)
    }

    /// People's browser sessions.
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions(&self.db)
    }

    /// OAuth clients: partner applications and dynamically registered ones.
    pub fn clients(&self) -> Clients<'_> {
        Clients(&self.db)
    }

    /// Grants with their codes, access and refresh tokens.
    pub fn grants(&self) -> Grants<'_> {
        Grants(&self.db)
    }

    /// One-time setup codes for the command-line plugin.
    pub fn setup_codes(&self) -> SetupCodes<'_> {
        SetupCodes(&self.db)
    }

    pub fn jobs(&self) -> Jobs<'_> {
        Jobs(&self.db)
    }

    pub fn keys(&self) -> Keys<'_> {
        Keys(&self.db)
    }

    pub fn usage(&self) -> Usage<'_> {
        Usage(&self.db)
    }

    pub fn ledger(&self) -> Ledger<'_> {
        Ledger(&self.db)
    }

    pub fn pacing(&self) -> Pacing<'_> {
        Pacing(&self.db)
    }

    pub fn connections(&self) -> Connections<'_> {
        Connections(&self.db)
    }

    pub fn connect_states(&self) -> ConnectStates<'_> {
        ConnectStates(&self.db)
    }

    pub fn forecast(&self) -> Forecast<'_> {
        Forecast(&self.db)
    }

    pub fn brand(&self) -> Brand<'_> {
        Brand(&self.db)
    }

    pub fn mcp_sessions(&self) -> McpSessions<'_> {
        McpSessions(&self.db)
    }

    pub fn ads_writes(&self) -> AdsWrites<'_> {
        AdsWrites(&self.db)
    }

    pub fn listing_writes(&self) -> ListingWrites<'_> {
        ListingWrites(&self.db)
    }

    pub fn intelligence(&self) -> Intelligence<'_> {
        Intelligence(&self.db)
    }

    /// Profit's tenant data: cost periods, exchange rates, the reporting currency, their log.
    pub fn costs(&self) -> costs::Costs<'_> {
        costs::Costs(&self.db)
    }

    pub fn policies(&self) -> Policies<'_> {
        Policies(&self.db)
    }

    pub fn approvals(&self) -> Approvals<'_> {
        Approvals(&self.db)
    }

    /// Amazon Marketing Stream: subscriptions, queues, records, days to make again.
    pub fn streams(&self) -> streams::Streams<'_> {
        streams::Streams(&self.db)
    }

    /// Warehouse sync: managed warehouses and each dataset's row and job.
    pub fn sync(&self) -> Sync<'_> {
        Sync(&self.db)
    }

    /// Outbound events (the feed; appending one also makes its webhook deliveries).
    pub fn events(&self) -> Events<'_> {
        Events(&self.db)
    }

    /// Monitors: a tenant's settings and the episodes its alerts are.
    pub fn monitors(&self) -> monitors::Monitors<'_> {
        monitors::Monitors(&self.db)
    }

    /// Webhook endpoints, their deliveries and attempts.
    pub fn webhooks(&self) -> Webhooks<'_> {
        Webhooks(&self.db)
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

/// An epoch-milliseconds time stamped the same way.
pub fn rfc3339_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Maps a SQLite failure to an opaque internal error (the cause is logged, not sent).
pub fn db_err(e: rusqlite::Error) -> Error {
    db::db_error(e)
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

//! One engine per tenant warehouse, opened on first use and kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pp_core::{Error, Kind, Result};
use tokio::sync::Semaphore;

use crate::engine::Engine;
use crate::server::mysql::MySqlEngine;
use crate::server::postgres::PgEngine;
use crate::sqlite::SqliteEngine;

/// An open engine and the locator it was opened from.
type Entry = (String, Arc<dyn Engine>);

/// Opens engines from warehouse locators and keeps them by tenant. Every engine it opens
/// shares one set of query slots, so no tenant's queries can take more than the machine's
/// share set aside for SQL.
#[derive(Clone)]
pub struct Registry {
    engines: Arc<Mutex<HashMap<String, Entry>>>,
    slots: Arc<Semaphore>,
}

impl Registry {
    /// A registry whose engines run at most `running` queries at once.
    pub fn new(running: usize) -> Self {
        Self {
            engines: Arc::default(),
            slots: Arc::new(Semaphore::new(running.max(1))),
        }
    }

    /// The engine for `tenant`, whose warehouse is at `locator` (`sqlite:<path>`).
    pub fn engine(&self, tenant: &str, locator: &str) -> Result<Arc<dyn Engine>> {
        let mut map = self
            .engines
            .lock()
            .map_err(|e| Error::internal(format!("engine registry: {e}")))?;
        if let Some((loc, engine)) = map.get(tenant)
            && loc == locator
        {
            return Ok(engine.clone());
        }
        let engine = open(locator, &self.slots)?;
        map.insert(tenant.to_owned(), (locator.to_owned(), engine.clone()));
        Ok(engine)
    }
}

/// Whether `locator` names a database server (PostgreSQL, MySQL or MariaDB) rather than a file.
pub fn is_server_url(locator: &str) -> bool {
    ["postgres://", "postgresql://", "mysql://", "mariadb://"]
        .iter()
        .any(|p| locator.starts_with(p))
}

/// Opens the engine a locator names (`sqlite:<path>`, `postgres://…`, `mysql://…` or
/// `mariadb://…`), running its queries in `slots`. Servers are connected on first use.
pub fn open(locator: &str, slots: &Arc<Semaphore>) -> Result<Arc<dyn Engine>> {
    let slots = slots.clone();
    match locator.split_once(':') {
        Some(("sqlite", path)) => Ok(Arc::new(SqliteEngine::new(path.into(), slots))),
        Some(("postgres" | "postgresql", _)) => Ok(Arc::new(PgEngine::new(locator, slots)?)),
        Some(("mysql", _)) => Ok(Arc::new(MySqlEngine::new(locator, slots)?)),
        Some(("mariadb", rest)) => Ok(Arc::new(MySqlEngine::new(&format!("mysql:{rest}"), slots)?)),
        _ => Err(Error::new(
            Kind::WarehouseUnavailable,
            "this tenant's warehouse engine is not supported by this build",
        )
        .with_field(
            "_cause",
            format!(
                "unsupported warehouse locator scheme in '{}'",
                pp_store::redact_password(locator)
            ),
        )),
    }
}

//! Tenants: a new tenant with its warehouse (managed: an embedded one, or a PostgreSQL or
//! MySQL/MariaDB database the sync fills; external: an SQLite file checked to be one, or a
//! database checked to hold a `seller` table), and the list, with warehouse locators shown
//! without passwords, and a managed tenant's own sync schedule. Only the service's operator
//! creates them.

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::{Store, TenantRow};

use crate::Operator;

/// The tenants handle ([`crate::Admin::tenants`]).
pub struct Tenants<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

/// What a new tenant's warehouse is: `warning` says what to fix (its login could write).
pub struct CreatedTenant {
    pub tenant: TenantRow,
    pub warning: Option<String>,
    /// Whether the gateway fills the warehouse (its sync), or someone else does.
    pub managed: bool,
}

impl Tenants<'_> {
    /// Creates tenant `id` (shown as `name`). Its warehouse is *external* when `warehouse`
    /// names one (a database URL or an SQLite file that someone else fills), or *managed* (the
    /// gateway creates its tables and its sync fills them): an embedded SQLite file in the
    /// data directory when neither is given, or the database `managed` names, which the loader
    /// writes through while tenant SQL reads through `warehouse`, a login that should only
    /// SELECT.
    pub async fn create(
        &self,
        id: &str,
        name: Option<&str>,
        warehouse: Option<&str>,
        managed: Option<&str>,
    ) -> Result<CreatedTenant> {
        self.op.require_service("creating a tenant")?;
        let tid = TenantId::parse(id)?;
        if let Some(n) = name {
            pp_core::text::check_one_line("name", n)?;
        }
        let mut warning = None;
        let loader = match (managed, warehouse) {
            (None, Some(_)) => None,
            (None, None) => {
                let p = std::path::absolute(self.store.default_warehouse_path(&tid))
                    .map_err(Error::internal_from)?;
                create_empty_warehouse(&p)?;
                Some(format!("sqlite:{}", p.display()))
            }
            (Some(url), reader) if pp_warehouse::is_server_url(url) => match reader {
                Some(r) if r != url && pp_warehouse::is_server_url(r) => Some(url.to_owned()),
                _ => {
                    return Err(Error::new(
                        Kind::BadParams,
                        "a managed warehouse on a database server needs --warehouse too: a \
                         login that can only SELECT, separate from the loader's (docs/warehouse-sync.md)",
                    ));
                }
            },
            (Some(_), _) => {
                return Err(Error::new(
                    Kind::BadParams,
                    "--managed takes a PostgreSQL or MySQL/MariaDB URL; leave both out for an \
                     embedded managed warehouse",
                ));
            }
        };
        if let Some(l) = &loader {
            // the tables first, so the reading login finds them
            pp_sync::create_tables(l).await?;
        }
        let locator = match (warehouse, &loader) {
            (Some(url), _) if pp_warehouse::is_server_url(url) => {
                warning = check_server(url).await?;
                url.to_owned()
            }
            (Some(p), _) => {
                let path = std::path::absolute(p).map_err(Error::internal_from)?;
                pp_warehouse::sqlite::check_file(&path)?;
                format!("sqlite:{}", path.display())
            }
            (None, Some(l)) => l.clone(),
            (None, None) => {
                return Err(Error::internal("a tenant without a warehouse to read"));
            }
        };
        let mut tenant = self
            .store
            .tenants()
            .create(&tid, name.unwrap_or(id), &locator)
            .await?;
        if let Some(l) = &loader {
            self.store.sync().manage(&tid, l).await?;
        }
        tenant.warehouse = shown(&tenant.warehouse);
        Ok(CreatedTenant {
            tenant,
            warning,
            managed: loader.is_some(),
        })
    }

    /// A managed tenant's own sync schedule (empty, set by no one, when the service's
    /// settings hold).
    pub async fn sync_schedule(&self, tenant: &str) -> Result<pp_sync::StoredSchedule> {
        let t = self.op.tenant(self.store, tenant).await?;
        if self.store.sync().loader(&t).await?.is_none() {
            return Err(Error::new(
                Kind::BadParams,
                format!("{t}'s warehouse is external: the gateway does not sync it"),
            ));
        }
        pp_sync::StoredSchedule::of(self.store, &t).await
    }

    /// Replaces a managed tenant's own sync schedule (checked; an empty one goes back to the
    /// service's settings), recorded as set by the operator. Each dataset's next daily run
    /// takes it; a run under way keeps the windows it planned with.
    pub async fn set_sync_schedule(
        &self,
        tenant: &str,
        schedule: pp_sync::TenantSchedule,
    ) -> Result<pp_sync::StoredSchedule> {
        let t = self.op.tenant(self.store, tenant).await?;
        pp_sync::StoredSchedule::save(self.store, &t, schedule, self.op.actor()).await
    }

    /// The tenants within reach, warehouses shown without passwords.
    pub async fn list(&self) -> Result<Vec<TenantRow>> {
        let mut ts = self.store.tenants().list().await?;
        ts.retain(|t| self.op.reaches(&t.id));
        for t in &mut ts {
            t.warehouse = shown(&t.warehouse);
        }
        Ok(ts)
    }
}

/// A warehouse locator as listings show it: no password, no `sqlite:` prefix.
fn shown(locator: &str) -> String {
    let l = locator.strip_prefix("sqlite:").unwrap_or(locator);
    pp_store::redact_password(l)
}

/// Checks that the database at `url` can be reached and holds a warehouse (a `seller`
/// table); a warning when its login could write.
async fn check_server(url: &str) -> Result<Option<String>> {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(1));
    let engine = pp_warehouse::open(url, &slots)?;
    let shown = pp_store::redact_password(url);
    let refuse = |why: String| {
        Error::new(
            Kind::BadParams,
            format!("{shown} is not a usable warehouse: {why}"),
        )
    };
    let tables = engine
        .tables()
        .await
        .map_err(|e| refuse(e.cause().unwrap_or(e.message()).to_owned()))?;
    if !tables.iter().any(|t| t.name == "seller") {
        return Err(refuse(
            "it has no seller table (load one with `world generate --out <url>`)".into(),
        ));
    }
    Ok(engine.login_can_write().await?.then(|| {
        format!(
            "the login in {shown} can change the warehouse. The gateway runs every query in a \
             read-only transaction, but a login that can only SELECT is the real guarantee (docs/deployment.md)."
        )
    }))
}

fn create_empty_warehouse(path: &std::path::Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        pp_core::files::private_dir(dir).map_err(Error::internal_from)?;
    }
    // An empty file is a valid, empty SQLite database.
    pp_core::files::private_file(path).map_err(Error::internal_from)
}

//! The tenants' warehouses as one service: the caller's own engine (found through the state
//! store's tenant row, never named by a request) and the limits its queries run under. Given
//! the auth epoch (which every change to a tenant row moves), it remembers which engine serves
//! each tenant, so a query reads the store only when a tenant changed.

use std::sync::Arc;

use pp_core::scope::SQL_SCOPES;
use pp_core::{Epoch, Error, Kind, Principal, Remembered, Result};
use pp_store::Store;
use serde::Deserialize;
use serde_json::Value;

use crate::engine::{Engine, QueryRequest, QueryResult, TableDescription, TableSummary};
use crate::limits::Limits;
use crate::params::Params;
use crate::registry::Registry;

/// One read-only statement, as `/api/query` and the `legacy_query` tool take it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SqlRequest {
    pub sql: Option<Value>,
    #[serde(default)]
    pub params: Option<Value>,
    #[serde(default)]
    pub query_timeout_ms: Option<Value>,
    /// Most rows to return, within the surface's cap.
    #[serde(default)]
    pub max_rows: Option<Value>,
}

/// A surface's result caps: rows unless asked, most rows, most bytes.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub default_rows: usize,
    pub max_rows: usize,
    pub max_bytes: usize,
}

impl SqlRequest {
    /// The checked statement and the limits it runs under; any malformed field is
    /// `invalid_request` naming it.
    fn checked(self, limits: &Limits, caps: Caps) -> Result<(QueryRequest, Limits)> {
        let sql = match self.sql {
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            Some(Value::String(_)) => return Err(Error::invalid_request("sql is empty")),
            Some(Value::Null) | None => {
                return Err(Error::invalid_request("sql is required")
                    .with_fix(r#"Send {"sql": "SELECT …"}."#));
            }
            Some(_) => return Err(Error::invalid_request("sql must be a string")),
        };
        let params = Params::from_json(self.params.as_ref())?;
        let whole = |name: &str, v: Option<Value>, hint: &str| -> Result<Option<u64>> {
            match v {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| Error::invalid_request(format!("{name} must be {hint}"))),
            }
        };
        let timeout = whole(
            "queryTimeoutMs",
            self.query_timeout_ms,
            "a positive whole number of milliseconds",
        )?;
        let rows = whole("maxRows", self.max_rows, "a positive whole number")?;
        let max_rows = match rows {
            None => caps.default_rows,
            Some(n) if (1..=caps.max_rows as u64).contains(&n) => n as usize,
            Some(_) => {
                return Err(Error::invalid_request(format!(
                    "maxRows must be a whole number from 1 to {}",
                    caps.max_rows
                )));
            }
        };
        let req = QueryRequest {
            sql,
            params,
            timeout_ms: limits.timeout_for(timeout)?,
        };
        let limits = Limits {
            max_rows,
            max_bytes: caps.max_bytes.min(limits.max_bytes),
            ..limits.clone()
        };
        Ok((req, limits))
    }
}

/// Tenants whose engines are remembered at most; past it the memory starts again empty.
const MAX_REMEMBERED: usize = 100_000;

/// Every tenant's warehouse, opened on first use.
#[derive(Clone)]
pub struct Warehouses {
    store: Store,
    registry: Registry,
    /// Engines by tenant id, each at the epoch its tenant row was read at.
    remembered: Option<Arc<Remembered<String, Arc<dyn Engine>>>>,
    /// Caps on every query.
    pub limits: Limits,
}

impl Warehouses {
    /// The warehouses of the tenants in `store`, queried within `limits`.
    pub fn new(store: Store, limits: Limits) -> Self {
        Self {
            store,
            registry: Registry::new(limits.max_running),
            remembered: None,
            limits,
        }
    }

    /// Remembers each tenant's engine while `epoch` (the auth epoch, which moves with every
    /// change to a tenant row, on any instance) stands still.
    pub fn remembering(mut self, epoch: Epoch) -> Self {
        self.remembered = Some(Arc::new(Remembered::new(epoch, MAX_REMEMBERED)));
        self
    }

    /// The caller's own warehouse; there is no way to name another.
    pub async fn of(&self, p: &Principal) -> Result<Arc<dyn Engine>> {
        self.of_tenant(&p.tenant).await
    }

    /// A tenant's warehouse, for work that runs on its behalf after the request that asked
    /// for it (an asynchronous intelligence run's job step).
    pub async fn of_tenant(&self, tenant: &pp_core::TenantId) -> Result<Arc<dyn Engine>> {
        let memory = self.remembered.as_deref();
        let seen = memory.map(Remembered::now);
        if let Some(engine) = memory.and_then(|m| m.get(tenant.as_str())) {
            return Ok(engine);
        }
        let row = self.store.tenants().get(tenant).await?.ok_or_else(|| {
            Error::new(Kind::WarehouseUnavailable, "the tenant has no warehouse")
                .with_field("_cause", format!("tenant {tenant} missing from store"))
        })?;
        let engine = self.registry.engine(&row.id, &row.warehouse)?;
        if let (Some(memory), Some(seen)) = (memory, seen) {
            memory.keep(row.id, seen, engine.clone());
        }
        Ok(engine)
    }

    /// The caps of `/api/query`: the configured limits.
    pub fn rest_caps(&self) -> Caps {
        Caps {
            default_rows: self.limits.max_rows,
            max_rows: self.limits.max_rows,
            max_bytes: self.limits.max_bytes,
        }
    }

    /// Runs one read-only statement on the caller's warehouse (the full read set and
    /// `sql:query`), within `caps`.
    pub async fn query(&self, p: &Principal, req: SqlRequest, caps: Caps) -> Result<QueryResult> {
        p.require(SQL_SCOPES)?;
        let (req, limits) = req.checked(&self.limits, caps)?;
        let engine = self.of(p).await?;
        crate::engine::timed_query(engine.as_ref(), req, &limits).await
    }

    /// The caller's tables and views.
    pub async fn tables(&self, p: &Principal) -> Result<Vec<TableSummary>> {
        p.require(SQL_SCOPES)?;
        self.of(p).await?.tables().await
    }

    /// One table or view of the caller's warehouse.
    pub async fn describe(&self, p: &Principal, name: &str) -> Result<TableDescription> {
        p.require(SQL_SCOPES)?;
        self.of(p).await?.describe(name).await
    }
}

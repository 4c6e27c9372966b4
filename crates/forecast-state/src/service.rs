//! The forecast-state service: documents, atomic batches, sub-brand scopes and the change
//! log, for every front door, with the connected-merchant rule (every merchant a batch names
//! must be a seller row of the caller's warehouse) and the scope rule (`corrections:write` or
//! `appstate:write`).

use std::collections::BTreeSet;

use pp_core::wire::{int_in, scalar_text};
use pp_core::{Error, Kind, Principal, Result, Scope};
use pp_store::Store;
use pp_warehouse::{Warehouses, directory};
use serde::Deserialize;

use crate::answers::{Applied, DocsPage, Envelope, Revisions, ScopeCreated, Scopes};
use crate::batch::Batch;
use crate::scopes::NewScope;

/// `GET …/doc`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocQuery {
    pub key: Option<String>,
}

/// `GET …/docs`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocsQuery {
    pub prefix: Option<String>,
    pub scope_id: Option<String>,
    pub after: Option<String>,
    #[serde(default, deserialize_with = "scalar_text")]
    pub limit: Option<String>,
}

/// `GET …/revisions`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevisionsQuery {
    pub scope_id: Option<String>,
    pub month: Option<String>,
    pub after: Option<String>,
    #[serde(default, deserialize_with = "scalar_text")]
    pub limit: Option<String>,
}

/// `GET …/scopes`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopesQuery {
    #[serde(default, deserialize_with = "scalar_text")]
    pub legacy_seller_id: Option<String>,
}

/// Forecast state over the state store and the tenants' warehouses.
pub struct ForecastState {
    store: Store,
    warehouses: Warehouses,
}

fn require(p: &Principal) -> Result<()> {
    if p.scopes.contains(Scope::CorrectionsWrite) || p.scopes.contains(Scope::AppstateWrite) {
        return Ok(());
    }
    pp_core::scope::require(&p.scopes, &[Scope::CorrectionsWrite])
}

fn required<'a>(v: &'a Option<String>, msg: &str) -> Result<&'a str> {
    v.as_deref().ok_or_else(|| Error::new(Kind::BadParams, msg))
}

impl ForecastState {
    pub fn new(store: Store, warehouses: Warehouses) -> Self {
        Self { store, warehouses }
    }

    /// Fails with `merchant_not_connected` unless every merchant is a seller row of the
    /// caller's warehouse.
    async fn check_merchants(&self, p: &Principal, merchants: &BTreeSet<i64>) -> Result<()> {
        let engine = self.warehouses.of(p).await?;
        let found =
            directory::existing_sellers(engine.as_ref(), &self.warehouses.limits, merchants)
                .await?;
        match merchants.difference(&found).next() {
            None => Ok(()),
            Some(m) => Err(Error::new(
                Kind::MerchantNotConnected,
                format!("merchant {m} is not connected to this account"),
            )
            .with_fix("GET /v1/accounts lists the connected merchants (legacy_seller_id).")),
        }
    }

    /// Checks that a batch names the caller's own database and connected merchants only.
    async fn admit(&self, p: &Principal, b: &Batch) -> Result<()> {
        require(p)?;
        crate::batch::check_database(p.tenant.as_str(), b.writes.iter().map(|w| &w.key))?;
        self.check_merchants(p, &b.merchants).await
    }

    /// An atomic batch of writes (read with `pp_forecast_state::parse`).
    pub async fn batch(&self, p: &Principal, b: Batch) -> Result<Applied> {
        self.admit(p, &b).await?;
        crate::batch::apply(&self.store, p.tenant.as_str(), &p.actor, &b).await
    }

    /// Creates a sub-brand scope (read with `pp_forecast_state::scopes::parse_create`).
    pub async fn create_scope(&self, p: &Principal, s: NewScope) -> Result<ScopeCreated> {
        self.admit(p, s.batch()).await?;
        crate::scopes::create(&self.store, p.tenant.as_str(), &p.actor, &s).await
    }

    /// One document.
    pub async fn doc(&self, p: &Principal, q: DocQuery) -> Result<Envelope> {
        require(p)?;
        crate::read::doc(
            &self.store,
            p.tenant.as_str(),
            required(&q.key, "key is required")?,
        )
        .await
    }

    /// A page of documents under a prefix.
    pub async fn docs(&self, p: &Principal, q: DocsQuery) -> Result<DocsPage> {
        require(p)?;
        let prefix = required(
            &q.prefix,
            "prefix is required (fb:<kind>:src:<database>:<merchant>)",
        )?;
        let limit = crate::read::limit(q.limit.as_deref())?;
        crate::read::docs(
            &self.store,
            p.tenant.as_str(),
            prefix,
            q.scope_id.as_deref(),
            q.after.as_deref(),
            limit,
        )
        .await
    }

    /// A page of a scope's change log.
    pub async fn revisions(&self, p: &Principal, q: RevisionsQuery) -> Result<Revisions> {
        require(p)?;
        let scope = required(&q.scope_id, "scope_id is required")?;
        let limit = crate::read::limit(q.limit.as_deref())?;
        crate::read::revisions(
            &self.store,
            p.tenant.as_str(),
            scope,
            q.month.as_deref(),
            q.after.as_deref(),
            limit,
        )
        .await
    }

    /// The sub-brand scopes, of one merchant or all.
    pub async fn scopes(&self, p: &Principal, q: ScopesQuery) -> Result<Scopes> {
        require(p)?;
        let merchant = int_in(
            "legacy_seller_id",
            q.legacy_seller_id.as_deref(),
            1,
            i64::MAX,
        )
        .map_err(|_| Error::new(Kind::BadParams, "legacy_seller_id must be a whole number"))?;
        crate::scopes::list(&self.store, p.tenant.as_str(), merchant).await
    }
}

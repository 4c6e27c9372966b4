//! The brand-memory service: context documents, the manifest, the lifecycle and the timeline,
//! as every front door reaches them. It finds the tenant's brands in its warehouse by
//! introspection (no `brand` table means no brands; any other failure is a failure), reads
//! timeline filters from one typed query, and records writes as the caller's principal.

use chrono::NaiveDate;
use pp_core::cursor::Cursors;
use pp_core::wire::{date, flag, int_in, scalar_text};
use pp_core::{Error, Kind, Principal, Result, Scope};
use pp_store::Store;
use pp_warehouse::{Warehouses, directory};
use serde::Deserialize;

use crate::answers::{Appended, Doc, Events, LifecycleChange, Manifest, Written};
use crate::docs::DocBody;
use crate::timeline::{Append, Corroboration, Filter};
use crate::{BrandRef, Writer};

/// `?lifecycle=` on the manifest: `active` leaves retired brands out; `all` (the default)
/// lists every brand.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestQuery {
    #[serde(default)]
    pub lifecycle: Option<String>,
}

/// Which document: a brand, a type, and a name for corpus documents.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocRef {
    pub brand: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// The timeline's filters, as a query string or tool arguments carry them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineQuery {
    #[serde(default)]
    pub brand: Option<String>,
    #[serde(default)]
    pub family: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub start_date: Option<String>,
    #[serde(default)]
    pub end_date: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub affects: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub overlaps_start: Option<String>,
    #[serde(default)]
    pub overlaps_end: Option<String>,
    #[serde(default, deserialize_with = "scalar_text")]
    pub future: Option<String>,
    #[serde(default, deserialize_with = "scalar_text")]
    pub limit: Option<String>,
    #[serde(default)]
    pub cursor: Option<String>,
}

impl TimelineQuery {
    /// The checked filter; a page holds at most `max` events, `default` unless asked.
    pub fn filter(&self, default: i64, max: i64) -> Result<Filter> {
        let overlaps = match (
            date("overlaps_start", self.overlaps_start.as_deref())?,
            date("overlaps_end", self.overlaps_end.as_deref())?,
        ) {
            (None, None) => None,
            (Some(a), Some(b)) if a <= b => Some((a, b)),
            _ => {
                return Err(Error::invalid_request(
                    "overlaps_start and overlaps_end go together, start first",
                ));
            }
        };
        Ok(Filter {
            brand: self.brand.clone(),
            family: self.family.clone(),
            kind: self.kind.clone(),
            start: date("start_date", self.start_date.as_deref())?,
            end: date("end_date", self.end_date.as_deref())?,
            category: self.category.clone(),
            source: self.source.clone(),
            status: self.status.clone(),
            affects: self.affects.clone(),
            tag: self.tag.clone(),
            overlaps,
            future: flag("future", self.future.as_deref())?,
            limit: int_in("limit", self.limit.as_deref(), 1, max)?.unwrap_or(default),
            cursor: self.cursor.clone(),
        })
    }
}

/// Brand memory over the state store and the tenants' warehouses.
pub struct BrandMemory {
    store: Store,
    warehouses: Warehouses,
    cursors: Cursors,
}

fn today() -> NaiveDate {
    chrono::Utc::now().date_naive()
}

/// Writes to documents and the lifecycle need `context:read`, then also `context:write`.
fn context_write(p: &Principal) -> Result<()> {
    p.require(&[Scope::ContextRead])?;
    p.require(&[Scope::ContextRead, Scope::ContextWrite])
}

impl BrandMemory {
    pub fn new(store: Store, warehouses: Warehouses, cursors: Cursors) -> Self {
        Self {
            store,
            warehouses,
            cursors,
        }
    }

    /// The tenant's brands, from its warehouse.
    async fn brands(&self, p: &Principal) -> Result<Vec<BrandRef>> {
        let engine = self.warehouses.of(p).await?;
        Ok(directory::brands(engine.as_ref(), &self.warehouses.limits)
            .await?
            .into_iter()
            .map(|b| BrandRef {
                slug: b.slug,
                name: b.name,
            })
            .collect())
    }

    /// Every brand with its documents and lifecycle (`context:read`).
    pub async fn manifest(&self, p: &Principal, q: ManifestQuery) -> Result<Manifest> {
        p.require(&[Scope::ContextRead])?;
        let active = match q.lifecycle.as_deref() {
            None | Some("all") => false,
            Some("active") => true,
            Some(_) => {
                return Err(Error::new(
                    Kind::BadParams,
                    "lifecycle must be active or all",
                ));
            }
        };
        let brands = self.brands(p).await?;
        crate::docs::manifest(&self.store, p.tenant.as_str(), &brands, active).await
    }

    /// One document (`context:read`).
    pub async fn doc(&self, p: &Principal, d: DocRef) -> Result<Doc> {
        p.require(&[Scope::ContextRead])?;
        let brands = self.brands(p).await?;
        crate::docs::get(
            &self.store,
            p.tenant.as_str(),
            &brands,
            &d.brand,
            &d.kind,
            d.name.as_deref(),
        )
        .await
    }

    /// Writes a document at `base_revision` (`context:read` + `context:write`).
    pub async fn put_doc(&self, p: &Principal, d: DocRef, body: DocBody) -> Result<Written> {
        context_write(p)?;
        let brands = self.brands(p).await?;
        let w = crate::docs::DocWrite {
            brand: &d.brand,
            kind: &d.kind,
            name: d.name.as_deref(),
            content: &body.content,
            base_revision: body.base_revision,
        };
        crate::docs::put(
            &self.store,
            p.tenant.as_str(),
            &brands,
            &Writer::from(p),
            &w,
        )
        .await
    }

    /// Retires or restores a brand (`context:read` + `context:write`).
    pub async fn set_lifecycle(
        &self,
        p: &Principal,
        change: crate::lifecycle::Change,
    ) -> Result<LifecycleChange> {
        context_write(p)?;
        let brands = self.brands(p).await?;
        crate::lifecycle::apply(
            &self.store,
            p.tenant.as_str(),
            &brands,
            &Writer::from(p),
            &change,
        )
        .await
    }

    /// Events newest first, filtered and paged (`timeline:read`).
    pub async fn timeline(&self, p: &Principal, f: &Filter) -> Result<Events> {
        p.require(&[Scope::TimelineRead])?;
        crate::timeline::list(&self.store, p.tenant.as_str(), &self.cursors, f, today()).await
    }

    /// Appends a stake, comment or action outcome (`timeline:read` + `timeline:write`).
    pub async fn append(&self, p: &Principal, a: Append) -> Result<Appended> {
        p.require(&[Scope::TimelineRead, Scope::TimelineWrite])?;
        let brands = self.brands(p).await?;
        crate::timeline::append(
            &self.store,
            p.tenant.as_str(),
            &brands,
            &Writer::from(p),
            a,
            today(),
        )
        .await
    }

    /// Corroborates stake `id` (`timeline:read` + `timeline:write`).
    pub async fn corroborate(&self, p: &Principal, id: i64, c: Corroboration) -> Result<Appended> {
        p.require(&[Scope::TimelineRead, Scope::TimelineWrite])?;
        crate::timeline::corroborate(
            &self.store,
            p.tenant.as_str(),
            &Writer::from(p),
            id,
            c,
            today(),
        )
        .await
    }
}

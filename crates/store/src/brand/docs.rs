//! Context documents: one row per tenant, brand, type and name, with every revision kept.

use pp_core::Result;

use super::{Author, Brand};
use crate::args;
use crate::db::Row;
use crate::now_rfc3339;

/// A document as read.
#[derive(Debug, Clone)]
pub struct DocRow {
    pub revision: i64,
    pub content: String,
    pub hash: String,
    pub updated_at: String,
    pub updated_by: String,
}

/// A document's line in the manifest.
#[derive(Debug, Clone)]
pub struct DocSummaryRow {
    pub brand: String,
    pub kind: String,
    pub name: String,
    pub revision: i64,
    pub hash: String,
    pub updated_at: String,
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Put {
    /// Stored at this revision.
    Written(i64),
    /// The content was already this; the revision stays.
    Unchanged(i64),
    /// The document is at another revision than the writer read; nothing was written.
    Stale(i64),
}

/// A document to write at the revision its writer read.
#[derive(Debug, Clone)]
pub struct DocPut {
    pub brand: String,
    pub kind: String,
    pub name: String,
    pub base_revision: i64,
    pub content: String,
    pub hash: String,
}

impl Brand<'_> {
    /// Writes a document if it is still at `base_revision` (0: must not exist).
    pub async fn put_doc(&self, tenant: &str, d: DocPut, by: Author) -> Result<Put> {
        let tenant = tenant.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let lock = tx.for_update();
                    let cur = tx
                        .one(
                            format!("SELECT revision, hash FROM context_docs WHERE tenant_id = ?1 AND brand = ?2 AND type = ?3 AND name = ?4{lock}"),
                            args![tenant.as_str(), d.brand.as_str(), d.kind.as_str(), d.name.as_str()],
                        )
                        .await?;
                    let (current, hash) = match cur {
                        Some(r) => (r.i64(0)?, Some(r.text(1)?)),
                        None => (0, None),
                    };
                    if current != d.base_revision {
                        return Ok(Put::Stale(current));
                    }
                    if hash.as_deref() == Some(d.hash.as_str()) {
                        return Ok(Put::Unchanged(current));
                    }
                    let rev = current + 1;
                    let at = now_rfc3339();
                    // a first write races on no row: the insert of the loser conflicts and
                    // changes nothing, so it is answered stale
                    let n = tx
                        .exec(
                            "INSERT INTO context_docs (tenant_id, brand, type, name, revision, content, hash, updated_at, updated_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                             ON CONFLICT (tenant_id, brand, type, name) DO UPDATE SET revision = excluded.revision, content = excluded.content, hash = excluded.hash, updated_at = excluded.updated_at, updated_by = excluded.updated_by
                             WHERE context_docs.revision = ?10",
                            args![tenant.as_str(), d.brand.as_str(), d.kind.as_str(), d.name.as_str(), rev, d.content.as_str(), d.hash.as_str(), at.as_str(), by.actor.as_str(), current],
                        )
                        .await?;
                    if n == 0 {
                        return Ok(Put::Stale(rev));
                    }
                    tx.exec(
                        "INSERT INTO context_doc_revisions (tenant_id, brand, type, name, revision, content, hash, actor, surface, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        args![tenant.as_str(), d.brand.as_str(), d.kind.as_str(), d.name.as_str(), rev, d.content.as_str(), d.hash.as_str(), by.actor.as_str(), by.surface.as_str(), at.as_str()],
                    )
                    .await?;
                    Ok(Put::Written(rev))
                })
            })
            .await
    }

    /// One document.
    pub async fn doc(
        &self,
        tenant: &str,
        brand: &str,
        kind: &str,
        name: &str,
    ) -> Result<Option<DocRow>> {
        self.0
            .one(
                "SELECT revision, content, hash, updated_at, updated_by FROM context_docs WHERE tenant_id = ?1 AND brand = ?2 AND type = ?3 AND name = ?4",
                args![tenant, brand, kind, name],
            )
            .await?
            .map(|r: Row| {
                Ok(DocRow {
                    revision: r.i64(0)?,
                    content: r.text(1)?,
                    hash: r.text(2)?,
                    updated_at: r.text(3)?,
                    updated_by: r.text(4)?,
                })
            })
            .transpose()
    }

    /// Every document of `tenant`, by brand, type and name.
    pub async fn doc_summaries(&self, tenant: &str) -> Result<Vec<DocSummaryRow>> {
        self.0
            .all(
                "SELECT brand, type, name, revision, hash, updated_at FROM context_docs WHERE tenant_id = ?1 ORDER BY brand, type, name",
                args![tenant],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(DocSummaryRow {
                    brand: r.text(0)?,
                    kind: r.text(1)?,
                    name: r.text(2)?,
                    revision: r.i64(3)?,
                    hash: r.text(4)?,
                    updated_at: r.text(5)?,
                })
            })
            .collect()
    }

    /// Whether the demo world has seeded `tenant` already.
    pub async fn demo_seeded(&self, tenant: &str) -> Result<bool> {
        Ok(self
            .0
            .one(
                "SELECT 1 FROM timeline_events WHERE tenant_id = ?1 AND source = 'demo_world' LIMIT 1",
                args![tenant],
            )
            .await?
            .is_some())
    }

    /// Seeds `tenant` in one transaction: first revisions of `docs` (kept where a document
    /// exists) and `events`, each followed by the event that corroborates it, if any (its
    /// `parent_id` is set here, to the event's new id).
    pub async fn seed(
        &self,
        tenant: &str,
        docs: Vec<DocPut>,
        events: Vec<(super::NewEvent, Option<super::NewEvent>)>,
        by: Author,
    ) -> Result<()> {
        let tenant = tenant.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let at = now_rfc3339();
                    for d in &docs {
                        tx.exec(
                            "INSERT INTO context_docs (tenant_id, brand, type, name, revision, content, hash, updated_at, updated_by) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8)
                             ON CONFLICT (tenant_id, brand, type, name) DO NOTHING",
                            args![tenant.as_str(), d.brand.as_str(), d.kind.as_str(), d.name.as_str(), d.content.as_str(), d.hash.as_str(), at.as_str(), by.actor.as_str()],
                        )
                        .await?;
                        tx.exec(
                            "INSERT INTO context_doc_revisions (tenant_id, brand, type, name, revision, content, hash, actor, surface, created_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9)",
                            args![tenant.as_str(), d.brand.as_str(), d.kind.as_str(), d.name.as_str(), d.content.as_str(), d.hash.as_str(), by.actor.as_str(), by.surface.as_str(), at.as_str()],
                        )
                        .await?;
                    }
                    for (e, corroboration) in events {
                        let id = super::timeline::insert(tx, &tenant, &e, &by).await?;
                        if let Some(c) = corroboration {
                            let c = super::NewEvent { parent_id: Some(id), ..c };
                            super::timeline::insert(tx, &tenant, &c, &by).await?;
                        }
                    }
                    Ok(())
                })
            })
            .await
    }
}

//! Forecast state's rows: documents under keys (with tombstones and versions), the change log
//! of override documents, and each database's home login. [`Forecast::apply`] is the atomic,
//! optimistic batch: it loads what is stored under the batch's keys, lets the caller plan the
//! writes from that (version checks, merges and revisions are the forecast crate's), and writes
//! the plan, all in one transaction that also claims the database's home login. PostgreSQL
//! serializes a tenant's batches with an advisory lock (a key being created has no row to
//! lock); SQLite's write lock does the same.

use pp_core::{Error, Kind, Result};

use crate::args;
use crate::db::{Db, Dialect, Row, Tx};

/// What is stored under a key (a tombstone has no document).
#[derive(Debug, Clone)]
pub struct StoredDoc {
    pub version: i64,
    pub doc: Option<String>,
    pub created_at: String,
}

/// A document to store (`doc: None` is a tombstone).
#[derive(Debug, Clone)]
pub struct DocWrite {
    pub key: String,
    pub kind: String,
    pub scope_id: String,
    pub month: Option<String>,
    pub version: i64,
    pub doc: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub updated_by: String,
}

/// One change-log line.
#[derive(Debug, Clone)]
pub struct RevisionWrite {
    pub key: String,
    pub scope_id: String,
    pub month: Option<String>,
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub version: i64,
    pub reason: Option<String>,
    pub actor: String,
    pub created_at: String,
}

/// What a batch writes.
#[derive(Debug, Default)]
pub struct Plan {
    pub docs: Vec<DocWrite>,
    pub revisions: Vec<RevisionWrite>,
}

/// Where a batch writes: the database whose home login it claims, as whom, and when.
#[derive(Debug, Clone)]
pub struct Home {
    pub database: String,
    pub login: String,
    pub at: String,
}

/// A live document as read.
#[derive(Debug, Clone)]
pub struct DocRow {
    pub key: String,
    pub kind: String,
    pub version: i64,
    pub doc: String,
    pub updated_at: String,
    pub updated_by: String,
}

/// A change-log line as read.
#[derive(Debug, Clone)]
pub struct RevisionRow {
    pub id: i64,
    pub scope_id: String,
    pub month: Option<String>,
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub reason: Option<String>,
    pub actor: String,
    pub created_at: String,
    pub version: i64,
}

/// The forecast aggregate.
pub struct Forecast<'a>(pub(crate) &'a Db);

async fn claim_home(tx: &mut Tx, tenant: &str, home: &Home) -> Result<()> {
    let found = tx
        .one(
            "SELECT login FROM forecast_homes WHERE tenant_id = ?1 AND database = ?2",
            args![tenant, home.database.as_str()],
        )
        .await
        .map_err(|e| {
            Error::new(
                Kind::Unavailable,
                "the home login of this database's forecast state could not be checked",
            )
            .with_field("_cause", e.to_string())
        })?;
    match found.map(|r| r.text(0)).transpose()? {
        Some(login) if login != home.login => Err(Error::new(
            Kind::StateHomeElsewhere,
            format!(
                "the forecast state of database '{}' lives under another login; nothing was written",
                home.database
            ),
        )
        .with_fix("Write as the login that holds this state, or ask a tenant admin to move it.")),
        Some(_) => Ok(()),
        None => {
            tx.exec(
                "INSERT INTO forecast_homes (tenant_id, database, login, since) VALUES (?1, ?2, ?3, ?4)",
                args![tenant, home.database.as_str(), home.login.as_str(), home.at.as_str()],
            )
            .await?;
            Ok(())
        }
    }
}

async fn write(tx: &mut Tx, tenant: &str, plan: Plan) -> Result<()> {
    let docs = plan
        .docs
        .into_iter()
        .map(|d| {
            args![
                tenant,
                d.key,
                d.kind,
                d.scope_id,
                d.month,
                d.version,
                d.doc,
                d.created_at,
                d.updated_at,
                d.updated_by
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO forecast_docs (tenant_id, key, kind, scope_id, month, version, doc, created_at, updated_at, updated_by)",
        "ON CONFLICT (tenant_id, key) DO UPDATE SET version = excluded.version, doc = excluded.doc,
           created_at = excluded.created_at, updated_at = excluded.updated_at, updated_by = excluded.updated_by",
        docs,
    )
    .await?;
    let revisions = plan
        .revisions
        .into_iter()
        .map(|r| {
            args![
                tenant,
                r.key,
                r.scope_id,
                r.month,
                r.field,
                r.before,
                r.after,
                r.version,
                r.reason,
                r.actor,
                r.created_at
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO forecast_revisions (tenant_id, key, scope_id, month, field, before, after, version, reason, actor, created_at)",
        "",
        revisions,
    )
    .await
}

fn doc_row(r: &Row) -> Result<DocRow> {
    Ok(DocRow {
        key: r.text(0)?,
        kind: r.text(1)?,
        version: r.i64(2)?,
        doc: r.text(3)?,
        updated_at: r.text(4)?,
        updated_by: r.text(5)?,
    })
}

impl Forecast<'_> {
    /// Applies a batch over `keys` in one transaction: `plan` sees what is stored under each
    /// key (in order) and answers the writes and a result, or an error that writes nothing.
    /// The keys of one batch are distinct (the forecast crate refuses a key named twice).
    pub async fn apply<T: Send + 'static>(
        &self,
        tenant: &str,
        home: Option<Home>,
        keys: Vec<String>,
        plan: impl FnOnce(Vec<Option<StoredDoc>>) -> Result<(Plan, T)> + Send + 'static,
    ) -> Result<T> {
        let tenant = tenant.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("forecast|{tenant}")).await?;
                    if let Some(h) = &home {
                        claim_home(tx, &tenant, h).await?;
                    }
                    // what is stored under every key, in one read
                    let list = match tx.dialect() {
                        Dialect::Sqlite => "SELECT value FROM json_each(?2)",
                        Dialect::Postgres => "SELECT jsonb_array_elements_text(CAST(?2 AS jsonb))",
                    };
                    let rows = tx
                        .all(
                            format!("SELECT key, version, doc, created_at FROM forecast_docs WHERE tenant_id = ?1 AND key IN ({list})"),
                            args![tenant.as_str(), serde_json::to_string(&keys).map_err(Error::internal_from)?],
                        )
                        .await?;
                    let mut found = std::collections::HashMap::with_capacity(rows.len());
                    for r in &rows {
                        let doc = StoredDoc { version: r.i64(1)?, doc: r.opt_text(2)?, created_at: r.text(3)? };
                        found.insert(r.text(0)?, doc);
                    }
                    let stored = keys.iter().map(|k| found.get(k).cloned()).collect();
                    let (writes, out) = plan(stored)?;
                    write(tx, &tenant, writes).await?;
                    Ok(out)
                })
            })
            .await
    }

    /// The live document under `key`.
    pub async fn doc(&self, tenant: &str, key: &str) -> Result<Option<DocRow>> {
        self.0
            .one(
                "SELECT key, kind, version, doc, updated_at, updated_by FROM forecast_docs
                 WHERE tenant_id = ?1 AND key = ?2 AND doc IS NOT NULL",
                args![tenant, key],
            )
            .await?
            .as_ref()
            .map(doc_row)
            .transpose()
    }

    /// Live documents whose key is `prefix` or continues it with `:` (so merchant 1 never
    /// matches merchant 10), after `after`, of `scope` when given: at most `limit`, by key.
    pub async fn docs(
        &self,
        tenant: &str,
        prefix: &str,
        scope: Option<&str>,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<DocRow>> {
        // an index range over the prefix (keys compare bytewise on both engines)
        let hi = format!("{prefix};");
        let sep = prefix.len() as i64 + 1;
        self.0
            .all(
                "SELECT key, kind, version, doc, updated_at, updated_by FROM forecast_docs
                 WHERE tenant_id = ?1 AND key >= ?2 AND key < ?3 AND key > ?4
                   AND (key = ?2 OR substr(key, CAST(?5 AS INTEGER), 1) = ':') AND doc IS NOT NULL
                   AND (?6 IS NULL OR scope_id = ?6)
                 ORDER BY key LIMIT ?7",
                args![tenant, prefix, hi, after.unwrap_or(""), sep, scope, limit],
            )
            .await?
            .iter()
            .map(doc_row)
            .collect()
    }

    /// A scope's change log after revision `after`, oldest first, at most `limit`.
    pub async fn revisions(
        &self,
        tenant: &str,
        scope_id: &str,
        month: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RevisionRow>> {
        self.0
            .all(
                "SELECT id, scope_id, month, field, before, after, reason, actor, created_at, version FROM forecast_revisions
                 WHERE tenant_id = ?1 AND scope_id = ?2 AND (?3 IS NULL OR month = ?3) AND id > ?4 ORDER BY id LIMIT ?5",
                args![tenant, scope_id, month, after, limit],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(RevisionRow {
                    id: r.i64(0)?,
                    scope_id: r.text(1)?,
                    month: r.opt_text(2)?,
                    field: r.text(3)?,
                    before: r.opt_text(4)?,
                    after: r.opt_text(5)?,
                    reason: r.opt_text(6)?,
                    actor: r.text(7)?,
                    created_at: r.text(8)?,
                    version: r.i64(9)?,
                })
            })
            .collect()
    }

    /// Live scope definitions whose scope id starts with `scope_prefix`: `(scope id,
    /// version, document)`, by key.
    pub async fn scope_defs(
        &self,
        tenant: &str,
        scope_prefix: &str,
    ) -> Result<Vec<(String, i64, String)>> {
        let hi = format!("{scope_prefix}\u{10ffff}");
        self.0
            .all(
                "SELECT scope_id, version, doc FROM forecast_docs
                 WHERE tenant_id = ?1 AND kind = 'scope_def' AND doc IS NOT NULL
                   AND scope_id >= ?2 AND scope_id < ?3 ORDER BY key",
                args![tenant, scope_prefix, hi],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?, r.text(2)?)))
            .collect()
    }
}

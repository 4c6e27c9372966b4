//! Atomic batches: every write of a batch is checked, then all are applied in one SQLite
//! transaction or none is. Optimistic: each write names the version it read (0 = must not
//! exist); one stale key fails the whole batch with the list of conflicts.

use std::collections::{BTreeSet, HashSet};

use pp_core::{Error, Kind, Result};
use pp_store::{Store, db_err};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use serde_json::{Map, Value, json};

use crate::answers::{Applied, WriteResult};
use crate::doc;
use crate::key::{DocKind, Key};

/// Most writes in one batch.
pub const MAX_WRITES: usize = 1_000;
/// Largest batch body, in bytes.
pub const MAX_BATCH_BYTES: usize = 8 * 1024 * 1024;
/// Largest single document, in bytes of JSON.
pub const MAX_DOC_BYTES: usize = 512 * 1024;

/// One checked write.
pub struct Write {
    pub key: Key,
    pub expected: i64,
    /// The write's fields, or `None` to delete.
    pub doc: Option<Map<String, Value>>,
}

/// A checked batch.
pub struct Batch {
    pub writes: Vec<Write>,
    pub reason: Option<String>,
    /// The merchants it names (each must be connected).
    pub merchants: BTreeSet<i64>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

fn too_large(msg: impl Into<String>) -> Error {
    Error::new(Kind::TooLarge, msg)
}

/// `reason`: optional, one line, at most 500 characters.
pub fn reason(v: Option<&Value>) -> Result<Option<String>> {
    pp_core::text::one_line("reason", v, 500)
}

/// `403 scope_not_yours` unless `database` is the caller's (the tenant's warehouse).
pub fn own_database(tenant: &str, database: &str) -> Result<()> {
    if database == tenant {
        return Ok(());
    }
    Err(Error::new(
        Kind::ScopeNotYours,
        format!("database '{database}' is not this credential's ('{tenant}')"),
    ))
}

/// Checks the keys' database against the caller's tenant (one database per batch).
pub fn check_database<'a>(tenant: &str, keys: impl Iterator<Item = &'a Key>) -> Result<()> {
    let dbs: BTreeSet<&str> = keys.map(|k| k.scope.database.as_str()).collect();
    if dbs.len() > 1 {
        return Err(bad(format!(
            "one batch names exactly one database; this one names {}",
            dbs.into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    dbs.into_iter()
        .next()
        .map_or(Ok(()), |db| own_database(tenant, db))
}

/// Parses and checks a batch body (everything that needs no stored state).
pub fn parse(tenant: &str, body: &Map<String, Value>) -> Result<Batch> {
    if body.contains_key("on_behalf_of") {
        return Err(bad(
            "on_behalf_of is refused: forecast state is written under the signed-in name",
        ));
    }
    if let Some(k) = body
        .keys()
        .find(|k| !["writes", "reason"].contains(&k.as_str()))
    {
        return Err(bad(format!(
            "'{k}' is not a field of a batch (writes, reason)"
        )));
    }
    let reason = reason(body.get("reason"))?;
    let Some(Value::Array(raw)) = body.get("writes") else {
        return Err(bad("writes must be an array"));
    };
    if raw.is_empty() {
        return Err(bad("writes is empty"));
    }
    if raw.len() > MAX_WRITES {
        return Err(too_large(format!(
            "a batch holds at most {MAX_WRITES} writes; this one holds {}",
            raw.len()
        )));
    }
    let mut seen = HashSet::new();
    let mut writes = Vec::with_capacity(raw.len());
    for (i, w) in raw.iter().enumerate() {
        let Value::Object(w) = w else {
            return Err(bad(format!("writes[{i}] must be an object")));
        };
        if let Some(k) = w
            .keys()
            .find(|k| !["key", "expected_version", "doc"].contains(&k.as_str()))
        {
            return Err(bad(format!(
                "writes[{i}].{k} is not a field of a write (key, expected_version, doc)"
            )));
        }
        let key = w
            .get("key")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("writes[{i}].key is required")))?;
        let expected = w
            .get("expected_version")
            .and_then(Value::as_i64)
            .filter(|v| *v >= 0)
            .ok_or_else(|| {
                bad(format!(
                    "writes[{i}].expected_version must be a whole number, 0 for a new key"
                ))
            })?;
        if !seen.insert(key.to_owned()) {
            return Err(too_large(format!(
                "key '{key}' appears more than once in the batch"
            )));
        }
        let doc = w
            .get("doc")
            .ok_or_else(|| bad(format!("writes[{i}].doc is required (null deletes)")))?;
        if doc.to_string().len() > MAX_DOC_BYTES {
            return Err(too_large(format!(
                "writes[{i}].doc is larger than {MAX_DOC_BYTES} bytes"
            )));
        }
        let key = Key::parse(key)?;
        writes.push((key, expected, doc));
    }
    check_database(tenant, writes.iter().map(|w| &w.0))?;
    let merchants = writes.iter().map(|w| w.0.scope.merchant).collect();
    let writes = writes
        .into_iter()
        .map(|(key, expected, d)| {
            let doc = if d.is_null() {
                None
            } else {
                Some(doc::validate(&key, d)?)
            };
            Ok(Write { key, expected, doc })
        })
        .collect::<Result<_>>()?;
    Ok(Batch {
        writes,
        reason,
        merchants,
    })
}

struct Stored {
    version: i64,
    doc: Option<Value>,
    created_at: String,
}

/// Applies a checked batch as `actor`: all or nothing.
pub fn apply(store: &Store, tenant: &str, actor: &str, batch: &Batch) -> Result<Applied> {
    if actor.trim().is_empty() {
        return Err(bad(
            "this sign-in carries no name; forecast state is written under the signed-in name",
        ));
    }
    store.with_conn(|c| {
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
        let at = pp_store::now_rfc3339();
        if let Some(first) = batch.writes.first() {
            claim_home(&tx, tenant, &first.key.scope.database, actor, &at)?;
        }
        let mut stored = Vec::with_capacity(batch.writes.len());
        let mut conflicts = Vec::new();
        for w in &batch.writes {
            let s = tx
                .query_row("SELECT version, doc, created_at FROM forecast_docs WHERE tenant_id = ?1 AND key = ?2", params![tenant, w.key.as_str()], |r| {
                    Ok(Stored { version: r.get(0)?, doc: r.get::<_, Option<String>>(1)?.and_then(|d| serde_json::from_str(&d).ok()), created_at: r.get(2)? })
                })
                .optional()
                .map_err(db_err)?;
            let actual = s.as_ref().filter(|s| s.doc.is_some()).map_or(0, |s| s.version);
            if actual != w.expected {
                conflicts.push(json!({ "key": w.key.as_str(), "expected": w.expected, "actual": actual }));
            }
            stored.push(s);
        }
        if !conflicts.is_empty() {
            return Err(Error::new(Kind::Conflict, format!("{} of {} writes are stale; nothing was written", conflicts.len(), batch.writes.len()))
                .with_fix("Read the documents again, reapply your change to what is stored, and resend with the versions you read.")
                .with_field("conflicts", conflicts));
        }
        let mut results = Vec::with_capacity(batch.writes.len());
        for (w, s) in batch.writes.iter().zip(&stored) {
            results.push(write_one(&tx, tenant, actor, &at, batch.reason.as_deref(), w, s.as_ref())?);
        }
        tx.commit().map_err(db_err)?;
        Ok(Applied { results })
    })
}

fn claim_home(
    tx: &rusqlite::Transaction<'_>,
    tenant: &str,
    database: &str,
    actor: &str,
    at: &str,
) -> Result<()> {
    let home: Option<String> = tx
        .query_row(
            "SELECT login FROM forecast_homes WHERE tenant_id = ?1 AND database = ?2",
            params![tenant, database],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| {
            Error::new(
                Kind::Unavailable,
                "the home login of this database's forecast state could not be checked",
            )
            .with_field("_cause", e.to_string())
        })?;
    match home {
        Some(login) if login != actor => Err(Error::new(
            Kind::StateHomeElsewhere,
            format!("the forecast state of database '{database}' lives under another login; nothing was written"),
        )
        .with_fix("Write as the login that holds this state, or ask a tenant admin to move it.")),
        Some(_) => Ok(()),
        None => {
            tx.execute("INSERT INTO forecast_homes (tenant_id, database, login, since) VALUES (?1, ?2, ?3, ?4)", params![tenant, database, actor, at]).map_err(db_err)?;
            Ok(())
        }
    }
}

fn write_one(
    tx: &rusqlite::Transaction<'_>,
    tenant: &str,
    actor: &str,
    at: &str,
    reason: Option<&str>,
    w: &Write,
    s: Option<&Stored>,
) -> Result<WriteResult> {
    let live = s.and_then(|s| s.doc.as_ref());
    let before = live.map(doc::content);
    let (after, changed_doc) = match &w.doc {
        None => {
            if live.is_none() {
                return Err(Error::not_found(format!(
                    "nothing is stored at '{}' to delete; nothing was written",
                    w.key.as_str()
                )));
            }
            (None, None)
        }
        Some(fields) => {
            let merged = doc::merge(&w.key, before.as_ref(), fields)?;
            if before.as_ref() == Some(&merged) {
                return Ok(WriteResult {
                    key: w.key.as_str().to_owned(),
                    version: w.expected,
                    changed: false,
                });
            }
            (Some(merged.clone()), Some(merged))
        }
    };
    let version = s.map_or(0, |s| s.version) + 1;
    let created = s
        .filter(|s| s.doc.is_some())
        .map_or(at, |s| s.created_at.as_str())
        .to_owned();
    let stored = changed_doc
        .map(|m| doc::stamped(&m, w.key.kind, version, at, actor, Some(&created)).to_string());
    tx.execute(
        "INSERT INTO forecast_docs (tenant_id, key, kind, scope_id, month, version, doc, created_at, updated_at, updated_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (tenant_id, key) DO UPDATE SET version = excluded.version, doc = excluded.doc,
           created_at = excluded.created_at, updated_at = excluded.updated_at, updated_by = excluded.updated_by",
        params![tenant, w.key.as_str(), w.key.kind.as_str(), w.key.scope.render(), w.key.month, version, stored, created, at, actor],
    )
    .map_err(db_err)?;
    if w.key.kind == DocKind::Override {
        for (field, b, a) in doc::changes(before.as_ref(), after.as_ref()) {
            tx.execute(
                "INSERT INTO forecast_revisions (tenant_id, key, scope_id, month, field, before, after, version, reason, actor, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![tenant, w.key.as_str(), w.key.scope.render(), w.key.month, field, nullable(&b), nullable(&a), version, reason, actor, at],
            )
            .map_err(db_err)?;
        }
    }
    Ok(WriteResult {
        key: w.key.as_str().to_owned(),
        version,
        changed: true,
    })
}

fn nullable(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path()).unwrap();
        (dir, s)
    }

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_nameless_session_writes_nothing() {
        let (_d, s) = store();
        let b = parse("acme", &body(json!({ "writes": [{ "key": "fb:account:src:acme:1", "expected_version": 0, "doc": {} }] }))).unwrap();
        assert_eq!(
            apply(&s, "acme", " ", &b).unwrap_err().kind,
            Kind::BadParams
        );
        assert!(apply(&s, "acme", "svc:planner", &b).is_ok());
    }
}

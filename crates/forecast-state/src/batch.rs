//! Atomic batches: every write of a batch is checked, then all are applied in one state-store
//! transaction (`pp_store::forecast`) or none is. Optimistic: each write names the version it read (0 = must not
//! exist); one stale key fails the whole batch with the list of conflicts.

use std::collections::{BTreeSet, HashSet};

use pp_core::{Error, Kind, Result};
use pp_store::Store;
use pp_store::forecast::{DocWrite, Home, Plan, RevisionWrite, StoredDoc};
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
#[derive(Clone)]
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

/// Applies a checked batch as `actor`: all or nothing.
pub async fn apply(store: &Store, tenant: &str, actor: &str, batch: &Batch) -> Result<Applied> {
    if actor.trim().is_empty() {
        return Err(bad(
            "this sign-in carries no name; forecast state is written under the signed-in name",
        ));
    }
    let at = pp_store::now_rfc3339();
    let home = batch.writes.first().map(|w| Home {
        database: w.key.scope.database.clone(),
        login: actor.to_owned(),
        at: at.clone(),
    });
    let keys = batch
        .writes
        .iter()
        .map(|w| w.key.as_str().to_owned())
        .collect();
    let (writes, reason) = (batch.writes.clone(), batch.reason.clone());
    let actor = actor.to_owned();
    store
        .forecast()
        .apply(tenant, home, keys, move |stored| {
            plan(&actor, &at, reason.as_deref(), &writes, stored)
        })
        .await
}

/// The writes of a batch over what is stored: a conflict if any version is stale, else every
/// changed document (stamped) and, for overrides, a change-log line per changed field.
fn plan(
    actor: &str,
    at: &str,
    reason: Option<&str>,
    writes: &[Write],
    stored: Vec<Option<StoredDoc>>,
) -> Result<(Plan, Applied)> {
    let live = |s: &Option<StoredDoc>| -> Result<Option<Value>> {
        // a stored document that no longer parses is a failure to read, never a default
        match s.as_ref().and_then(|s| s.doc.as_deref()) {
            None => Ok(None),
            Some(d) => serde_json::from_str(d)
                .map(Some)
                .map_err(Error::internal_from),
        }
    };
    let docs: Vec<Option<Value>> = stored.iter().map(live).collect::<Result<_>>()?;
    let conflicts: Vec<Value> = writes
        .iter()
        .zip(stored.iter().zip(&docs))
        .filter_map(|(w, (s, d))| {
            let actual = s.as_ref().filter(|_| d.is_some()).map_or(0, |s| s.version);
            (actual != w.expected)
                .then(|| json!({ "key": w.key.as_str(), "expected": w.expected, "actual": actual }))
        })
        .collect();
    if !conflicts.is_empty() {
        return Err(Error::new(Kind::Conflict, format!("{} of {} writes are stale; nothing was written", conflicts.len(), writes.len()))
            .with_fix("Read the documents again, reapply your change to what is stored, and resend with the versions you read.")
            .with_field("conflicts", conflicts));
    }
    let mut out = Plan::default();
    let mut results = Vec::with_capacity(writes.len());
    for (w, (s, d)) in writes.iter().zip(stored.iter().zip(&docs)) {
        results.push(write_one(
            &mut out,
            actor,
            at,
            reason,
            w,
            s.as_ref(),
            d.as_ref(),
        )?);
    }
    Ok((out, Applied { results }))
}

fn write_one(
    out: &mut Plan,
    actor: &str,
    at: &str,
    reason: Option<&str>,
    w: &Write,
    s: Option<&StoredDoc>,
    live: Option<&Value>,
) -> Result<WriteResult> {
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
        .filter(|_| live.is_some())
        .map_or(at, |s| s.created_at.as_str())
        .to_owned();
    let stored = changed_doc
        .map(|m| doc::stamped(&m, w.key.kind, version, at, actor, Some(&created)).to_string());
    out.docs.push(DocWrite {
        key: w.key.as_str().to_owned(),
        kind: w.key.kind.as_str().to_owned(),
        scope_id: w.key.scope.render(),
        month: w.key.month.clone(),
        version,
        doc: stored,
        created_at: created,
        updated_at: at.to_owned(),
        updated_by: actor.to_owned(),
    });
    if w.key.kind == DocKind::Override {
        for (field, b, a) in doc::changes(before.as_ref(), after.as_ref()) {
            out.revisions.push(RevisionWrite {
                key: w.key.as_str().to_owned(),
                scope_id: w.key.scope.render(),
                month: w.key.month.clone(),
                field: field.to_owned(),
                before: nullable(&b),
                after: nullable(&a),
                version,
                reason: reason.map(str::to_owned),
                actor: actor.to_owned(),
                created_at: at.to_owned(),
            });
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

    #[tokio::test]
    async fn a_nameless_session_writes_nothing() {
        let (_d, s) = store();
        let b = parse("acme", &body(json!({ "writes": [{ "key": "fb:account:src:acme:1", "expected_version": 0, "doc": {} }] }))).unwrap();
        assert_eq!(
            apply(&s, "acme", " ", &b).await.unwrap_err().kind,
            Kind::BadParams
        );
        assert!(apply(&s, "acme", "svc:planner", &b).await.is_ok());
    }
}

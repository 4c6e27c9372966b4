//! Reads: one document, documents by key prefix, and the change log.

use pp_core::{Error, Kind, Result};
use pp_store::{Store, db_err};
use rusqlite::{OptionalExtension, params};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::answers::{DocsPage, Envelope, Revision, Revisions};
use crate::batch::{check_database, own_database};
use crate::key::{Key, Month, ScopeId};

/// A stored JSON column that no longer parses is a failure to read, never a default.
fn stored<T: serde::de::DeserializeOwned>(i: usize, s: String) -> rusqlite::Result<T> {
    serde_json::from_str(&s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

/// An optional stored JSON column: `NULL` reads as JSON null.
fn stored_or_null(i: usize, s: Option<String>) -> rusqlite::Result<Value> {
    s.map_or(Ok(Value::Null), |s| stored(i, s))
}

fn raw(i: usize, s: String) -> rusqlite::Result<Box<RawValue>> {
    RawValue::from_string(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

/// `GET …/doc?key=`: the document envelope, or `404 not_found`.
pub fn doc(store: &Store, tenant: &str, key: &str) -> Result<Envelope> {
    let k = Key::parse(key)?;
    check_database(tenant, std::iter::once(&k))?;
    let row = store.with_conn(|c| {
        c.query_row(
            "SELECT kind, version, doc, updated_at, updated_by FROM forecast_docs WHERE tenant_id = ?1 AND key = ?2 AND doc IS NOT NULL",
            params![tenant, key],
            |r| {
                Ok(Envelope {
                    key: key.to_owned(),
                    kind: r.get(0)?,
                    version: r.get(1)?,
                    doc: raw(2, r.get(2)?)?,
                    updated_at: r.get(3)?,
                    updated_by: r.get(4)?,
                })
            },
        )
        .optional()
        .map_err(db_err)
    })?;
    row.ok_or_else(|| Error::not_found(format!("nothing is stored at '{key}'")))
}

/// A page size within 1..=500 (default 200).
pub fn limit(v: Option<&str>) -> Result<i64> {
    match v {
        None | Some("") => Ok(200),
        Some(s) => s
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=500).contains(n))
            .ok_or_else(|| {
                Error::new(
                    Kind::BadParams,
                    "limit must be a whole number from 1 to 500",
                )
            }),
    }
}

/// `GET …/docs?prefix=&scope_id=&after=&limit=`: documents in key order. The prefix
/// `fb:<kind>:src:<database>:<merchant>` also matches that merchant's sub-brands.
pub fn docs(
    store: &Store,
    tenant: &str,
    prefix: &str,
    scope_id: Option<&str>,
    after: Option<&str>,
    limit: i64,
) -> Result<DocsPage> {
    let probe = Key::parse(&format!(
        "{prefix}{}",
        if prefix.starts_with("fb:override:") {
            ":2000-01-01"
        } else {
            ""
        }
    ))
    .or_else(|_| Key::parse(&format!("{prefix}:scope:x")))
    .map_err(|e| match e.kind {
        Kind::InsufficientScope => e,
        _ => Error::new(
            Kind::BadParams,
            format!("prefix must be fb:<kind>:src:<database>:<merchant> (got '{prefix}')"),
        ),
    })?;
    check_database(tenant, std::iter::once(&probe))?;
    let scope = scope_id
        .map(ScopeId::parse)
        .transpose()?
        .map(|s| s.render());
    let mut docs = store.with_conn(|c| {
        let mut st = c
            .prepare_cached(
                "SELECT key, kind, version, doc, updated_at, updated_by FROM forecast_docs
                 WHERE tenant_id = ?1 AND key >= ?2 AND key < ?3 AND key > ?4
                   AND (key = ?2 OR substr(key, ?5, 1) = ':') AND doc IS NOT NULL
                   AND (?6 IS NULL OR scope_id = ?6)
                 ORDER BY key LIMIT ?7",
            )
            .map_err(db_err)?;
        // An index range over the prefix, keeping the prefix itself and keys that continue it
        // with ':' (so merchant 1 never matches merchant 10).
        let hi = format!("{prefix};");
        let sep = prefix.len() as i64 + 1;
        st.query_map(
            params![
                tenant,
                prefix,
                hi,
                after.unwrap_or(""),
                sep,
                scope,
                limit + 1
            ],
            |r| {
                Ok(Envelope {
                    key: r.get(0)?,
                    kind: r.get(1)?,
                    version: r.get(2)?,
                    doc: raw(3, r.get(3)?)?,
                    updated_at: r.get(4)?,
                    updated_by: r.get(5)?,
                })
            },
        )
        .map_err(db_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_err)
    })?;
    let more = docs.len() as i64 > limit;
    docs.truncate(limit as usize);
    let next_after = if more {
        docs.last().map(|d| d.key.clone())
    } else {
        None
    };
    Ok(DocsPage { docs, next_after })
}

/// `GET …/revisions?scope_id=&month=&after=`: the change log of a scope, oldest first.
pub fn revisions(
    store: &Store,
    tenant: &str,
    scope_id: &str,
    month: Option<&str>,
    after: Option<&str>,
    limit: i64,
) -> Result<Revisions> {
    let scope = ScopeId::parse(scope_id)?;
    own_database(tenant, &scope.database)?;
    let month = month
        .map(Month::parse)
        .transpose()
        .map_err(|_| Error::new(Kind::BadParams, "month must be YYYY-MM-01"))?;
    let month = month.as_ref().map(Month::as_str);
    let after: i64 = match after {
        None | Some("") => 0,
        Some(a) => a
            .parse()
            .map_err(|_| Error::new(Kind::BadParams, "after must be a revision id"))?,
    };
    let rows = store.with_conn(|c| {
        let mut st = c
            .prepare(
                "SELECT id, scope_id, month, field, before, after, reason, actor, created_at, version FROM forecast_revisions
                 WHERE tenant_id = ?1 AND scope_id = ?2 AND (?3 IS NULL OR month = ?3) AND id > ?4 ORDER BY id LIMIT ?5",
            )
            .map_err(db_err)?;
        st.query_map(params![tenant, scope.render(), month, after, limit + 1], |r| {
            Ok(Revision {
                id: r.get(0)?,
                scope_id: r.get(1)?,
                month: r.get(2)?,
                field: r.get(3)?,
                before: stored_or_null(4, r.get(4)?)?,
                after: stored_or_null(5, r.get(5)?)?,
                reason: r.get(6)?,
                actor: r.get(7)?,
                created_at: r.get(8)?,
                version: r.get(9)?,
            })
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_err)
    })?;
    let mut rows = rows;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_after = if more {
        rows.last().map(|r| r.id)
    } else {
        None
    };
    Ok(Revisions {
        revisions: rows,
        next_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{apply, parse};
    use serde_json::json;

    #[test]
    fn a_merchant_prefix_never_matches_a_longer_merchant_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let body = json!({ "writes": [
            { "key": "fb:account:src:acme:1", "expected_version": 0, "doc": { "a": 1 } },
            { "key": "fb:account:src:acme:10", "expected_version": 0, "doc": { "a": 10 } },
            { "key": "fb:account:src:acme:1:scope:sb_x", "expected_version": 0, "doc": { "a": 2 } },
            { "key": "fb:override:src:acme:1:2026-01-01", "expected_version": 0, "doc": { "status": "auto" } },
        ] });
        let b = parse("acme", body.as_object().unwrap()).unwrap();
        apply(&store, "acme", "svc:t", &b).unwrap();
        let page = docs(&store, "acme", "fb:account:src:acme:1", None, None, 200).unwrap();
        let keys: Vec<&str> = page.docs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(
            keys,
            ["fb:account:src:acme:1", "fb:account:src:acme:1:scope:sb_x"]
        );
        let page = docs(&store, "acme", "fb:account:src:acme:10", None, None, 200).unwrap();
        assert_eq!(page.docs.len(), 1);
        let doc: Value = serde_json::from_str(page.docs[0].doc.get()).unwrap();
        assert_eq!(
            (doc["a"].as_i64(), doc["version"].as_i64()),
            (Some(10), Some(1)),
            "the stored body is served as it is"
        );
    }
}

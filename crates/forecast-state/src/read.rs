//! Reads: one document, documents by key prefix, and the change log.

use pp_core::{Error, Kind, Result};
use pp_store::Store;
use pp_store::forecast::DocRow;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::answers::{DocsPage, Envelope, Revision, Revisions};
use crate::batch::{check_database, own_database};
use crate::key::{Key, Month, ScopeId};

/// A stored JSON text that no longer parses is a failure to read, never a default.
fn stored(s: &str) -> Result<Value> {
    serde_json::from_str(s).map_err(Error::internal_from)
}

/// An optional stored JSON text: none reads as JSON null.
fn stored_or_null(s: Option<&str>) -> Result<Value> {
    s.map_or(Ok(Value::Null), stored)
}

fn envelope(r: DocRow) -> Result<Envelope> {
    Ok(Envelope {
        doc: RawValue::from_string(r.doc).map_err(Error::internal_from)?,
        key: r.key,
        kind: r.kind,
        version: r.version,
        updated_at: r.updated_at,
        updated_by: r.updated_by,
    })
}

/// `GET …/doc?key=`: the document envelope, or `404 not_found`.
pub async fn doc(store: &Store, tenant: &str, key: &str) -> Result<Envelope> {
    let k = Key::parse(key)?;
    check_database(tenant, std::iter::once(&k))?;
    let row = store
        .forecast()
        .doc(tenant, key)
        .await?
        .map(envelope)
        .transpose()?;
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
pub async fn docs(
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
    let mut docs = store
        .forecast()
        .docs(tenant, prefix, scope.as_deref(), after, limit + 1)
        .await?
        .into_iter()
        .map(envelope)
        .collect::<Result<Vec<_>>>()?;
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
pub async fn revisions(
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
    let rows = store
        .forecast()
        .revisions(tenant, &scope.render(), month, after, limit + 1)
        .await?
        .into_iter()
        .map(|r| {
            Ok(Revision {
                before: stored_or_null(r.before.as_deref())?,
                after: stored_or_null(r.after.as_deref())?,
                id: r.id,
                scope_id: r.scope_id,
                month: r.month,
                field: r.field,
                reason: r.reason,
                actor: r.actor,
                created_at: r.created_at,
                version: r.version,
            })
        })
        .collect::<Result<Vec<_>>>()?;
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

    #[tokio::test]
    async fn a_merchant_prefix_never_matches_a_longer_merchant_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let body = json!({ "writes": [
            { "key": "fb:account:src:acme:1", "expected_version": 0, "doc": { "a": 1 } },
            { "key": "fb:account:src:acme:10", "expected_version": 0, "doc": { "a": 10 } },
            { "key": "fb:account:src:acme:1:scope:sb_x", "expected_version": 0, "doc": { "a": 2 } },
            { "key": "fb:override:src:acme:1:2026-01-01", "expected_version": 0, "doc": { "status": "auto" } },
        ] });
        let b = parse("acme", body.as_object().unwrap()).unwrap();
        apply(&store, "acme", "svc:t", &b).await.unwrap();
        let page = docs(&store, "acme", "fb:account:src:acme:1", None, None, 200)
            .await
            .unwrap();
        let keys: Vec<&str> = page.docs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(
            keys,
            ["fb:account:src:acme:1", "fb:account:src:acme:1:scope:sb_x"]
        );
        let page = docs(&store, "acme", "fb:account:src:acme:10", None, None, 200)
            .await
            .unwrap();
        assert_eq!(page.docs.len(), 1);
        let doc: Value = serde_json::from_str(page.docs[0].doc.get()).unwrap();
        assert_eq!(
            (doc["a"].as_i64(), doc["version"].as_i64()),
            (Some(10), Some(1)),
            "the stored body is served as it is"
        );
    }
}

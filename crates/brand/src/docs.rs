//! Context documents: per brand, one current document per type (and per `name` for corpus
//! documents), each write a new revision with its content hash, all revisions kept.

use pp_core::{Error, Kind, Result};
use pp_store::Store;
use pp_store::brand::{DocPut, Put};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::answers::{Doc, DocSummary, Lifecycle, Manifest, ManifestBrand, Written};
use crate::{BrandRef, Writer, bad, find};

/// Document types; `corpus` documents also carry a `name`.
pub const TYPES: &[&str] = &[
    "overview",
    "positioning",
    "audience",
    "products",
    "competitors",
    "guidelines",
    "corpus",
];
/// Largest document, in bytes.
pub const MAX_CONTENT: usize = 256 * 1024;

fn hash(content: &str) -> String {
    hex::encode(Sha256::digest(content.as_bytes()))
}

/// Checks a type and name pair: `name` is required for corpus documents and refused otherwise.
pub fn check_type(kind: &str, name: Option<&str>) -> Result<String> {
    if !TYPES.contains(&kind) {
        return Err(bad(format!(
            "type '{kind}' is not a context document type ({})",
            TYPES.join(", ")
        )));
    }
    match (kind, name) {
        ("corpus", Some(n)) if !n.is_empty() && n.len() <= 128 && !n.contains(['\n', '/']) => {
            Ok(n.to_owned())
        }
        ("corpus", _) => Err(bad(
            "a corpus document needs a name (1-128 characters, one line, no '/')",
        )),
        (_, Some(n)) if !n.is_empty() => Err(bad(format!(
            "only corpus documents have a name; type '{kind}' does not"
        ))),
        _ => Ok(String::new()),
    }
}

/// A document write: which document, its new content and the revision it replaces.
pub struct DocWrite<'a> {
    pub brand: &'a str,
    pub kind: &'a str,
    pub name: Option<&'a str>,
    pub content: &'a str,
    /// The revision read (0 for a new document).
    pub base_revision: i64,
}

/// A document write's body: the new content and the revision it replaces (0 for a new
/// document). Any rule broken is `bad_params`.
#[derive(Debug)]
pub struct DocBody {
    pub content: String,
    pub base_revision: i64,
}

impl DocBody {
    /// Reads a request body.
    pub fn parse(body: &serde_json::Map<String, serde_json::Value>) -> Result<Self> {
        if let Some(k) = body
            .keys()
            .find(|k| !["content", "base_revision"].contains(&k.as_str()))
        {
            return Err(bad(format!(
                "'{k}' is not a field of a document write (content, base_revision)"
            )));
        }
        let content = body
            .get("content")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| bad("content must be a string"))?;
        let base_revision = body
            .get("base_revision")
            .and_then(serde_json::Value::as_i64)
            .filter(|v| *v >= 0)
            .ok_or_else(|| {
                bad("base_revision must be the revision you read (0 for a new document)")
            })?;
        Ok(Self {
            content: content.to_owned(),
            base_revision,
        })
    }
}

/// Writes a document replacing `base_revision` (0 for a new one). A stale revision is
/// `409 conflict`; unchanged content keeps the revision (`changed: false`).
pub async fn put(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    w: &Writer<'_>,
    d: &DocWrite<'_>,
) -> Result<Written> {
    let (slug, kind, content, base_revision) = (d.brand, d.kind, d.content, d.base_revision);
    let name = d.name;
    find(brands, slug)?;
    let name = check_type(kind, name)?;
    if content.len() > MAX_CONTENT {
        return Err(Error::new(
            Kind::TooLarge,
            format!("content is larger than {MAX_CONTENT} bytes"),
        ));
    }
    let h = hash(content);
    let put = DocPut {
        brand: slug.to_owned(),
        kind: kind.to_owned(),
        name: name.clone(),
        base_revision,
        content: content.to_owned(),
        hash: h.clone(),
    };
    let (revision, changed) = match store.brand().put_doc(tenant, put, w.author()).await? {
        Put::Written(r) => (r, true),
        Put::Unchanged(r) => (r, false),
        Put::Stale(current) => {
            return Err(Error::new(Kind::Conflict, format!("the document is at revision {current}, not {base_revision}; nothing was written"))
                .with_fix("Read the document again and resend with its revision.")
                .with_field("conflicts", json!([{ "brand": slug, "type": kind, "expected": base_revision, "actual": current }])));
        }
    };
    Ok(Written {
        brand: slug.to_owned(),
        kind: kind.to_owned(),
        name: (!name.is_empty()).then(|| name.clone()),
        revision,
        hash: h,
        changed,
    })
}

/// One document: brand, type, name (corpus only), content, revision, hash.
pub async fn get(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    slug: &str,
    kind: &str,
    name: Option<&str>,
) -> Result<Doc> {
    find(brands, slug)?;
    let name = check_type(kind, name)?;
    let row = store
        .brand()
        .doc(tenant, slug, kind, &name)
        .await?
        .map(|r| Doc {
            brand: slug.to_owned(),
            kind: kind.to_owned(),
            name: (!name.is_empty()).then(|| name.clone()),
            revision: r.revision,
            content: r.content,
            hash: r.hash,
            updated_at: r.updated_at,
            updated_by: r.updated_by,
        });
    row.ok_or_else(|| {
        Error::not_found(format!(
            "brand '{slug}' has no {kind} document{}",
            if name.is_empty() {
                String::new()
            } else {
                format!(" named '{name}'")
            }
        ))
    })
}

/// The manifest: every brand (or only active ones) with its documents and lifecycle, and
/// how many brands are retired.
pub async fn manifest(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    active_only: bool,
) -> Result<Manifest> {
    let lifecycles = crate::lifecycle::all(store, tenant).await?;
    let docs: Vec<(String, DocSummary)> = store
        .brand()
        .doc_summaries(tenant)
        .await?
        .into_iter()
        .map(|r| {
            (
                r.brand,
                DocSummary {
                    kind: r.kind,
                    name: (!r.name.is_empty()).then_some(r.name),
                    revision: r.revision,
                    hash: r.hash,
                    updated_at: r.updated_at,
                },
            )
        })
        .collect();
    let mut retired = 0;
    let mut out = Vec::new();
    for b in brands {
        let lc = lifecycles
            .get(&b.slug)
            .cloned()
            .unwrap_or_else(Lifecycle::never_retired);
        let is_retired = lc.state == "retired";
        retired += i64::from(is_retired);
        if active_only && is_retired {
            continue;
        }
        let mine: Vec<DocSummary> = docs
            .iter()
            .filter(|d| d.0 == b.slug)
            .map(|d| d.1.clone())
            .collect();
        out.push(ManifestBrand {
            brand_slug: b.slug.clone(),
            name: b.name.clone(),
            lifecycle: lc,
            docs: mine,
        });
    }
    Ok(Manifest {
        brands: out,
        retired_count: retired,
    })
}

//! Sub-brand and item-group definitions: the service mints the scope key; definitions are
//! ordinary `fb:scope_def:` documents, written through the same atomic batch.

use pp_core::{Error, Kind, Result};
use pp_store::Store;
use serde_json::{Map, Value, json};

use crate::answers::{ScopeCreated, ScopeDef, Scopes};
use crate::batch::{self, Batch, Write};
use crate::doc;
use crate::key::Key;

/// Reads `create`'s merchant (`legacySellerId`, or `merchantId`) and mints a scope key.
pub fn parse_create(tenant: &str, body: &Map<String, Value>) -> Result<NewScope> {
    if body.contains_key("on_behalf_of") {
        return Err(Error::new(
            Kind::BadParams,
            "on_behalf_of is refused: forecast state is written under the signed-in name",
        ));
    }
    let Some(Value::Object(c)) = body.get("create") else {
        return Err(Error::new(
            Kind::BadParams,
            "send { create: { legacySellerId, kind, name, itemValues, campaignValues } }",
        ));
    };
    let merchant = c
        .get("legacySellerId")
        .or_else(|| c.get("merchantId"))
        .and_then(|v| {
            v.as_i64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|m| *m > 0)
        .ok_or_else(|| {
            Error::new(
                Kind::BadParams,
                "create.legacySellerId (or merchantId) must name a merchant",
            )
        })?;
    let raw: [u8; 5] = pp_store::random_bytes()?;
    let key = Key::parse(&format!(
        "fb:scope_def:src:{tenant}:{merchant}:scope:sb_{}",
        hex::encode(raw)
    ))?;
    let mut fields: Map<String, Value> = c
        .iter()
        .filter(|(k, _)| !["legacySellerId", "merchantId"].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    fields.entry("itemValues").or_insert_with(|| json!([]));
    fields.entry("campaignValues").or_insert_with(|| json!([]));
    let fields = doc::validate(&key, &Value::Object(fields))?;
    Ok(NewScope(Batch {
        merchants: [merchant].into(),
        writes: vec![Write {
            key,
            expected: 0,
            doc: Some(fields),
        }],
        reason: None,
    }))
}

/// A checked sub-brand definition to create: one write under a key the service minted.
pub struct NewScope(Batch);

impl NewScope {
    /// The batch that writes it.
    pub fn batch(&self) -> &Batch {
        &self.0
    }
}

/// Creates the definition; answers `definition` (with its `id` and `scopeId`) and `version`.
pub async fn create(
    store: &Store,
    tenant: &str,
    actor: &str,
    s: &NewScope,
) -> Result<ScopeCreated> {
    let b = &s.0;
    batch::apply(store, tenant, actor, b).await?;
    let key = b.writes[0].key.as_str();
    let env = crate::read::doc(store, tenant, key).await?;
    let definition: Value = serde_json::from_str(env.doc.get()).map_err(Error::internal_from)?;
    Ok(ScopeCreated {
        scope_id: definition["scopeId"].clone(),
        definition,
        key: key.to_owned(),
        version: env.version,
    })
}

/// Definitions of the tenant's merchants, or of one.
pub async fn list(store: &Store, tenant: &str, merchant: Option<i64>) -> Result<Scopes> {
    let prefix = match merchant {
        Some(m) => format!("src:{tenant}:{m}:scope:"),
        None => format!("src:{tenant}:"),
    };
    let scopes = store
        .forecast()
        .scope_defs(tenant, &prefix)
        .await?
        .into_iter()
        .map(|(scope_id, version, doc)| {
            Ok(ScopeDef {
                scope_id,
                version,
                // a stored definition that no longer parses is a failure to read
                definition: serde_json::from_str(&doc).map_err(Error::internal_from)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Scopes { scopes })
}

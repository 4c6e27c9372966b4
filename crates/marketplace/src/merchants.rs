//! Merchant rows and the selector rules of docs/concepts/identifiers.md. A row is one seller in one marketplace of the
//! tenant's warehouse whose merchant token the service holds a selling-side grant for.
//! `legacySellerId` wins; `sellerId` alone selects only when it maps to one row, and
//! `marketplace` narrows it; `merchantId` is ignored; no selector works only when the credential
//! can act for exactly one merchant. An unresolved selector says which identifiers the endpoint
//! takes and, when ambiguous, lists the candidate rows.

use pp_core::{Error, Kind, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One merchant row.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Merchant {
    #[serde(rename = "sellerId")]
    pub seller_id: String,
    #[serde(rename = "legacySellerId")]
    pub legacy_seller_id: i64,
    pub marketplace: String,
    #[serde(skip)]
    pub marketplace_id: String,
    #[serde(skip)]
    pub account_type: String,
}

impl From<pp_warehouse::directory::Seller> for Merchant {
    fn from(s: pp_warehouse::directory::Seller) -> Self {
        Self {
            seller_id: s.token,
            legacy_seller_id: s.id,
            marketplace: s.marketplace,
            marketplace_id: s.marketplace_id,
            account_type: s.account_type,
        }
    }
}

/// A merchant as stored with work that outlives the request (a pricing run's input): every
/// field, where the API's rows show only three (docs/concepts/identifiers.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stored {
    pub seller_id: String,
    pub legacy_seller_id: i64,
    pub marketplace: String,
    pub marketplace_id: String,
    pub account_type: String,
}

impl From<&Merchant> for Stored {
    fn from(m: &Merchant) -> Self {
        Self {
            seller_id: m.seller_id.clone(),
            legacy_seller_id: m.legacy_seller_id,
            marketplace: m.marketplace.clone(),
            marketplace_id: m.marketplace_id.clone(),
            account_type: m.account_type.clone(),
        }
    }
}

impl From<Stored> for Merchant {
    fn from(s: Stored) -> Self {
        Self {
            seller_id: s.seller_id,
            legacy_seller_id: s.legacy_seller_id,
            marketplace: s.marketplace,
            marketplace_id: s.marketplace_id,
            account_type: s.account_type,
        }
    }
}

/// What a call named.
#[derive(Debug, Default)]
pub struct Selector {
    pub legacy_seller_id: Option<i64>,
    pub seller_id: Option<String>,
    pub marketplace: Option<String>,
}

const ACCEPTS: &str = "this endpoint accepts legacySellerId (preferred), or sellerId with an optional marketplace (US, CA, MX …); GET /api/marketplace/merchants lists them";

impl Selector {
    /// The selector a request's fields name (`merchantId` is not one: docs/concepts/identifiers.md ignores it). A
    /// blank `sellerId` or `marketplace` is refused; the marketplace reads in capitals.
    pub fn from_fields(
        legacy_seller_id: Option<i64>,
        seller_id: Option<&str>,
        marketplace: Option<&str>,
    ) -> Result<Self> {
        let text = |k: &str, v: Option<&str>| -> Result<Option<String>> {
            match v.map(str::trim) {
                None => Ok(None),
                Some("") => Err(Error::invalid_request(format!(
                    "{k} must be a non-empty string"
                ))),
                Some(s) => Ok(Some(s.to_owned())),
            }
        };
        Ok(Self {
            legacy_seller_id,
            seller_id: text("sellerId", seller_id)?,
            marketplace: text("marketplace", marketplace)?.map(|m| m.to_uppercase()),
        })
    }
}

fn candidates(rows: &[&Merchant]) -> Value {
    json!(rows.iter().map(|m| json!({ "sellerId": m.seller_id, "legacySellerId": m.legacy_seller_id, "marketplace": m.marketplace })).collect::<Vec<_>>())
}

/// The one row `sel` names among `rows`.
pub fn resolve(rows: &[Merchant], sel: &Selector) -> Result<Merchant> {
    if let Some(id) = sel.legacy_seller_id {
        return rows
            .iter()
            .find(|m| m.legacy_seller_id == id)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    Kind::MerchantNotFound,
                    format!("no connected merchant has legacySellerId {id}; {ACCEPTS}"),
                )
            });
    }
    let mut matches: Vec<&Merchant> = match &sel.seller_id {
        Some(token) => rows.iter().filter(|m| &m.seller_id == token).collect(),
        None => rows.iter().collect(),
    };
    if let Some(mp) = &sel.marketplace {
        matches.retain(|m| &m.marketplace == mp);
    }
    match (matches.len(), &sel.seller_id) {
        (1, _) => Ok(matches[0].clone()),
        (0, Some(token)) => Err(Error::new(
            Kind::MerchantNotFound,
            match &sel.marketplace {
                Some(mp) => format!("no connected merchant has sellerId {token} in marketplace {mp}; {ACCEPTS}"),
                None => format!("no connected merchant has sellerId {token}; {ACCEPTS}"),
            },
        )),
        (0, None) => Err(Error::new(Kind::MerchantNotFound, format!("this credential can act for no connected merchant in that marketplace; {ACCEPTS}"))),
        (_, Some(token)) => Err(Error::invalid_request(format!(
            "sellerId {token} maps to {} merchant rows: name one with legacySellerId, or add marketplace",
            matches.len()
        ))
        .with_field("candidates", candidates(&matches))),
        (_, None) => Err(Error::invalid_request(format!(
            "name the merchant: this credential can act for {} merchant rows; {ACCEPTS}",
            matches.len()
        ))
        .with_field("candidates", candidates(&matches))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(token: &str, id: i64, mp: &str) -> Merchant {
        Merchant {
            seller_id: token.into(),
            legacy_seller_id: id,
            marketplace: mp.into(),
            marketplace_id: String::new(),
            account_type: "seller".into(),
        }
    }

    /// The selector of a call carrying the fields of `v`, read as every front door reads it.
    fn sel(mut v: Value) -> Selector {
        v["operation"] = "sellers.get_account".into();
        serde_json::from_value::<crate::service::requests::SpapiCall>(v)
            .unwrap()
            .selector()
            .unwrap()
    }

    #[test]
    fn the_section_2_1_rules() {
        let rows = vec![row("A2", 1, "US"), row("A2", 2, "CA"), row("A1MX", 3, "MX")];
        // legacySellerId wins over sellerId and marketplace
        assert_eq!(
            resolve(
                &rows,
                &sel(json!({"legacySellerId": 2, "sellerId": "A1MX", "marketplace": "MX"}))
            )
            .unwrap()
            .legacy_seller_id,
            2
        );
        // sellerId alone only when it maps to one row
        assert_eq!(
            resolve(&rows, &sel(json!({"sellerId": "A1MX"})))
                .unwrap()
                .legacy_seller_id,
            3
        );
        let e = resolve(&rows, &sel(json!({"sellerId": "A2"}))).unwrap_err();
        assert_eq!(e.kind, Kind::InvalidRequest);
        assert_eq!(
            e.api_envelope(None)["candidates"].as_array().unwrap().len(),
            2
        );
        // marketplace narrows
        assert_eq!(
            resolve(&rows, &sel(json!({"sellerId": "A2", "marketplace": "ca"})))
                .unwrap()
                .legacy_seller_id,
            2
        );
        // merchantId is ignored: several rows, so no selector fails, listing them
        let e = resolve(&rows, &sel(json!({"merchantId": 3}))).unwrap_err();
        assert!(e.message().contains("legacySellerId"));
        assert_eq!(
            resolve(&rows[2..], &sel(json!({"merchantId": 1})))
                .unwrap()
                .legacy_seller_id,
            3,
            "one merchant: no selector is fine"
        );
        // nothing matches
        assert_eq!(
            resolve(&rows, &sel(json!({"legacySellerId": 9})))
                .unwrap_err()
                .kind,
            Kind::MerchantNotFound
        );
        assert_eq!(
            resolve(&rows, &sel(json!({"sellerId": "A2", "marketplace": "MX"})))
                .unwrap_err()
                .kind,
            Kind::MerchantNotFound
        );
        let negative = json!({"operation": "sellers.get_account", "legacySellerId": -1});
        assert!(serde_json::from_value::<crate::service::requests::SpapiCall>(negative).is_err());
        let blank = json!({"operation": "sellers.get_account", "sellerId": " "});
        let call: crate::service::requests::SpapiCall = serde_json::from_value(blank).unwrap();
        assert!(call.selector().is_err());
    }
}

//! The typed requests of the marketplace service. Every front door (REST body, MCP arguments,
//! a command-line command) deserializes into these; unknown fields are refused, and values
//! that have a shape (operation ids, profile ids, idempotency keys, pricing families) are
//! newtypes or enums that validate on construction.

use pp_core::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::merchants::Selector;

/// A positive whole number, also sent as a numeric string (`"3"`), as query strings and some
/// clients do.
fn positive<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<i64>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom("must be a positive whole number")),
    }
}

/// An operation id of a catalog (`area.snake_name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct OperationId(String);

impl OperationId {
    pub fn parse(s: &str) -> Result<Self> {
        let ok = !s.is_empty()
            && s.len() <= 128
            && s.contains('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(Error::invalid_request(format!(
                "'{s}' is not an operation id (area.name, as the catalog lists them)"
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Newtypes that validate text read it through `parse`, whatever carried it.
macro_rules! parsed_from_text {
    ($($t:ty),*) => {$(
        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(s: String) -> std::result::Result<Self, String> {
                Self::parse(&s).map_err(|e| e.message().to_owned())
            }
        }
    )*};
}
parsed_from_text!(OperationId, IdempotencyKey, PlanId, ChangeSetId);

/// An advertising profile id (a positive whole number, sent as a number or a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProfileId(pub i64);

impl<'de> Deserialize<'de> for ProfileId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match positive(d)? {
            Some(n) => Ok(Self(n)),
            None => Err(serde::de::Error::custom(
                "profileId must be a positive whole number",
            )),
        }
    }
}

/// A caller's `Idempotency-Key` (header) or `idempotencyKey` (tool argument): 1 to 255
/// visible characters once surrounding blanks are trimmed, the same rule on every surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn parse(raw: &str) -> Result<Self> {
        let k = raw.trim();
        if (1..=255).contains(&k.len()) && k.chars().all(|c| !c.is_control()) {
            Ok(Self(k.to_owned()))
        } else {
            Err(Error::invalid_request(
                "the idempotency key must be 1 to 255 visible characters",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `?prefix=` on a catalog listing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogQuery {
    /// Only operations whose id starts with this.
    #[serde(default)]
    pub prefix: Option<String>,
}

/// Declares a request that carries the merchant selector of docs/concepts/identifiers.md beside its own fields (serde
/// cannot flatten into a struct that refuses unknown fields, so the four fields are added here).
macro_rules! selected {
    ($(#[$doc:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
            #[serde(default, deserialize_with = "positive")]
            pub legacy_seller_id: Option<i64>,
            #[serde(default)]
            pub seller_id: Option<String>,
            #[serde(default)]
            pub marketplace: Option<String>,
            /// Not a selector (docs/concepts/identifiers.md): accepted and ignored.
            #[serde(default)]
            pub merchant_id: Option<Value>,
        }

        impl $name {
            /// The merchant selector the request carries.
            pub fn selector(&self) -> Result<Selector> {
                Selector::from_fields(
                    self.legacy_seller_id,
                    self.seller_id.as_deref(),
                    self.marketplace.as_deref(),
                )
            }
        }
    };
}

selected! {
    /// One catalogued selling-side call; the guarded listing write previews a change set, or
    /// commits one (`dryRun: false` with `changeSetId` and `changeSetHash`).
    SpapiCall {
        operation: OperationId,
        /// The operation's parameters by name; a request body goes under `body`. The listing
        /// write takes `items`: `[{ sku, patches }]`.
        #[serde(default)]
        query: Option<Map<String, Value>>,
        /// For a report create whose earlier identical try has an unknown outcome: send anyway,
        /// accepting that a second report may be made.
        #[serde(default)]
        accept_duplicate_risk: bool,
        /// The listing write only: `false` commits the change set named; absent or `true`
        /// previews.
        #[serde(default)]
        dry_run: Option<bool>,
        /// The listing write only: the change set a commit applies (from the preview).
        #[serde(default)]
        change_set_id: Option<ChangeSetId>,
        /// The listing write only: the change set's hash, as the preview gave it.
        #[serde(default)]
        change_set_hash: Option<String>,
    }
}

/// A listing change set's id as a preview issues it (`cs_` and 32 hex digits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct ChangeSetId(String);

impl ChangeSetId {
    pub fn parse(s: &str) -> Result<Self> {
        let ok =
            s.len() == 35 && s.starts_with("cs_") && s[3..].chars().all(|c| c.is_ascii_hexdigit());
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(Error::new(
                pp_core::Kind::ChangeSetNotFound,
                format!(
                    "'{}' is not a change set id (a listing preview answers changeSet.changeSetId)",
                    s.chars().take(64).collect::<String>()
                ),
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

selected! {
    /// One catalogued advertising call: profile-scoped operations take `profileId`, the others
    /// a merchant selector.
    AdsCall {
        operation: OperationId,
        #[serde(default)]
        query: Option<Map<String, Value>>,
        #[serde(default)]
        profile_id: Option<ProfileId>,
        /// As on [`SpapiCall`].
        #[serde(default)]
        accept_duplicate_risk: bool,
        /// Writes only: `false` commits the plan `planId`/`planHash` names; absent or `true`
        /// is a dry run that never reaches the provider's write.
        #[serde(default)]
        dry_run: Option<bool>,
        /// Writes only: the plan a commit sends (from the dry run).
        #[serde(default)]
        plan_id: Option<PlanId>,
        /// Writes only: the plan's hash, as the dry run gave it.
        #[serde(default)]
        plan_hash: Option<String>,
        /// Bid adjustments only: resend the live campaign's modifiers the items leave out.
        #[serde(default)]
        merge: bool,
    }
}

/// A plan id as a dry run issues it (`pl_` and 32 hex digits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct PlanId(String);

impl PlanId {
    pub fn parse(s: &str) -> Result<Self> {
        let ok =
            s.len() == 35 && s.starts_with("pl_") && s[3..].chars().all(|c| c.is_ascii_hexdigit());
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(Error::invalid_request(format!(
                "'{}' is not a plan id (a dry run answers plan.planId)",
                s.chars().take(64).collect::<String>()
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `GET /api/marketplace/audit`: the audit log's filters and paging.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuditQuery {
    /// The advertising login (merchant token) the writes acted as.
    #[serde(default)]
    pub merchant: Option<String>,
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub profile_id: Option<String>,
    #[serde(default)]
    pub operation: Option<String>,
    /// The actor as records show it (`svc:<label>/<credential id>`, a work email …).
    #[serde(default)]
    pub actor: Option<String>,
    /// RFC 3339 time: records at or after it.
    #[serde(default)]
    pub since: Option<String>,
    /// RFC 3339 time: records before it.
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub limit: Option<String>,
}

selected! {
    /// A selling-side report to create once (docs/reports-and-pricing.md); the marketplace comes from the merchant.
    ReportRequest {
        report_type: String,
        #[serde(default)]
        data_start_time: Option<String>,
        #[serde(default)]
        data_end_time: Option<String>,
        #[serde(default)]
        report_options: Option<Map<String, Value>>,
        /// As on [`SpapiCall`].
        #[serde(default)]
        accept_duplicate_risk: bool,
    }
}

selected! {
    /// The items of a pricing batch or run: `asins` for competitive summaries, `skus` for
    /// featured offer expected prices.
    PricingRequest {
        #[serde(default)]
        asins: Option<Vec<Value>>,
        #[serde(default)]
        skus: Option<Vec<Value>>,
    }
}

/// `?offset=&limit=` on a run's answers.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultPage {
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub offset: Option<String>,
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub limit: Option<String>,
}

/// How many answers a surface's page holds: `default` unless asked, `max` at most.
#[derive(Debug, Clone, Copy)]
pub struct PageSize {
    pub default: i64,
    pub max: i64,
}

impl ResultPage {
    /// The offset and page size asked for, within `size`.
    pub fn read(&self, size: PageSize) -> Result<(usize, usize)> {
        let offset = pp_core::wire::int_in("offset", self.offset.as_deref(), 0, i64::MAX)?;
        let limit = pp_core::wire::int_in("limit", self.limit.as_deref(), 1, size.max)?;
        let to_usize = |n: i64| usize::try_from(n).unwrap_or(usize::MAX);
        Ok((
            to_usize(offset.unwrap_or(0)),
            to_usize(limit.unwrap_or(size.default)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_refuse_unknown_fields_and_bad_shapes() {
        let ok: SpapiCall = pp_core::wire::from_json(
            "call",
            json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": "1"}),
        )
        .unwrap();
        assert_eq!(ok.legacy_seller_id, Some(1));
        let e =
            pp_core::wire::from_json::<SpapiCall>("call", json!({"operation": "a.b", "bogus": 1}))
                .unwrap_err();
        assert!(e.message().contains("bogus"), "{}", e.message());
        assert!(
            pp_core::wire::from_json::<SpapiCall>("call", json!({"operation": "nodot"})).is_err()
        );
        assert!(
            pp_core::wire::from_json::<AdsCall>(
                "call",
                json!({"operation": "a.b", "profileId": -4})
            )
            .is_err()
        );
        assert!(IdempotencyKey::parse("  k1 ").unwrap().as_str() == "k1");
        assert!(IdempotencyKey::parse("   ").is_err());
        assert!(IdempotencyKey::parse(&"x".repeat(256)).is_err());
    }
}

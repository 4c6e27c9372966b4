//! The operation catalogs as data: `catalog/spapi.json` and `catalog/ads.json`, compiled in.
//! Each entry names an operation id, its upstream method, path and media type, every parameter
//! and where it goes, its paging rule, scope, kind (`read`, `create` — never retried — or
//! `write` — the audited write surface), pacing, the write arrays' `requiredItemFields` and
//! 200-item cap, and notes carrying the spec's traps. `generate.py` beside the data says where
//! each part comes from.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::checks::Checks;

/// Where a parameter goes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    #[serde(rename = "in")]
    pub location: String,
    pub required: bool,
    #[serde(rename = "type")]
    pub kind: String,
}

/// What an operation does at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// Reads; retried on transient failures.
    Read,
    /// Makes a report, query or execution: read-scoped, never retried.
    Create,
    /// Cancels the caller's own report or query: read-scoped, never retried.
    Cancel,
    /// Changes the account: only through the audited write flow.
    Write,
}

/// One catalogued operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    pub id: String,
    pub api: String,
    pub method: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    pub scope: String,
    pub kind: OpKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<f64>,
    #[serde(default)]
    pub params: Vec<Param>,
    #[serde(default)]
    pub paging: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_param: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_scoped: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_item_fields: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items_key: Option<String>,
    /// How the provider answers beyond plain statuses: `multi_status` (HTTP 207 with `error`
    /// and `success` arrays) or `multi_status_capped` (also: a 429 is a concurrency cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// How the audited write flow reads a write's items, answer and current values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<WriteSpec>,
    /// Rules run on the arguments before anything is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
    /// The media type follows the kind a path id encodes (`exports.get_export`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type_by_id: Option<MediaById>,
    #[serde(default)]
    pub notes: String,
}

/// What a write does to its entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteAction {
    Create,
    Update,
    Delete,
}

/// How a write's request carries its items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ItemsIn {
    /// An array under the operation's `itemsKey`.
    Key,
    /// The body is the array.
    Array,
    /// Ids under `<entityId>Filter.include` (archiving deletes).
    IdFilter,
    /// The body is the one item.
    Single,
    /// Bare ids in an array under the operation's `itemsKey` (rule associations): each is
    /// the item `{ <entityId>: id }`.
    Ids,
}

/// How the provider answers a write per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ItemAnswer {
    /// `{ <itemsKey>: { success: [{index, …}], error: [{index, errors}] } }` (HTTP 207).
    Bulk,
    /// An array of `{ code, <entityId>, details }` in request order.
    Positional,
    /// `…SuccessResults` and `…ErrorResults` lists keyed by `targetRequestIndex`.
    Indexed,
    /// `{ responses: [{ code, details, … }] }` in request order, `SUCCESS` for an applied
    /// item (the optimization rules API, HTTP 207).
    Responses,
    /// One answer for the one item.
    Whole,
}

/// How the entities' current values are read (a list operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReadBy {
    /// `<entityId>Filter.include` in the body.
    Ids,
    /// `adGroupIdFilter` in the query (an array answer).
    AdGroupQuery,
    /// An `AD_GROUP_ID` filter in the body.
    AdGroupFilter,
    /// One read per entity, its id the read's path parameter (the answer is the entity).
    Path,
}

/// The read giving a write's entities as they are.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CurrentRead {
    pub operation: String,
    pub by: ReadBy,
    /// The answer's list key (none: the answer is the list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A bid-adjustment write's modifier family (docs/writes.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modifier {
    /// `dynamicBidding` of a Sponsored Products campaign.
    Sp,
    /// `bidding` of a Sponsored Brands campaign.
    Sb,
}

/// The audited write flow's view of a write operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteSpec {
    pub action: WriteAction,
    pub items: ItemsIn,
    /// The entity id field (answered by creates, named by updates and deletes).
    pub entity_id: String,
    pub answer: ItemAnswer,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<CurrentRead>,
    /// Item fields (dotted paths) this operation refuses (docs/writes.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_item_fields: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifier: Option<Modifier>,
    /// The only fields an item may carry (bid adjustments change nothing else).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only_item_fields: Vec<String>,
    /// The entity may change only while its `field` holds one of `values` (docs/writes.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_state: Option<RequiredState>,
    /// The item's `query` is clean-room audience SQL: the clean-room audience checks apply (docs/writes.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub audience_query: bool,
}

/// A state an entity must be in for a write to change it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RequiredState {
    pub field: String,
    pub values: Vec<String>,
    /// In words, for the refusal.
    pub why: String,
}

/// Media types chosen by the kind a path id encodes: the provider's ids are base64url of
/// `<uuid>,<letter>`, and the letter names the kind (an export's campaigns, ad groups …).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MediaById {
    /// The path parameter holding the id.
    pub param: String,
    /// The media type for each kind letter.
    pub types: std::collections::BTreeMap<String, String>,
}

impl MediaById {
    /// The media type for `id`, when it decodes to a known kind.
    pub fn for_id(&self, id: &str) -> Option<&str> {
        use base64::Engine as _;
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(id.trim_end_matches('='))
            .ok()?;
        let text = String::from_utf8(raw).ok()?;
        let letter = text.rsplit_once(',')?.1;
        self.types.get(letter).map(String::as_str)
    }
}

impl Operation {
    /// Whether the operation takes a body.
    pub fn takes_body(&self) -> bool {
        self.params.iter().any(|p| p.location == "body")
    }

    /// Whether the answer is HTTP 207 with `error` and `success` arrays.
    pub fn multi_status(&self) -> bool {
        self.answer
            .as_deref()
            .is_some_and(|a| a.starts_with("multi_status"))
    }

    /// Whether a 429 means a concurrency cap that waiting alone does not clear.
    pub fn capped(&self) -> bool {
        self.answer.as_deref() == Some("multi_status_capped")
    }

    /// Whether a failed attempt may be sent again (reads only).
    pub fn idempotent(&self) -> bool {
        self.kind == OpKind::Read
    }

    /// Whether the operation's body must be sent (an optional one is sent as `{}`).
    pub fn body_required(&self) -> bool {
        self.params
            .iter()
            .any(|p| p.location == "body" && p.required)
    }
}

#[derive(Deserialize)]
struct File {
    operations: Vec<Operation>,
}

/// Parses a compiled-in catalog. The data ships with the binary and a test parses it, so a
/// failure here is a broken build: it stops the process with the reason, never an empty list.
fn load(name: &str, text: &str) -> Vec<Operation> {
    match serde_json::from_str::<File>(text) {
        Ok(f) => f.operations,
        Err(e) => panic!("the compiled-in {name} catalog does not parse: {e}"),
    }
}

static SPAPI: LazyLock<Vec<Operation>> =
    LazyLock::new(|| load("spapi", include_str!("../catalog/spapi.json")));
static ADS: LazyLock<Vec<Operation>> =
    LazyLock::new(|| load("ads", include_str!("../catalog/ads.json")));

static GATEWAY: LazyLock<Vec<Operation>> =
    LazyLock::new(|| load("gateway", include_str!("../catalog/gateway.json")));

/// The operations the gateway makes for itself and no caller may (Marketing Stream
/// subscriptions, which name where an account's data goes): reached only through
/// `Feeds::gateway_call`, never listed or callable through `/api/…/call`.
pub fn gateway() -> &'static [Operation] {
    &GATEWAY
}

/// The selling-side catalog.
pub fn spapi() -> &'static [Operation] {
    &SPAPI
}

/// The advertising catalog.
pub fn ads() -> &'static [Operation] {
    &ADS
}

/// Operation `id` of `catalog`.
pub fn find<'a>(catalog: &'a [Operation], id: &str) -> Option<&'a Operation> {
    catalog.iter().find(|o| o.id == id)
}

/// The `merchantIdentifiers` object of the selling-side catalog (docs/concepts/identifiers.md).
pub fn merchant_identifiers() -> Value {
    json!({
        "legacySellerId": "positive integer: the service's own seller id, the durable key of exactly one merchant row; wins over sellerId and marketplace; preferred whenever known (warehouse column SellerID)",
        "sellerId": "string: the provider's merchant token (A… or ENTITY…); selects a merchant alone only when the token maps to a single row (warehouse column MarketplaceSellerID)",
        "marketplace": "optional country code (US, CA, MX …) narrowing a sellerId that matches more than one row",
        "merchantId": "not a parameter: ignored if sent; the call then succeeds only when the credential can act for exactly one merchant",
        "list": "GET /api/marketplace/merchants returns one row per account and marketplace with sellerId, legacySellerId and marketplace",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_catalogs_load_with_unique_ids_and_sound_entries() {
        for (name, cat) in [("spapi", spapi()), ("ads", ads())] {
            assert!(cat.len() > 50, "{name}: {}", cat.len());
            let mut ids = std::collections::HashSet::new();
            for o in cat {
                assert!(ids.insert(&o.id), "{name}: {} twice", o.id);
                assert!(o.path.starts_with('/'), "{}", o.id);
                if matches!(o.kind, OpKind::Create | OpKind::Cancel) {
                    assert!(
                        o.scope.ends_with(":read"),
                        "{}: a create is read-scoped",
                        o.id
                    );
                }
                for p in o.checks.iter().flat_map(|c| c.formats.keys()) {
                    assert!(o.params.iter().any(|x| &x.name == p), "{}: {p}", o.id);
                }
                for p in o.path.split('/').filter(|s| s.starts_with('{')) {
                    let n = p.trim_matches(|c| c == '{' || c == '}');
                    assert!(
                        o.params.iter().any(|x| x.name == n && x.location == "path"),
                        "{}: path parameter {n} undeclared",
                        o.id
                    );
                }
                if o.kind == OpKind::Write && o.api == "ads" {
                    // the spec's cap (docs/limits.md), or the provider's own lower one: SB v4 takes 10,
                    // SB v3 100, an audience is one item
                    let cap = match o.path.as_str() {
                        p if p.starts_with("/sb/v4/") => 10,
                        p if p.starts_with("/sb/") => 100,
                        p if p.starts_with("/amc/") => 1,
                        p if p.ends_with("/optimizationRules") => 25,
                        _ => 200,
                    };
                    assert_eq!(o.max_items, Some(cap), "{}", o.id);
                    assert!(o.required_item_fields.is_some(), "{}", o.id);
                    let w = o.write.as_ref().unwrap_or_else(|| panic!("{}", o.id));
                    if w.action != WriteAction::Create && w.items != ItemsIn::Single {
                        let read = w.current.as_ref().unwrap_or_else(|| panic!("{}", o.id));
                        let list =
                            find(ads(), &read.operation).unwrap_or_else(|| panic!("{}", o.id));
                        assert_eq!(list.kind, OpKind::Read, "{}", o.id);
                    }
                    if matches!(w.items, ItemsIn::Key | ItemsIn::Ids)
                        || w.answer == ItemAnswer::Bulk
                    {
                        assert!(o.items_key.is_some(), "{}", o.id);
                    }
                }
            }
        }
        assert!(
            find(spapi(), "promotions.search_promotions")
                .unwrap()
                .notes
                .contains("empty pages")
        );
        assert!(
            find(ads(), "assets.list_recent")
                .unwrap()
                .notes
                .contains("ignored")
        );
    }
}

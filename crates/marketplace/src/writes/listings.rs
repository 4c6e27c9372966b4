//! Listing-content change sets (docs/writes.md), the parts that need no provider and no store: the
//! editable attribute set (everything else is refused per attribute), reading a preview's
//! edits (1 to 10 existing SKUs, each with its patches), what a change set keeps, and its
//! hash over the exact requests a commit replays.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::PlannedRequest;
use pp_core::{Error, Kind, Result};

/// SKUs in one preview at most (docs/limits.md).
pub const MAX_SKUS: usize = 10;

/// How long a change set can be committed after its preview: long enough for a person to read
/// five rewritten listings and approve them, short enough that the listings rarely move.
pub const CHANGE_SET_LIFETIME: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// The operation id of the guarded listing write.
pub const OPERATION: &str = "listings.patch_listings_item";

/// The editable attributes (docs/writes.md) and what a person calls each.
pub const EDITABLE: &[(&str, &str)] = &[
    ("item_name", "title"),
    ("special_feature", "highlights"),
    ("bullet_point", "bullets"),
    ("product_description", "description"),
    ("generic_keyword", "search keywords"),
    ("ingredients", "ingredients"),
    ("item_form", "item form"),
    ("main_product_image_locator", "main image"),
    ("other_product_image_locator_1", "image 2"),
    ("other_product_image_locator_2", "image 3"),
    ("other_product_image_locator_3", "image 4"),
    ("other_product_image_locator_4", "image 5"),
    ("other_product_image_locator_5", "image 6"),
    ("other_product_image_locator_6", "image 7"),
    ("other_product_image_locator_7", "image 8"),
    ("other_product_image_locator_8", "image 9"),
];

/// Whether `attribute` is an image slot (applied asynchronously, behind the media switch).
pub fn is_media(attribute: &str) -> bool {
    attribute.ends_with("_image_locator") || attribute.contains("_image_locator_")
}

/// Why an attribute outside the editable set is refused, in a person's words.
fn refusal(attribute: &str) -> &'static str {
    let a = attribute.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| a.contains(w));
    if has(&[
        "identifier",
        "gtin",
        "upc",
        "ean",
        "isbn",
        "asin",
        "part_number",
        "model_number",
    ]) {
        "identifiers are never changed through listing writes"
    } else if has(&["brand", "manufacturer"]) {
        "brand fields are never changed through listing writes"
    } else if has(&["price", "offer", "discount"]) {
        "price is not a listing-content change (use the pricing surfaces)"
    } else if has(&["quantity", "fulfillment", "merchant_shipping", "lead_time"]) {
        "quantity and fulfillment are not listing-content changes"
    } else if has(&["parent", "child", "variation"]) {
        "variations are never changed through listing writes"
    } else if has(&[
        "safety",
        "hazmat",
        "compliance",
        "warning",
        "regulat",
        "battery",
        "dangerous",
        "ghs",
        "country_of_origin",
        "certification",
    ]) {
        "compliance and safety attributes are never changed through listing writes"
    } else {
        "only title, highlights, bullets, description, search keywords, ingredients, item form and the nine image slots are editable"
    }
}

/// One patch of the provider's JSON Patch shape.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    pub op: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

impl Patch {
    /// The attribute the patch touches (`/attributes/<name>`), if its path names one.
    pub fn attribute(&self) -> Option<&str> {
        self.path
            .strip_prefix("/attributes/")
            .filter(|n| !n.is_empty() && !n.contains('/'))
    }
}

/// One SKU's edit as a preview asks for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListingEdit {
    pub sku: String,
    /// Optional: the listing's own product type is used, and a different one is refused.
    #[serde(default)]
    pub product_type: Option<String>,
    pub patches: Vec<Patch>,
}

impl ListingEdit {
    /// The attributes the edit touches, in patch order, once each.
    pub fn attributes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in self.patches.iter().filter_map(Patch::attribute) {
            if !out.iter().any(|o| o == a) {
                out.push(a.to_owned());
            }
        }
        out
    }
}

/// Reads a preview's `query.items`: 1 to 10 SKUs, each once, each with at least one patch.
pub fn read_edits(query: &Map<String, Value>) -> Result<Vec<ListingEdit>> {
    if let Some(k) = query.keys().find(|k| k.as_str() != "items") {
        return Err(Error::invalid_request(format!(
            "query.{k} is not taken by a listing change: send query.items, one entry per SKU ({{ sku, patches }})"
        )));
    }
    let items = query.get("items").cloned().ok_or_else(|| {
        Error::invalid_request(
            "a listing change names its SKUs in query.items: [{ sku, patches: [{ op, path, value }] }]",
        )
    })?;
    let edits: Vec<ListingEdit> = pp_core::wire::from_json("query.items", items)?;
    if edits.is_empty() || edits.len() > MAX_SKUS {
        return Err(Error::invalid_request(format!(
            "a change set previews 1 to {MAX_SKUS} SKUs; this one has {}",
            edits.len()
        ))
        .with_field("max_items", MAX_SKUS)
        .with_field("items_count", edits.len())
        .with_fix("Split the change into sets of at most ten SKUs."));
    }
    for (i, e) in edits.iter().enumerate() {
        if e.sku.trim().is_empty() || e.sku.len() > 200 {
            return Err(Error::invalid_request(format!(
                "items[{i}].sku must be 1 to 200 characters"
            )));
        }
        if edits[..i].iter().any(|o| o.sku == e.sku) {
            return Err(Error::invalid_request(format!(
                "SKU {} appears twice: one entry per SKU, with all its patches",
                e.sku
            )));
        }
        if e.patches.is_empty() {
            return Err(Error::invalid_request(format!(
                "items[{i}] ({}) has no patches",
                e.sku
            )));
        }
        if let Some(p) = e.patches.iter().find(|p| p.attribute().is_none()) {
            return Err(Error::invalid_request(format!(
                "items[{i}] ({}): path {} must be /attributes/<name>",
                e.sku, p.path
            )));
        }
    }
    Ok(edits)
}

/// Refuses, per attribute, every patch outside the editable set, every delete and every op
/// other than `replace`/`add`; nothing is sent when any is refused.
pub fn refuse_outside_editable(edits: &[ListingEdit]) -> Result<()> {
    let mut refused = Vec::new();
    for e in edits {
        for p in &e.patches {
            let attribute = p.attribute().unwrap_or_default();
            let reason = if !EDITABLE.iter().any(|(a, _)| *a == attribute) {
                Some(refusal(attribute))
            } else if p.op == "delete" {
                Some("deletes are refused: replace the value instead")
            } else if !["replace", "add"].contains(&p.op.as_str()) {
                Some("op must be replace or add")
            } else if !p.value.as_ref().is_some_and(Value::is_array) {
                Some("value must be the attribute's array of values")
            } else {
                None
            };
            if let Some(reason) = reason {
                refused.push(
                    json!({ "sku": e.sku, "attribute": attribute, "op": p.op, "reason": reason }),
                );
            }
        }
    }
    if refused.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = refused
        .iter()
        .map(|r| {
            format!(
                "{} of {}",
                r["attribute"].as_str().unwrap_or(""),
                r["sku"].as_str().unwrap_or("")
            )
        })
        .collect();
    Err(Error::new(
        Kind::PatchNotAllowed,
        format!(
            "{} patch(es) cannot be made through listing writes: {}; nothing was sent",
            refused.len(),
            names.join(", ")
        ),
    )
    .with_field("refused", refused)
    .with_fix("Leave those attributes out; the editable ones are title, highlights, bullets, description, search keywords, ingredients, item form and the nine image slots."))
}

/// One SKU of a change set: its edit, the listing as it was at preview (the touched
/// attributes, the issues), and the exact request a commit replays.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkuChange {
    pub sku: String,
    pub product_type: String,
    pub patches: Vec<Patch>,
    /// The touched attributes' values at preview (null where the listing had none).
    pub before: Map<String, Value>,
    /// The listing's issue codes at preview (an image check looks for new ones).
    pub issues_before: Vec<String>,
    pub request: PlannedRequest,
}

impl SkuChange {
    /// The touched attributes with the values the patches set.
    pub fn after(&self) -> Map<String, Value> {
        self.patches
            .iter()
            .filter_map(|p| Some((p.attribute()?.to_owned(), p.value.clone()?)))
            .collect()
    }

    /// The image slots this SKU's change sets, with their new values.
    pub fn media(&self) -> Map<String, Value> {
        let mut after = self.after();
        after.retain(|a, _| is_media(a));
        after
    }

    pub fn touches_text(&self) -> bool {
        self.patches
            .iter()
            .filter_map(Patch::attribute)
            .any(|a| !is_media(a))
    }
}

/// What the store keeps of a change set (a plan's body).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeSetBody {
    pub seller_id: String,
    pub marketplace_id: String,
    /// Each product type's schema version at preview.
    pub product_types: std::collections::BTreeMap<String, String>,
    pub skus: Vec<SkuChange>,
}

/// The change set's hash: over the exact requests a commit replays.
pub fn change_set_hash(skus: &[SkuChange]) -> String {
    let requests: Vec<&PlannedRequest> = skus.iter().map(|s| &s.request).collect();
    super::sha256(&json!({ "listingRequests": requests }))
}

/// The touched attributes' values in a listing's `attributes` (null where it has none).
pub fn values_of(attributes: &Value, names: &[String]) -> Map<String, Value> {
    names
        .iter()
        .map(|n| (n.clone(), attributes.get(n).cloned().unwrap_or(Value::Null)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(v: Value) -> Result<Vec<ListingEdit>> {
        read_edits(json!({ "items": v }).as_object().unwrap())
    }

    fn title(sku: &str) -> Value {
        json!({ "sku": sku, "patches": [{ "op": "replace", "path": "/attributes/item_name", "value": [{ "value": "New" }] }] })
    }

    #[test]
    fn a_preview_takes_one_to_ten_distinct_skus() {
        assert!(edits(json!([])).is_err());
        let ten: Vec<Value> = (0..10).map(|i| title(&format!("S{i}"))).collect();
        assert_eq!(edits(Value::Array(ten.clone())).unwrap().len(), 10);
        let mut eleven = ten;
        eleven.push(title("S10"));
        let e = edits(Value::Array(eleven)).unwrap_err();
        assert!(e.message().contains("1 to 10"), "{}", e.message());
        assert!(edits(json!([title("A"), title("A")])).is_err());
        assert!(edits(json!([{ "sku": "A", "patches": [] }])).is_err());
        assert!(edits(json!([{ "sku": "A", "patches": [{ "op": "replace", "path": "/item_name", "value": [] }] }])).is_err());
    }

    #[test]
    fn attributes_outside_the_editable_set_are_refused_one_by_one() {
        let e = edits(json!([{ "sku": "A", "patches": [
            { "op": "replace", "path": "/attributes/list_price", "value": [{ "value": 9.99 }] },
            { "op": "replace", "path": "/attributes/brand", "value": [{ "value": "X" }] },
            { "op": "delete", "path": "/attributes/bullet_point" },
            { "op": "replace", "path": "/attributes/item_name", "value": [{ "value": "ok" }] },
        ] }]))
        .unwrap();
        let err = refuse_outside_editable(&e).unwrap_err();
        assert_eq!(err.kind, Kind::PatchNotAllowed);
        let refused = err.field("refused").unwrap().as_array().unwrap().clone();
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert!(refused[0]["reason"].as_str().unwrap().contains("price"));
        assert!(refused[1]["reason"].as_str().unwrap().contains("brand"));
        assert!(refused[2]["reason"].as_str().unwrap().contains("deletes"));
        assert!(refuse_outside_editable(&edits(json!([title("A")])).unwrap()).is_ok());
    }
}

//! The selling-side reads the listing write flow makes for a merchant: one listing (product
//! type, attributes, issues) and a product type's schema version. The preview, the commit and
//! the image check all read through here.

use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};

use crate::calls::build;
use crate::catalog;
use crate::connections::GrantKind;
use crate::merchants::Merchant;
use crate::upstream::Provider;

/// A listing as the provider has it now.
pub(super) struct Listing {
    pub product_type: Option<String>,
    pub attributes: Value,
    pub issues: Vec<Value>,
}

/// One catalogued selling-side read for merchant `m`.
async fn seller_read(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    op_id: &str,
    args: Value,
) -> Result<crate::upstream::Reply> {
    let op = catalog::find(catalog::spapi(), op_id)
        .ok_or_else(|| Error::internal(format!("{op_id} is missing from the catalog")))?;
    let args = args.as_object().cloned().unwrap_or_default();
    let req = build(op, &args, tenant, GrantKind::Seller, &m.seller_id, Some(m))?;
    up.client.send(up.store, up.sealer, &req).await
}

/// The product type's schema version now.
pub(super) async fn type_version(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    product_type: &str,
) -> Result<String> {
    let args = json!({ "productType": product_type });
    let r = seller_read(
        up,
        tenant,
        m,
        "product_types.get_definitions_product_type",
        args,
    )
    .await?;
    r.body["productTypeVersion"]["version"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| {
            Error::new(
                Kind::UpstreamUnavailable,
                format!("the definition of {product_type} carries no productTypeVersion"),
            )
        })
}

pub(super) fn issue_codes(issues: &[Value]) -> Vec<String> {
    issues
        .iter()
        .filter_map(|i| i["code"].as_str().map(str::to_owned))
        .collect()
}

/// Reads one listing (`None`: the provider has no such SKU).
pub(super) async fn read_listing(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    sku: &str,
) -> Result<Option<Listing>> {
    let args = json!({ "sku": sku, "includedData": ["summaries", "attributes", "issues"] });
    match seller_read(up, tenant, m, "listings.get_listings_item", args).await {
        Ok(r) => Ok(Some(Listing {
            product_type: r.body["summaries"][0]["productType"]
                .as_str()
                .map(str::to_owned),
            attributes: r.body["attributes"].clone(),
            issues: r.body["issues"].as_array().cloned().unwrap_or_default(),
        })),
        Err(e) if crate::triage::provider_not_found(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

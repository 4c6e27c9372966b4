//! A managed tenant's merchants: every marketplace a connected selling-side grant takes part
//! in becomes a `seller` row (the provider's store name, marketplace and currency; a vendor
//! when the advertising profiles say so), numbered after the rows already there, so
//! connecting an account is enough for its data to arrive. Rows already present are kept as
//! they are: their ids are what the warehouse's other rows point at.

use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::connections::{ConnectionStatus, GrantKind};
use pp_marketplace::service::{Account, Feeds};
use pp_warehouse::directory::Seller;
use pp_world::schema::table;
use pp_world::{Cell, Managed, Slice};
use serde_json::{Map, Value};

/// A merchant in one marketplace, as the provider describes it.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    token: String,
    name: String,
    country: String,
    marketplace_id: String,
    currency: String,
}

/// What adopting added: the new rows' ids.
pub type Added = Vec<i64>;

/// Adds a `seller` row for every marketplace the tenant's active selling-side grants take
/// part in that the warehouse lacks (`have` are its rows now).
pub async fn sellers(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    connections: &[pp_marketplace::connections::Connection],
    have: &[Seller],
    loader: &Managed,
) -> Result<Added> {
    let mut found = Vec::new();
    for c in connections
        .iter()
        .filter(|c| c.kind == GrantKind::Seller && c.status == ConnectionStatus::Active)
    {
        match participations(feeds, tenant, &c.merchant).await {
            Ok(f) => found.extend(f),
            // this grant lapsed on the way (the connection now says so): its merchants keep
            // the rows they have, the others are taken in
            Err(e) if matches!(e.kind, Kind::ReauthRequired | Kind::MerchantInactive) => {
                tracing::info!(
                    tenant = tenant.as_str(),
                    merchant = c.merchant.as_str(),
                    "a lapsed grant is left out of adopting"
                );
            }
            Err(e) => return Err(e),
        }
    }
    let vendors = vendor_tokens(feeds, tenant, connections).await;
    let mut next = have.iter().map(|s| s.id).max().unwrap_or(0) + 1;
    let mut added = Vec::new();
    let t = table("seller");
    for f in found {
        if have
            .iter()
            .any(|s| s.token == f.token && s.marketplace == f.country)
        {
            continue;
        }
        // the advertising profiles say vendor; without one, a vendor is known by its entity
        // id (`ENTITY…`, the form the provider gives vendor accounts)
        let vendor = vendors.contains(&f.token) || f.token.starts_with("ENTITY");
        let account_type = if vendor { "vendor" } else { "seller" };
        let row = vec![
            Cell::Int(next),
            Cell::Text(f.token.clone()),
            Cell::Text(f.name),
            Cell::Text(account_type.into()),
            Cell::Text(f.country),
            Cell::Text(f.marketplace_id),
            Cell::Text(f.currency),
        ];
        let slice = Slice {
            table: t,
            seller_id: next,
            range: None,
            part: None,
        };
        loader
            .replace(&slice, vec![row])
            .await
            .map_err(|e| Error::internal(format!("writing seller {next}: {e}")))?;
        added.push(next);
        next += 1;
    }
    Ok(added)
}

/// The marketplaces `token`'s grant takes part in.
async fn participations(feeds: &Feeds<'_>, tenant: &TenantId, token: &str) -> Result<Vec<Found>> {
    // the participations read names no merchant row: a placeholder signs it as the token
    let m = Merchant {
        seller_id: token.to_owned(),
        legacy_seller_id: 0,
        marketplace: String::new(),
        marketplace_id: String::new(),
        account_type: String::new(),
    };
    let body = feeds
        .read(
            tenant,
            &Account::Seller(&m),
            "sellers.get_marketplace_participations",
            &Map::new(),
        )
        .await?;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    Ok(body["payload"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["participation"]["isParticipating"] != Value::Bool(false))
        .map(|p| Found {
            token: token.to_owned(),
            name: p["storeName"]
                .as_str()
                .map_or_else(|| text(&p["marketplace"]["name"]), str::to_owned),
            country: text(&p["marketplace"]["countryCode"]),
            marketplace_id: text(&p["marketplace"]["id"]),
            currency: text(&p["marketplace"]["defaultCurrencyCode"]),
        })
        .collect())
}

/// The merchant tokens the tenant's advertising logins call vendors. A login that cannot be
/// read names none (its merchants are taken as sellers until it can).
async fn vendor_tokens(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    connections: &[pp_marketplace::connections::Connection],
) -> Vec<String> {
    let mut out = Vec::new();
    for c in connections
        .iter()
        .filter(|c| c.kind == GrantKind::Ads && c.status == ConnectionStatus::Active)
    {
        let login = Account::Ads {
            login: &c.merchant,
            profile: None,
        };
        match feeds
            .read(tenant, &login, "profiles.list", &Map::new())
            .await
        {
            Ok(body) => out.extend(
                body.as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["accountInfo"]["type"] == "vendor")
                    .filter_map(|p| p["accountInfo"]["id"].as_str().map(str::to_owned)),
            ),
            Err(e) => tracing::warn!(
                tenant = tenant.as_str(),
                login = c.merchant.as_str(),
                error = e.message(),
                "advertising profiles could not be read while adopting merchants"
            ),
        }
    }
    out
}

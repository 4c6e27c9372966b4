//! A managed tenant's merchants: every marketplace a connected selling-side grant takes part
//! in, and every advertising profile of a connected advertising login, becomes a `seller` row
//! (the provider's store name, marketplace and currency; a vendor when the advertising
//! profiles say so), numbered after the rows already there, so connecting an account is
//! enough for its data to arrive. Rows already present are kept as they are: their ids are
//! what the warehouse's other rows point at. Each merchant's advertising profile is written to
//! `ads_profile`, which profile-scoped advertising calls resolve their profile through.

use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::connections::{ConnectionStatus, GrantKind};
use pp_marketplace::service::{Account, Feeds};
use pp_warehouse::directory::Seller;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use pp_warehouse::{Managed, Slice};
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

/// An advertising profile as the provider lists it.
#[derive(Debug, Clone, PartialEq)]
struct Profile {
    id: i64,
    /// The merchant token it advertises for (`accountInfo.id`).
    token: String,
    name: String,
    country: String,
    marketplace_id: String,
    currency: String,
    timezone: String,
    /// `seller`, `vendor` (or `agency`).
    account_type: String,
}

/// Adds a `seller` row for every marketplace the tenant's active selling-side grants take
/// part in, and every profile of its active advertising logins, that the warehouse lacks
/// (`have` are its rows now); then writes each merchant's advertising profile.
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
    let profiles = profiles(feeds, tenant, connections).await;
    // an advertising login's merchants without a selling-side grant come in from its profiles
    for p in profiles.iter().filter(|p| p.account_type != "agency") {
        if !found
            .iter()
            .any(|f: &Found| f.token == p.token && f.country == p.country)
        {
            found.push(Found {
                token: p.token.clone(),
                name: p.name.clone(),
                country: p.country.clone(),
                marketplace_id: p.marketplace_id.clone(),
                currency: p.currency.clone(),
            });
        }
    }
    let mut next = have.iter().map(|s| s.id).max().unwrap_or(0) + 1;
    let mut added = Vec::new();
    let mut all: Vec<(i64, String, String)> = have
        .iter()
        .map(|s| (s.id, s.token.clone(), s.marketplace.clone()))
        .collect();
    for f in found {
        if all
            .iter()
            .any(|(_, token, country)| *token == f.token && *country == f.country)
        {
            continue;
        }
        // the advertising profiles say vendor; without one, a vendor is known by its entity
        // id (`ENTITY…`, the form the provider gives vendor accounts)
        let vendor = profiles
            .iter()
            .any(|p| p.token == f.token && p.account_type == "vendor")
            || f.token.starts_with("ENTITY");
        let account_type = if vendor { "vendor" } else { "seller" };
        let row = vec![
            Cell::Int(next),
            Cell::Text(f.token.clone()),
            Cell::Text(f.name),
            Cell::Text(account_type.into()),
            Cell::Text(f.country.clone()),
            Cell::Text(f.marketplace_id),
            Cell::Text(f.currency),
        ];
        write(loader, "seller", next, vec![row]).await?;
        all.push((next, f.token, f.country));
        added.push(next);
        next += 1;
    }
    for (id, token, country) in &all {
        let Some(p) = profiles
            .iter()
            .find(|p| p.token == *token && p.country == *country)
        else {
            continue;
        };
        let row = vec![
            Cell::Int(*id),
            Cell::Text(token.clone()),
            Cell::Int(p.id),
            Cell::Text(p.country.clone()),
            Cell::Text(p.currency.clone()),
            Cell::Text(p.timezone.clone()),
            Cell::Text(p.account_type.clone()),
        ];
        write(loader, "ads_profile", *id, vec![row]).await?;
    }
    Ok(added)
}

/// Replaces one merchant's rows of `table` with `rows`.
async fn write(loader: &Managed, name: &str, seller_id: i64, rows: Vec<Vec<Cell>>) -> Result<()> {
    let slice = Slice {
        table: table(name),
        seller_id,
        range: None,
        part: None,
    };
    loader
        .replace(&slice, rows)
        .await
        .map(|_| ())
        .map_err(|e| Error::internal(format!("writing {name} of seller {seller_id}: {e}")))
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

/// The profiles of the tenant's active advertising logins. A login that cannot be read names
/// none (its merchants are taken as sellers, and get no profile, until it can).
async fn profiles(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    connections: &[pp_marketplace::connections::Connection],
) -> Vec<Profile> {
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
            Ok(body) => out.extend(body.as_array().into_iter().flatten().filter_map(profile)),
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

/// A profile of the provider's list; `None` for one without an id or a merchant.
fn profile(p: &Value) -> Option<Profile> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let info = &p["accountInfo"];
    Some(Profile {
        id: p["profileId"]
            .as_i64()
            .or_else(|| p["profileId"].as_str().and_then(|s| s.parse().ok()))?,
        token: info["id"].as_str()?.to_owned(),
        name: text(&info["name"]),
        country: text(&p["countryCode"]),
        marketplace_id: text(&info["marketplaceStringId"]),
        currency: text(&p["currencyCode"]),
        timezone: text(&p["timezone"]),
        account_type: text(&info["type"]),
    })
}

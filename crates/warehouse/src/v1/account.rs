//! The accounts a `/v1` call can name: the tenant's merchant rows, `account_id` resolution,
//! how far an account's data runs, and the answer when a domain has none.

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};

use super::Ctx;
use super::args::Args;
use super::rows::{int, rows, s};

/// One merchant row the caller can read.
pub struct Account {
    pub id: String,
    pub seller_id: i64,
    pub token: String,
    pub name: String,
    pub vendor: bool,
    pub marketplace: String,
    pub marketplace_id: String,
    pub currency: String,
}

/// The account id of a seller row: the tenant and the seller id, so ids never collide
/// across tenants.
pub fn account_id(tenant: &str, seller_id: i64) -> String {
    format!("{tenant}:{seller_id}")
}

/// All accounts of the tenant.
pub async fn all_accounts(ctx: &Ctx<'_>) -> Result<Vec<Account>> {
    let r = rows(
        ctx,
        "SELECT ID AS id, MarketplaceSellerID AS token, Name AS name, AccountType AS account_type, \
         Marketplace AS marketplace, MarketplaceID AS marketplace_id, Currency AS currency \
         FROM seller ORDER BY ID",
        vec![],
    )
    .await?;
    r.iter()
        .map(|row| {
            let id = crate::row::Row::int(row, "id")?;
            Ok(Account {
                id: account_id(ctx.tenant, id),
                seller_id: id,
                token: s(row, "token")?.to_owned(),
                name: s(row, "name")?.to_owned(),
                vendor: s(row, "account_type")? == "vendor",
                marketplace: s(row, "marketplace")?.to_owned(),
                marketplace_id: s(row, "marketplace_id")?.to_owned(),
                currency: s(row, "currency")?.to_owned(),
            })
        })
        .collect()
}

/// Resolves `account_id`: missing → `account_required`; anything not this tenant's →
/// `account_not_found`.
pub async fn account(ctx: &Ctx<'_>, args: &Args) -> Result<Account> {
    let Some(id) = args.str("account_id") else {
        return Err(Error::new(Kind::AccountRequired, "account_id is required")
            .with_fix("GET /v1/accounts lists the account ids this credential can read."));
    };
    let not_found = || {
        Error::new(
            Kind::AccountNotFound,
            format!("no account '{id}' for this credential"),
        )
        .with_fix("GET /v1/accounts lists the account ids this credential can read.")
    };
    let Some((tenant, seller)) = id.rsplit_once(':') else {
        return Err(not_found());
    };
    let Ok(seller) = seller.parse::<i64>() else {
        return Err(not_found());
    };
    if tenant != ctx.tenant {
        return Err(not_found());
    }
    all_accounts(ctx)
        .await?
        .into_iter()
        .find(|a| a.seller_id == seller)
        .ok_or_else(not_found)
}

/// The latest day of data in `table` for a seller (`column` holds the day).
pub async fn data_through(
    ctx: &Ctx<'_>,
    table: &str,
    column: &str,
    seller_id: i64,
) -> Result<Option<NaiveDate>> {
    Ok(data_held(ctx, table, column, seller_id)
        .await?
        .map(|h| h.through))
}

/// The first and the latest day of data in `table` for a seller (`column` holds the day):
/// each its own subquery, so every engine reads it from the (seller, day) index's ends.
pub async fn data_held(
    ctx: &Ctx<'_>,
    table: &str,
    column: &str,
    seller_id: i64,
) -> Result<Option<Held>> {
    let r = rows(
        ctx,
        &format!(
            "SELECT (SELECT MIN({column}) FROM {table} WHERE SellerID = ?) AS f, \
             (SELECT MAX({column}) FROM {table} WHERE SellerID = ?) AS d"
        ),
        vec![int(seller_id), int(seller_id)],
    )
    .await?;
    let day = |k: &str| {
        r.first()
            .and_then(|row| row.get(k))
            .and_then(Value::as_str)
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
    };
    Ok(day("f")
        .zip(day("d"))
        .map(|(from, through)| Held { from, through }))
}

/// The days a table holds for an account: its first and its latest (the latest complete
/// data day). On a managed warehouse whose backfill goes on, `from` moves back as it loads.
#[derive(Debug, Clone, Copy)]
pub struct Held {
    pub from: NaiveDate,
    pub through: NaiveDate,
}

/// The response's `availability` block when a domain has no data for the account.
pub fn no_data(account: &Account, domain: &str, reason: &str) -> Value {
    json!({ "account_id": account.id, "availability": { "status": "no_data", "domain": domain, "reason": reason } })
}

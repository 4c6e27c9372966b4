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
    let r = rows(
        ctx,
        &format!("SELECT MAX({column}) AS d FROM {table} WHERE SellerID = ?"),
        vec![int(seller_id)],
    )
    .await?;
    Ok(r.first()
        .and_then(|row| row.get("d"))
        .and_then(Value::as_str)
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()))
}

/// The response's `availability` block when a domain has no data for the account.
pub fn no_data(account: &Account, domain: &str, reason: &str) -> Value {
    json!({ "account_id": account.id, "availability": { "status": "no_data", "domain": domain, "reason": reason } })
}

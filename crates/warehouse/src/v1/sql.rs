//! Shared query plumbing for `/v1`: running internal SQL through the tenant's engine,
//! accounts, windows, pages, money and ratios.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use serde_json::{Map, Value, json};

use super::Ctx;
use super::args::Args;
use crate::engine::QueryRequest;
use crate::params::{Params, Scalar};

/// A row of an internal query.
pub type Row = Map<String, Value>;

/// Runs internal read-only SQL against the caller's warehouse.
pub async fn rows(ctx: &Ctx<'_>, sql: &str, params: Vec<Scalar>) -> Result<Vec<Row>> {
    let req = QueryRequest {
        sql: sql.to_owned(),
        params: Params::Positional(params),
        timeout_ms: ctx.limits.max_timeout_ms,
    };
    ctx.engine
        .query(req, ctx.limits)
        .await
        .map(|r| r.rows)
        .map_err(|e| match e.kind {
            Kind::SqlError | Kind::ReadOnlyViolation => {
                Error::internal(format!("v1 query failed: {}", e.message()))
            }
            _ => e,
        })
}

/// A text scalar.
pub fn text(s: impl Into<String>) -> Scalar {
    Scalar::Text(s.into())
}

/// An integer scalar.
pub fn int(v: i64) -> Scalar {
    Scalar::Int(v)
}

/// A date scalar.
pub fn day(d: NaiveDate) -> Scalar {
    Scalar::Text(d.to_string())
}

/// An integer field of a row (0 when null).
pub fn i(row: &Row, k: &str) -> i64 {
    row.get(k).and_then(Value::as_i64).unwrap_or(0)
}

/// A real field of a row (0 when null).
pub fn f(row: &Row, k: &str) -> f64 {
    row.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// A text field of a row.
pub fn s<'a>(row: &'a Row, k: &str) -> &'a str {
    row.get(k).and_then(Value::as_str).unwrap_or("")
}

/// Rounds to cents.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A money field: amount and currency, always together.
pub fn money(amount: f64, currency: &str) -> Value {
    json!({ "amount": round2(amount), "currency": currency })
}

/// `num / den`, times `scale`, rounded to two places; null when `den` is zero.
pub fn ratio(num: f64, den: f64, scale: f64) -> Value {
    if den == 0.0 {
        Value::Null
    } else {
        json!(round2(num / den * scale))
    }
}

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
    let r = rows(ctx, "SELECT ID, MarketplaceSellerID, Name, AccountType, Marketplace, MarketplaceID, Currency FROM seller ORDER BY ID", vec![]).await?;
    Ok(r.iter()
        .map(|row| Account {
            id: account_id(ctx.tenant, i(row, "ID")),
            seller_id: i(row, "ID"),
            token: s(row, "MarketplaceSellerID").to_owned(),
            name: s(row, "Name").to_owned(),
            vendor: s(row, "AccountType") == "vendor",
            marketplace: s(row, "Marketplace").to_owned(),
            marketplace_id: s(row, "MarketplaceID").to_owned(),
            currency: s(row, "Currency").to_owned(),
        })
        .collect())
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
        &format!("SELECT MAX(`{column}`) AS d FROM `{table}` WHERE SellerID = ?"),
        vec![int(seller_id)],
    )
    .await?;
    Ok(r.first()
        .and_then(|row| row.get("d"))
        .and_then(Value::as_str)
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()))
}

/// An inclusive window of days.
pub struct Window {
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub data_through: NaiveDate,
}

/// Longest window a daily endpoint serves, in days.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// `start_date`/`end_date` with defaults: the `default_days` ending on the latest complete
/// data day; an end past that day is moved back to it.
pub fn window(args: &Args, data_through: NaiveDate, default_days: i64) -> Result<Window> {
    let end = args
        .date("end_date")?
        .map_or(data_through, |e| e.min(data_through));
    let start = args
        .date("start_date")?
        .unwrap_or(end - Duration::days(default_days - 1));
    if start > end {
        return Err(Error::invalid_request(format!(
            "start_date {start} is after the window's end {end} (data is complete through {data_through})"
        )));
    }
    if (end - start).num_days() + 1 > MAX_WINDOW_DAYS {
        return Err(Error::invalid_request(format!(
            "the window is longer than {MAX_WINDOW_DAYS} days; split it"
        )));
    }
    Ok(Window {
        start,
        end,
        data_through,
    })
}

impl Window {
    /// The response's `window` block.
    pub fn json(&self) -> Value {
        json!({ "start_date": self.start.to_string(), "end_date": self.end.to_string(), "days": (self.end - self.start).num_days() + 1, "data_through": self.data_through.to_string() })
    }
}

/// The response's `availability` block when a domain has no data for the account.
pub fn no_data(account: &Account, domain: &str, reason: &str) -> Value {
    json!({ "account_id": account.id, "availability": { "status": "no_data", "domain": domain, "reason": reason } })
}

/// Page size and the key to resume after.
pub struct Page {
    pub limit: i64,
    pub after: Option<Value>,
    pub query: String,
}

/// Reads `limit` (1–500, default 100) and `cursor` for the query fingerprinted by `parts`.
pub fn page(ctx: &Ctx<'_>, args: &Args, parts: &[&str]) -> Result<Page> {
    let query = pp_core::cursor::fingerprint(parts);
    let limit = args.int("limit", 1, 500)?.unwrap_or(100);
    let after = args
        .str("cursor")
        .map(|c| ctx.cursors.decode(&query, c))
        .transpose()?;
    Ok(Page {
        limit,
        after,
        query,
    })
}

impl Page {
    /// Cuts the `limit + 1` rows fetched to a page and makes the next cursor from the last
    /// row's key.
    pub fn finish(
        &self,
        ctx: &Ctx<'_>,
        mut fetched: Vec<Row>,
        key: impl Fn(&Row) -> Value,
    ) -> (Vec<Row>, Option<String>) {
        let more = fetched.len() as i64 > self.limit;
        fetched.truncate(self.limit as usize);
        let next = if more {
            fetched
                .last()
                .map(|r| ctx.cursors.encode(&self.query, &key(r)))
        } else {
            None
        };
        (fetched, next)
    }
}

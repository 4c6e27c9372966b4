//! DSP daily through Reporting v1: the DSP advertiser linked to a merchant is found among its
//! advertising login's advertiser accounts (the one whose alternate ids name a
//! `dspAdvertiserId` in the merchant's country; its seat id from the manager accounts, which a
//! report must not be asked for), written to `dsp_advertiser`, and each slice is one v1 report
//! by day, order (the report's campaign) and line item (its ad group).

use chrono::NaiveDate;
use pp_core::{Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::service::{Account, Feeds};
use pp_world::schema::table;
use pp_world::{Cell, Slice};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::rows::{Load, Seller};

/// A merchant's DSP advertiser, as the job keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Dsp {
    /// The advertiser account id a v1 report names.
    pub(crate) account: String,
    pub(crate) id: i64,
    pub(crate) seat: Option<String>,
    pub(crate) name: String,
    pub(crate) currency: String,
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// The DSP advertiser linked to `merchant` through its advertising login, if any.
pub(crate) async fn advertiser(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    merchant: &Merchant,
) -> Result<Option<Dsp>> {
    let login = Account::Ads {
        login: &merchant.seller_id,
        profile: None,
    };
    let mut args = Map::new();
    args.insert("body".into(), json!({ "maxResults": 100 }));
    let list = feeds
        .read(tenant, &login, "accounts.query_advertiser_accounts", &args)
        .await?;
    let found = list["advertiserAccounts"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|a| {
            let alt = a["alternateIds"].as_array()?.iter().find(|x| {
                x["countryCode"] == merchant.marketplace.as_str()
                    && x["dspAdvertiserId"].is_string()
            })?;
            Some(Dsp {
                account: text(&a["advertiserAccountId"]),
                id: alt["dspAdvertiserId"].as_str()?.parse().ok()?,
                seat: None,
                name: text(&a["displayName"]),
                currency: text(&a["currencyCode"]),
            })
        });
    let Some(mut dsp) = found else {
        return Ok(None);
    };
    // the seat is on the manager account's linked entry; without it the seat is unknown
    if let Ok(m) = feeds
        .read(
            tenant,
            &login,
            "accounts.list_manager_accounts",
            &Map::new(),
        )
        .await
    {
        dsp.seat = m["managerAccounts"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["linkedAccounts"].as_array().into_iter().flatten())
            .find(|l| l["dspAdvertiserId"] == dsp.id.to_string().as_str())
            .and_then(|l| l["accountId"].as_str().map(str::to_owned));
    }
    Ok(Some(dsp))
}

/// The merchant's `dsp_advertiser` row, whole.
pub(crate) fn advertiser_row(seller: &Seller, d: &Dsp) -> Load {
    Load {
        slice: Slice {
            table: table("dsp_advertiser"),
            seller_id: seller.id,
            range: None,
            part: None,
        },
        rows: vec![vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Int(d.id),
            d.seat.clone().map_or(Cell::Null, Cell::Text),
            Cell::Text(d.name.clone()),
            Cell::Text(d.currency.clone()),
        ]],
    }
}

/// One slice's v1 report: by day, order and line item, every measure DSP has.
pub(crate) fn request(d: &Dsp, from: NaiveDate, to: NaiveDate) -> Value {
    json!({
        "accessRequestedAccounts": [{ "advertiserAccountId": d.account }],
        "reports": [{
            "format": "GZIP_JSON",
            "periods": [{ "datePeriod": { "startDate": from.to_string(), "endDate": to.to_string() } }],
            "query": { "fields": [
                "date.value", "campaign.id", "adGroup.id", "adGroup.name", "budgetCurrency.value",
                "metric.impressions", "metric.clicks", "metric.totalCost", "metric.purchases",
                "metric.sales", "metric.purchasesPromoted", "metric.salesPromoted",
            ] },
        }],
    })
}

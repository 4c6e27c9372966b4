//! DSP daily through Reporting v1: the DSP advertiser linked to a merchant is found among its
//! advertising login's advertiser accounts (the one whose alternate ids name a
//! `dspAdvertiserId` in the merchant's country; its seat id from the manager accounts, which a
//! report must not be asked for), written to `dsp_advertiser`, and each slice is one v1 report
//! by day, order (the report's campaign) and line item (its ad group).

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::documents::ads::{self, AdsRow};
use pp_marketplace::ledger::Family;
use pp_marketplace::service::{Account, Feeds};
use pp_warehouse::Slice;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{days, dim, id, unfit};
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, ReadsAs, Seller, Started, fatal};

/// The reader.
pub struct DspDaily;

impl Reader for DspDaily {
    fn label(&self) -> &'static str {
        "Reporting v1 (DSP advertiser: day, order, line item)"
    }

    /// Reporting v1 names its accounts in the body.
    fn reads_as(&self) -> ReadsAs {
        ReadsAs::AdsLogin
    }

    /// The merchant's DSP advertiser, found once and written to `dsp_advertiser`.
    fn prepare<'a>(&'a self, cx: &'a mut Cx<'_>) -> Fut<'a, Option<String>> {
        Box::pin(async move {
            if cx.dsp.is_some() {
                return Ok(None);
            }
            match advertiser(&cx.feeds(), &cx.tenant, &cx.merchant).await {
                Ok(Some(d)) => {
                    let row = advertiser_row(&cx.seller, &d);
                    cx.loader
                        .replace(&row.slice, row.rows)
                        .await
                        .map_err(|e| Error::internal(format!("writing dsp_advertiser: {e}")))?;
                    cx.dsp = Some(d);
                    Ok(None)
                }
                Ok(None) => Ok(Some(format!(
                    "no DSP advertiser is linked to {} in {}",
                    cx.merchant.seller_id, cx.merchant.marketplace
                ))),
                // a lapsed login is the usability check's to report
                Err(e) if e.kind == Kind::ReauthRequired => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let d = advertiser_of(cx)?;
            let id = cx
                .create(Family::AdsV1, request(d, from, to), (from, to), "")
                .await?;
            Ok(Started::Asked(ReportCk::new(id, (from, to))))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let feeds = cx.feeds();
            let answer = feeds
                .ads_report(&cx.tenant, &cx.account(), Family::AdsV1, &r.id)
                .await?;
            let report = &answer["success"][0]["report"];
            match report["status"].as_str().unwrap_or_default() {
                "COMPLETED" => {}
                "FAILED" => return Err(fatal(r, "provider_fatal", report.clone())),
                "" => {
                    return Err(Error::new(
                        Kind::UpstreamUnavailable,
                        format!("the provider did not describe report {}: {answer}", r.id),
                    ));
                }
                _ => return Ok(None),
            }
            let url = report["completedReportParts"][0]["url"]
                .as_str()
                .ok_or_else(|| {
                    Error::new(
                        Kind::UpstreamUnavailable,
                        format!("completed report {} names no URL", r.id),
                    )
                })?;
            let text = feeds.download(url, true).await?;
            let read = ads::v1(&text)?;
            let d = advertiser_of(cx)?;
            Ok(Some(vec![rows(&cx.seller, d.id, r.days(), &read)?]))
        })
    }
}

/// The advertiser the job found before its first slice.
fn advertiser_of<'c>(cx: &'c Cx<'_>) -> pp_core::Result<&'c Dsp> {
    cx.dsp
        .as_ref()
        .ok_or_else(|| Error::internal("a DSP slice without its advertiser"))
}

/// A merchant's DSP advertiser, as the job keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dsp {
    /// The advertiser account id a v1 report names.
    pub account: String,
    pub id: i64,
    pub seat: Option<String>,
    pub name: String,
    pub currency: String,
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// The DSP advertiser linked to `merchant` through its advertising login, if any.
async fn advertiser(
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
fn advertiser_row(seller: &Seller, d: &Dsp) -> Load {
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
fn request(d: &Dsp, from: NaiveDate, to: NaiveDate) -> Value {
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

/// A Reporting v1 document's DSP rows over `from..=to`: one per day and line item (the
/// report's ad group), its order the report's campaign.
pub fn rows(
    seller: &Seller,
    advertiser: i64,
    (from, to): (NaiveDate, NaiveDate),
    rows: &[AdsRow],
) -> Result<Load> {
    const T: &str = "dsp_daily";
    let out = rows
        .iter()
        .map(|r| {
            let day = r.date.ok_or_else(|| unfit(T, "a row has no date.value"))?;
            Ok(vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Int(advertiser),
                Cell::Text(day.to_string()),
                id(r, T, &["campaign.id"])?,
                id(r, T, &["adGroup.id"])?,
                Cell::Text(dim(r, T, &["adGroup.name"])?.to_owned()),
                Cell::Int(r.impressions),
                Cell::Int(r.clicks),
                Cell::Cents(r.cost),
                Cell::Int(r.purchases),
                Cell::Cents(r.sales),
                Cell::Int(r.purchases_promoted),
                Cell::Cents(r.sales_promoted),
                Cell::Text(dim(r, T, &["budgetCurrency.value"])?.to_owned()),
            ])
        })
        .collect::<Result<_>>()?;
    Ok(Load {
        slice: days(table(T), seller, from, to, "Date"),
        rows: out,
    })
}

//! Sponsored Products, Brands and Display by day through Reporting v3: each dataset is one
//! report type, ad product, grain and column list ([`AdsV3`]), asked in the merchant's
//! marketplace's advertising profile (found once), 31 days a report; each of the table's
//! columns is taken from the document's row by name.

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use pp_marketplace::documents::ads::{self, AdsRow};
use pp_marketplace::documents::cents;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::{Table, table};
use serde_json::json;

use super::{days, dim, id, unfit};
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, ReadsAs, Seller, Started, fatal};

/// A Reporting v3 dataset: its report type, ad product, grain (`groupBy`) and the columns
/// asked.
pub struct AdsV3 {
    pub report: &'static str,
    pub product: &'static str,
    pub group_by: &'static [&'static str],
    pub columns: &'static [&'static str],
}

impl Reader for AdsV3 {
    fn label(&self) -> &'static str {
        self.report
    }

    fn reads_as(&self) -> ReadsAs {
        ReadsAs::AdsProfile
    }

    fn prepare<'a>(&'a self, cx: &'a mut Cx<'_>) -> Fut<'a, Option<String>> {
        Box::pin(find_profile(cx))
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let body = json!({
                "name": format!("partner platform sync {} {from}..{to}", cx.dataset.name),
                "startDate": from.to_string(),
                "endDate": to.to_string(),
                "configuration": {
                    "adProduct": self.product,
                    "groupBy": self.group_by,
                    "columns": self.columns,
                    "reportTypeId": self.report,
                    "timeUnit": "DAILY",
                    "format": "GZIP_JSON",
                },
            });
            let id = cx.create(Family::AdsV3, body, (from, to), "").await?;
            Ok(Started::Asked(ReportCk::new(id, (from, to))))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let feeds = cx.feeds();
            let report = feeds
                .ads_report(&cx.tenant, &cx.account(), Family::AdsV3, &r.id)
                .await?;
            match report["status"].as_str().unwrap_or_default() {
                "COMPLETED" => {}
                "FAILED" => return Err(fatal(r, "provider_fatal", report)),
                _ => return Ok(None),
            }
            let url = report["url"].as_str().ok_or_else(|| {
                Error::new(
                    Kind::UpstreamUnavailable,
                    format!("completed report {} names no URL", r.id),
                )
            })?;
            let text = feeds.download(url, true).await?;
            let read = ads::v3(&text)?;
            let profile = cx.profile.unwrap_or_default();
            let loads = cx
                .dataset
                .tables
                .iter()
                .map(|t| rows(&cx.seller, profile, self.product, table(t), r.days(), &read))
                .collect::<Result<_>>()?;
            Ok(Some(loads))
        })
    }
}

/// Finds the advertising profile of the merchant's marketplace once (kept in the checkpoint
/// through `cx`); why the dataset is unavailable when its login has none there.
pub(crate) async fn find_profile(cx: &mut Cx<'_>) -> Result<Option<String>> {
    if cx.profile.is_some() {
        return Ok(None);
    }
    match profile_of(cx).await {
        Ok(Some(p)) => {
            cx.set_profile(Some(p));
            Ok(None)
        }
        Ok(None) => Ok(Some(format!(
            "the advertising login of {} has no profile in {}",
            cx.merchant.seller_id, cx.merchant.marketplace
        ))),
        // a lapsed login is the usability check's to report
        Err(e) if e.kind == Kind::ReauthRequired => Ok(None),
        Err(e) => Err(e),
    }
}

/// The advertising profile of the merchant's marketplace, if its login has one.
async fn profile_of(cx: &Cx<'_>) -> Result<Option<i64>> {
    let merchant = &cx.merchant;
    let login = pp_marketplace::service::Account::Ads {
        login: &merchant.seller_id,
        profile: None,
    };
    let body = cx
        .feeds()
        .read(&cx.tenant, &login, "profiles.list", &serde_json::Map::new())
        .await?;
    Ok(body
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| {
            p["accountInfo"]["id"] == merchant.seller_id.as_str()
                && p["countryCode"] == merchant.marketplace.as_str()
        })
        .and_then(|p| {
            p["profileId"]
                .as_i64()
                .or_else(|| p["profileId"].as_str().and_then(|s| s.parse().ok()))
        }))
}

/// A Reporting v3 document's rows for `table`, one ad product of one profile over
/// `from..=to`: each of the table's columns taken from the row by name.
pub fn rows(
    seller: &Seller,
    profile: i64,
    product: &str,
    t: &'static Table,
    (from, to): (NaiveDate, NaiveDate),
    rows: &[AdsRow],
) -> Result<Load> {
    let name = t.name;
    let out = rows
        .iter()
        .map(|r| {
            t.columns
                .iter()
                .map(|c| {
                    Ok(match c.name {
                        "SellerID" => Cell::Int(seller.id),
                        "MarketplaceSellerID" => Cell::Text(seller.token.clone()),
                        "ProfileID" => Cell::Int(profile),
                        "Date" => Cell::Text(
                            r.date
                                .ok_or_else(|| unfit(name, "a row has no date"))?
                                .to_string(),
                        ),
                        "AdProduct" => Cell::Text(product.to_owned()),
                        "CampaignID" => id(r, name, &["campaignId"])?,
                        "AdGroupID" => id(r, name, &["adGroupId"])?,
                        "TargetingID" => id(r, name, &["keywordId", "targetingId"])?,
                        "CampaignName" => Cell::Text(dim(r, name, &["campaignName"])?.to_owned()),
                        "CampaignBudget" => Cell::Cents(cents(
                            "Reporting v3",
                            dim(r, name, &["campaignBudgetAmount"])?,
                        )?),
                        "Targeting" => {
                            Cell::Text(dim(r, name, &["keyword", "targetingText"])?.to_owned())
                        }
                        // Display targets are expressions; the report names no match type
                        "MatchType" => Cell::Text(match r.dims.get("matchType") {
                            Some(m) => m.clone(),
                            None => "TARGETING_EXPRESSION".to_owned(),
                        }),
                        "SearchTerm" => Cell::Text(dim(r, name, &["searchTerm"])?.to_owned()),
                        "AdvertisedASIN" => {
                            Cell::Text(dim(r, name, &["advertisedAsin"])?.to_owned())
                        }
                        "AdvertisedSKU" => r.dims.get("advertisedSku").cloned().into(),
                        "Impressions" => Cell::Int(r.impressions),
                        "Clicks" => Cell::Int(r.clicks),
                        "Cost" => Cell::Cents(r.cost),
                        "Purchases7d" => Cell::Int(r.purchases),
                        "Sales7d" => Cell::Cents(r.sales),
                        "Currency" => Cell::Text(seller.currency.clone()),
                        other => return Err(unfit(name, format!("nothing fills {other}"))),
                    })
                })
                .collect::<Result<Vec<Cell>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    let mut slice = days(t, seller, from, to, "Date");
    if t.columns.iter().any(|c| c.name == "AdProduct") {
        slice.part = Some(("AdProduct", product.to_owned()));
    }
    Ok(Load { slice, rows: out })
}

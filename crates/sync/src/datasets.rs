//! The datasets a sync fills, as data: its reader (`readers/`: what it asks the provider for
//! and how the documents become rows), which merchants it applies to, the tables and natural
//! key it writes, how far back the provider lets it be read, how many recent days the
//! provider restates (re-read every run), and how many days one slice covers. A new dataset is
//! a row here and its reader's module; a service can also be given datasets of its own
//! ([`Datasets::with`]).

use crate::reader::Reader;
use crate::readers::ads_entities::AdsEntities;
use crate::readers::ads_v3::AdsV3;
use crate::readers::catalog::{Catalog, VendorCatalog};
use crate::readers::dsp::DspDaily;
use crate::readers::finance_transactions::FinanceTransactions;
use crate::readers::inventory::Inventory;
use crate::readers::returns::Returns;
use crate::readers::sales_and_traffic::SalesAndTraffic;
use crate::readers::search_query_performance::SearchQueryPerformance;
use crate::readers::settlements::Settlements;
use crate::readers::vendor::Vendor;

/// Which merchants a dataset applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    /// Selling-partner merchants (`seller.AccountType = 'seller'`).
    Sellers,
    /// Vendors.
    Vendors,
    /// Merchants with an advertising profile in the marketplace.
    AdsProfiles,
}

const SP: &str = "SPONSORED_PRODUCTS";
const SB: &str = "SPONSORED_BRANDS";
const SD: &str = "SPONSORED_DISPLAY";

/// The measures every advertising dataset asks for, with Sponsored Products' attributed
/// metrics named with their window and the others' without.
macro_rules! measures {
    (sp, $($d:literal),*) => { &["date", $($d,)* "impressions", "clicks", "cost", "purchases7d", "sales7d"] };
    (other, $($d:literal),*) => { &["date", $($d,)* "impressions", "clicks", "cost", "purchases", "sales"] };
}

/// A Reporting v3 dataset (`ads!`): daily, 31 days a report.
macro_rules! ads {
    ($name:literal, $about:literal, ($report:literal, $product:expr, $group_by:expr), $table:expr, $key:expr, $columns:expr) => {{
        const READER: &AdsV3 = &AdsV3 {
            report: $report,
            product: $product,
            group_by: $group_by,
            columns: $columns,
        };
        ads($name, $about, READER, $table, $key)
    }};
}

/// A Reporting v3 dataset of `reader`'s ad product, with that product's lookback.
const fn ads(
    name: &'static str,
    about: &'static str,
    reader: &'static AdsV3,
    table: &'static [&'static str],
    key: &'static [&'static str],
) -> Dataset {
    let (lookback_days, limits) = match reader.product.as_bytes()[10] {
        // SPONSORED_[B]RANDS, SPONSORED_[D]ISPLAY, SPONSORED_[P]RODUCTS
        b'B' => (
            60,
            "60 days back (the provider keeps Sponsored Brands reports that long).",
        ),
        b'D' => (
            65,
            "65 days back (the provider keeps Sponsored Display reports that long).",
        ),
        _ => (
            95,
            "95 days back (the provider keeps Sponsored Products reports that long).",
        ),
    };
    Dataset {
        name,
        about,
        reader,
        side: Side::Advertising,
        applies: Applies::AdsProfiles,
        tables: table,
        key,
        grain: "day",
        lookback_days,
        slice_days: 31,
        leads: false,
        limits,
    }
}

const CAMPAIGN_KEY: &[&str] = &["SellerID", "Date", "AdProduct", "CampaignID"];
const AD_GROUP_KEY: &[&str] = &["SellerID", "Date", "AdProduct", "AdGroupID"];
const TARGET_KEY: &[&str] = &["SellerID", "Date", "AdProduct", "TargetingID"];

/// Which side's retail or advertising restatement default applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Retail,
    Advertising,
}

/// One dataset.
pub struct Dataset {
    pub name: &'static str,
    pub about: &'static str,
    /// What it asks the provider for, and how the documents become rows.
    pub reader: &'static dyn Reader,
    pub side: Side,
    pub applies: Applies,
    /// The tables it writes, and the natural key of their rows.
    pub tables: &'static [&'static str],
    pub key: &'static [&'static str],
    /// The grain of a row's date.
    pub grain: &'static str,
    /// How many days before today the provider lets it be read.
    pub lookback_days: i64,
    /// Days one slice covers.
    pub slice_days: i64,
    /// Read first: while a usage plan's tokens are scarce, its recent days take them before
    /// other datasets' (sales and traffic, what `/v1` and the intelligence answer from).
    pub leads: bool,
    /// What the provider cannot give, in words (shown in the status and the docs).
    pub limits: &'static str,
}

/// Every dataset a sync fills.
#[rustfmt::skip]
pub const DATASETS: &[Dataset] = &[Dataset {
    name: "sales_and_traffic",
    about: "Daily sales and traffic for the seller and by child ASIN",
    reader: &SalesAndTraffic,
    side: Side::Retail,
    applies: Applies::Sellers,
    tables: &[
        "spapi_sales_and_traffic_by_date",
        "spapi_sales_and_traffic_by_asin",
    ],
    key: &["SellerID", "Date", "ChildASIN"],
    grain: "day",
    lookback_days: 730,
    // the by-ASIN part sums over a report's whole window, so a report covers one day
    slice_days: 1,
    leads: true,
    limits: "Two years back. ItemPrice is the day's sales over its units; a day without units has none (no document carries the price then).",
},
    Dataset {
        name: "catalog",
        about: "The seller's listed items with brand, sub-brand, parent ASIN, list price and launch date",
        reader: &Catalog,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["catalog_item"],
        key: &["SellerID", "ASIN"],
        grain: "snapshot",
        // the listings as they are today, re-read every day
        lookback_days: 1,
        slice_days: 1,
        leads: false,
        limits: "Today's listings only (the provider keeps no history of them); an item no longer listed leaves the table.",
    },
    Dataset {
        name: "vendor_catalog",
        about: "The vendor's items with brand, its own brand label, product line, parent ASIN, list price and launch date",
        reader: &VendorCatalog,
        side: Side::Retail,
        applies: Applies::Vendors,
        tables: &["catalog_item"],
        key: &["SellerID", "ASIN"],
        grain: "snapshot",
        lookback_days: 1,
        slice_days: 1,
        leads: false,
        limits: "The provider lists no vendor catalog: the items are those of the ASINs in the vendor's synced sales and traffic over the last 35 days, so it starts once those days are loaded, and an item without sales or glance views for 35 days leaves the table. No SKUs (vendors have none).",
    },
    Dataset {
        name: "fba_inventory",
        about: "Each SKU's FBA units by day: fulfillable, reserved, inbound (latest day) and days of supply",
        reader: &Inventory,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["spapi_fba_inventory"],
        key: &["SellerID", "Date", "SKU"],
        grain: "day",
        lookback_days: 548,
        slice_days: 31,
        leads: false,
        limits: "18 months back (the ledger's reach). Inbound units are known only for the day before each run (the unsuppressed inventory report is today's); earlier days have none. DaysOfSupply needs the 28 days of sales through a day: the first 27 days of the reach, and of a SKU's life, have none.",
    },
    Dataset {
        name: "fba_returns",
        about: "Customer returns by day: each refund's returned units by disposition (back in stock, damaged by the buyer, damaged on the way)",
        reader: &Returns,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["spapi_fba_returns"],
        key: &["SellerID", "Date", "Order-id", "SKU", "Detailed-disposition"],
        grain: "day",
        lookback_days: 548,
        slice_days: 31,
        leads: false,
        limits: "18 months back.",
    },
    Dataset {
        name: "vendor_sales_and_traffic",
        about: "A vendor's daily ordered and shipped revenue and units, and glance views, by ASIN",
        reader: &Vendor,
        side: Side::Retail,
        applies: Applies::Vendors,
        tables: &["vendor_sales_and_traffic"],
        key: &["SellerID", "Date", "ASIN"],
        grain: "day",
        lookback_days: 1095,
        // the provider's most days in one DAY report
        slice_days: 15,
        leads: true,
        limits: "Three years back, vendors only. A day and ASIN one of the two reports leaves out has that report's figures empty.",
    },
    Dataset {
        name: "settlements",
        about: "Settlement lines: each closed settlement period's orders, refunds and fees, with its dates and deposit",
        reader: &Settlements,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["spapi_settlement"],
        key: &["SellerID", "Settlement-id"],
        grain: "settlement",
        // the provider keeps a settlement report 90 days after its period closes
        lookback_days: 90,
        slice_days: 90,
        leads: false,
        limits: "The provider makes a settlement report itself when a period closes and keeps it 90 days: settlements that closed earlier cannot be read, and the open period arrives once it closes. Every run reads each settlement still kept again, whole.",
    },
    Dataset {
        name: "finance_transactions",
        about: "Financial transactions of the last 35 days: each amount posted to the seller's account, with its transaction's status (deferred, released) and settlement",
        reader: &FinanceTransactions,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["spapi_finance_transaction"],
        key: &["SellerID", "Date", "Transaction-id", "Amount-type", "Amount-description"],
        grain: "day",
        // the window every run reads whole: the open settlement, and the weeks before it
        lookback_days: 35,
        slice_days: 35,
        leads: false,
        limits: "The last 35 days, read whole every run: a transaction's status and settlement are as the provider lists them now; older days keep what they were when last read (earlier days are the settlements'). The provider lists nothing from the last 48 hours.",
    },
    Dataset {
        name: "search_query_performance",
        about: "Brand analytics search query performance by week: the marketplace's totals and the brand's part",
        reader: &SearchQueryPerformance,
        side: Side::Retail,
        applies: Applies::Sellers,
        tables: &["spapi_brand_analytics_sqp"],
        key: &["SellerID", "WeekStart", "SearchQuery"],
        grain: "week",
        // 104 weeks
        lookback_days: 728,
        // four weeks a report (Sunday to Saturday)
        slice_days: 28,
        leads: false,
        limits: "Whole weeks (Sunday to Saturday), two years back, for brand-registered sellers only: elsewhere the dataset is unavailable with the provider's words. Asked by the ASINs of the synced catalog, so it starts after the catalog's first load; a query shows the brand's part over the ASINs listed today.",
    },
    Dataset {
        name: "ads_entities",
        about: "Campaigns, ad groups, keywords and targets as they are today, with each campaign's budget, bids, states and brand",
        reader: &AdsEntities,
        side: Side::Advertising,
        applies: Applies::AdsProfiles,
        tables: &["ads_campaign", "ads_ad_group", "ads_targeting"],
        key: &["SellerID", "CampaignID", "AdGroupID", "TargetingID"],
        grain: "snapshot",
        lookback_days: 1,
        slice_days: 1,
        leads: false,
        limits: "Today's entities only (the provider keeps no history of them). A campaign's brand is the brand most of its advertised products have in the synced catalog, empty while the catalog does not know them; Sponsored Display lists no products, so its campaigns have no brand, and neither they nor Sponsored Brands campaigns carry a targeting type.",
    },
    Dataset {
        name: "dsp_daily",
        about: "DSP line items by day (orders, spend, purchases and sales with and without halo), and the DSP advertiser",
        reader: &DspDaily,
        side: Side::Advertising,
        applies: Applies::AdsProfiles,
        tables: &["dsp_daily", "dsp_advertiser"],
        key: &["SellerID", "Date", "LineItemID"],
        grain: "day",
        // Reporting v1's daily reports reach back 24 months
        lookback_days: 730,
        slice_days: 31,
        leads: false,
        limits: "Two years back, for a merchant whose advertising login has a DSP advertiser in its marketplace (elsewhere unavailable, saying so).",
    },
    ads!("sp_campaigns", "Sponsored Products campaigns by day", ("spCampaigns", SP, &["campaign"]), &["ads_campaign_daily"], CAMPAIGN_KEY,
        measures!(sp, "campaignId", "campaignName", "campaignBudgetAmount")),
    ads!("sp_ad_groups", "Sponsored Products ad groups by day", ("spCampaigns", SP, &["campaign", "adGroup"]), &["ads_ad_group_daily"], AD_GROUP_KEY,
        measures!(sp, "campaignId", "adGroupId")),
    ads!("sp_targeting", "Sponsored Products keywords and targets by day", ("spTargeting", SP, &["targeting"]), &["ads_targeting_daily"], TARGET_KEY,
        measures!(sp, "campaignId", "adGroupId", "keywordId", "keyword", "matchType")),
    ads!("sp_search_terms", "Sponsored Products customer search terms by day", ("spSearchTerm", SP, &["searchTerm"]), &["ads_search_term_daily"],
        &["SellerID", "Date", "TargetingID", "SearchTerm"],
        measures!(sp, "campaignId", "adGroupId", "keywordId", "keyword", "matchType", "searchTerm")),
    ads!("sp_advertised_products", "Sponsored Products advertised products by day", ("spAdvertisedProduct", SP, &["advertiser"]), &["ads_advertised_product_daily"],
        &["SellerID", "Date", "AdGroupID", "AdvertisedASIN"],
        measures!(sp, "campaignId", "adGroupId", "advertisedAsin", "advertisedSku")),
    ads!("sb_campaigns", "Sponsored Brands campaigns by day", ("sbCampaigns", SB, &["campaign"]), &["ads_campaign_daily"], CAMPAIGN_KEY,
        measures!(other, "campaignId", "campaignName", "campaignBudgetAmount")),
    ads!("sb_ad_groups", "Sponsored Brands ad groups by day", ("sbAdGroup", SB, &["adGroup"]), &["ads_ad_group_daily"], AD_GROUP_KEY,
        measures!(other, "campaignId", "adGroupId")),
    ads!("sb_targeting", "Sponsored Brands keywords by day", ("sbTargeting", SB, &["targeting"]), &["ads_targeting_daily"], TARGET_KEY,
        measures!(other, "campaignId", "adGroupId", "keywordId", "keyword", "matchType")),
    ads!("sd_campaigns", "Sponsored Display campaigns by day", ("sdCampaigns", SD, &["campaign"]), &["ads_campaign_daily"], CAMPAIGN_KEY,
        measures!(other, "campaignId", "campaignName", "campaignBudgetAmount")),
    ads!("sd_ad_groups", "Sponsored Display ad groups by day", ("sdAdGroup", SD, &["adGroup"]), &["ads_ad_group_daily"], AD_GROUP_KEY,
        measures!(other, "campaignId", "adGroupId")),
    ads!("sd_targeting", "Sponsored Display targets by day", ("sdTargeting", SD, &["targeting"]), &["ads_targeting_daily"], TARGET_KEY,
        measures!(other, "campaignId", "adGroupId", "targetingId", "targetingText")),
];

/// The datasets a sync service fills: [`DATASETS`], and any a service was given besides.
#[derive(Clone)]
pub struct Datasets(std::sync::Arc<Vec<&'static Dataset>>);

impl Default for Datasets {
    fn default() -> Self {
        Self(std::sync::Arc::new(DATASETS.iter().collect()))
    }
}

impl Datasets {
    /// These datasets and `more`; a name already taken is refused.
    pub fn with(&self, more: &'static Dataset) -> pp_core::Result<Self> {
        if self.find(more.name).is_some() {
            return Err(pp_core::Error::internal(format!(
                "dataset {} is declared twice",
                more.name
            )));
        }
        let mut all = self.0.as_ref().clone();
        all.push(more);
        Ok(Self(std::sync::Arc::new(all)))
    }

    /// The dataset called `name`.
    pub fn find(&self, name: &str) -> Option<&'static Dataset> {
        self.0.iter().copied().find(|d| d.name == name)
    }

    /// The datasets that apply to a merchant of `account_type` (`seller` or `vendor`) with the
    /// grants it has: selling-side datasets with a selling-side grant, advertising ones with an
    /// advertising login.
    pub fn for_account(
        &self,
        account_type: &str,
        selling: bool,
        advertising: bool,
    ) -> impl Iterator<Item = &'static Dataset> + '_ {
        let kind = if account_type == "vendor" {
            Applies::Vendors
        } else {
            Applies::Sellers
        };
        self.0.iter().copied().filter(move |d| match d.applies {
            Applies::AdsProfiles => advertising,
            a => selling && a == kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ad_product_has_its_own_lookback() {
        let all = Datasets::default();
        let days = |n: &str| all.find(n).unwrap().lookback_days;
        assert_eq!(
            (
                days("sp_campaigns"),
                days("sb_campaigns"),
                days("sd_targeting")
            ),
            (95, 60, 65)
        );
        let names: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique, "a dataset is named once");
    }
}

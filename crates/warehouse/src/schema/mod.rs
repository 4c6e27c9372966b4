//! The warehouse schema as data: every table, column and index, with MySQL-flavoured types
//! (the spec's tables are MySQL's). [`spelling`] turns it into each engine's DDL for the
//! managed loader (`crate::managed`) and the demo world's generator, and `docs/warehouse.md`
//! is checked against it. A new table is a [`Table`] here; a managed warehouse gets it the
//! next time its schema is ensured.

pub mod spelling;

pub use spelling::Cell;

/// A column: name, type and what it holds.
pub struct Col {
    pub name: &'static str,
    pub ty: &'static str,
    pub doc: &'static str,
}

/// An index over columns, in order.
pub struct Index {
    pub name: &'static str,
    pub columns: &'static [&'static str],
}

/// A table: name, the provider report or entity it mirrors, columns and indexes.
pub struct Table {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: &'static [Col],
    pub indexes: &'static [Index],
}

impl Table {
    /// Position of a column.
    pub fn col(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("{}.{name}", self.name))
    }
}

macro_rules! cols {
    ($( $n:literal $t:literal $d:literal ),* $(,)?) => { &[ $( Col { name: $n, ty: $t, doc: $d } ),* ] };
}

macro_rules! seller_scoped {
    ($( $n:literal $t:literal $d:literal ),* $(,)?) => {
        &[
            Col { name: "SellerID", ty: "INT", doc: "The service's seller id (`seller.ID`); the indexed way to filter" },
            Col { name: "MarketplaceSellerID", ty: "VARCHAR(32)", doc: "The provider's merchant token; the same seller as `SellerID`" },
            $( Col { name: $n, ty: $t, doc: $d } ),*
        ]
    };
}

/// Every table of a tenant warehouse, in creation order.
pub const TABLES: &[Table] = &[
    Table {
        name: "seller",
        doc: "One merchant in one marketplace (a seller or a vendor). `ID` is the `legacySellerId`.",
        columns: cols![
            "ID" "INT" "The service's seller id; primary key",
            "MarketplaceSellerID" "VARCHAR(32)" "Provider merchant token (`A…` for sellers, `ENTITY…` for vendors); one token can exist in several marketplaces",
            "Name" "VARCHAR(128)" "Display name",
            "AccountType" "VARCHAR(8)" "`seller` or `vendor`",
            "Marketplace" "VARCHAR(2)" "Country code: US, CA, MX",
            "MarketplaceID" "VARCHAR(16)" "Provider marketplace id",
            "Currency" "VARCHAR(3)" "Currency of every money column for this seller",
        ],
        indexes: &[Index {
            name: "seller_MarketplaceSellerID_IDX",
            columns: &["MarketplaceSellerID"],
        }],
    },
    Table {
        name: "brand",
        doc: "Brands the tenant manages (brand memory keys on `Slug`).",
        columns: cols![
            "ID" "INT" "Brand id",
            "Slug" "VARCHAR(64)" "Lowercase letters, digits and hyphens",
            "Name" "VARCHAR(128)" "Display name",
        ],
        indexes: &[],
    },
    Table {
        name: "catalog_item",
        doc: "Items per seller (mirrors the listings report joined with catalog attributes).",
        columns: seller_scoped![
            "ASIN" "VARCHAR(10)" "Child ASIN",
            "ParentASIN" "VARCHAR(10)" "Parent (variation family) ASIN",
            "SKU" "VARCHAR(64)" "Seller SKU; null for vendor items",
            "Brand" "VARCHAR(128)" "Brand name (seller-side product label)",
            "CustomBrand" "VARCHAR(128)" "Vendor-side custom brand label; null for seller items",
            "ItemGroup" "VARCHAR(64)" "Item group / sub-brand label",
            "Title" "VARCHAR(255)" "Item name",
            "ListPrice" "DECIMAL(10,2)" "Regular selling price",
            "LaunchDate" "DATE" "First day on sale",
        ],
        indexes: &[Index {
            name: "catalog_item_SellerID_IDX",
            columns: &["SellerID", "ASIN"],
        }],
    },
    Table {
        name: "spapi_sales_and_traffic_by_asin",
        doc: "Daily sales and traffic by child ASIN (GET_SALES_AND_TRAFFIC_REPORT, asin granularity CHILD, date granularity DAY).",
        columns: seller_scoped![
            "Date" "DATE" "Day (marketplace time)",
            "ParentASIN" "VARCHAR(10)" "Parent ASIN",
            "ChildASIN" "VARCHAR(10)" "Child ASIN",
            "SKU" "VARCHAR(64)" "Seller SKU",
            "ItemPrice" "DECIMAL(10,2)" "Selling price in force that day (list price, promotion or price test)",
            "OrderedProductSales" "DECIMAL(12,2)" "Ordered product sales",
            "UnitsOrdered" "INT" "Units ordered",
            "TotalOrderItems" "INT" "Order items",
            "Sessions" "INT" "Sessions",
            "PageViews" "INT" "Page views",
            "BuyBoxPercentage" "DECIMAL(5,2)" "Featured-offer (buy box) percentage",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "sales_traffic_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "spapi_sales_and_traffic_by_date",
        doc: "Daily sales and traffic for the whole seller (GET_SALES_AND_TRAFFIC_REPORT, salesAndTrafficByDate); each row is the sum of that day's ASIN rows.",
        columns: seller_scoped![
            "Date" "DATE" "Day (marketplace time)",
            "OrderedProductSales" "DECIMAL(12,2)" "Ordered product sales",
            "UnitsOrdered" "INT" "Units ordered",
            "TotalOrderItems" "INT" "Order items",
            "Sessions" "INT" "Sessions",
            "PageViews" "INT" "Page views",
            "BuyBoxPercentage" "DECIMAL(5,2)" "Featured-offer percentage, session-weighted over the ASINs",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "sales_traffic_by_date_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "vendor_sales_and_traffic",
        doc: "Daily vendor sales and traffic by ASIN (GET_VENDOR_SALES_REPORT and GET_VENDOR_TRAFFIC_REPORT, DAY).",
        columns: seller_scoped![
            "Date" "DATE" "Day",
            "ASIN" "VARCHAR(10)" "ASIN",
            "OrderedRevenue" "DECIMAL(12,2)" "Ordered revenue",
            "OrderedUnits" "INT" "Ordered units",
            "ShippedRevenue" "DECIMAL(12,2)" "Shipped revenue",
            "ShippedUnits" "INT" "Shipped units",
            "GlanceViews" "INT" "Glance views",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "vendor_sales_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "spapi_fba_inventory",
        doc: "Daily FBA inventory snapshot by SKU (GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA, one snapshot a day).",
        columns: seller_scoped![
            "Date" "DATE" "Snapshot day (end of day)",
            "ASIN" "VARCHAR(10)" "ASIN",
            "SKU" "VARCHAR(64)" "Seller SKU",
            "Fulfillable" "INT" "Units on hand and sellable",
            "Inbound" "INT" "Units in inbound shipments (working, shipped, receiving)",
            "Reserved" "INT" "Units reserved (customer orders, transfers)",
            "DaysOfSupply" "DECIMAL(8,1)" "Fulfillable units divided by the trailing 28-day average of units sold",
        ],
        indexes: &[Index {
            name: "fba_inventory_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "spapi_brand_analytics_sqp",
        doc: "Weekly brand-analytics search query performance (GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT, WEEK). Totals are the whole marketplace's; `Brand*` the seller's.",
        columns: seller_scoped![
            "WeekStart" "DATE" "Sunday starting the week",
            "WeekEnd" "DATE" "Saturday ending the week",
            "SearchQuery" "VARCHAR(255)" "Customer search query",
            "SearchQueryVolume" "INT" "Searches of the query that week",
            "ImpressionsTotal" "INT" "Impressions of all results",
            "ImpressionsBrand" "INT" "Impressions of the brand's items",
            "ClicksTotal" "INT" "Clicks on all results",
            "ClicksBrand" "INT" "Clicks on the brand's items",
            "CartAddsTotal" "INT" "Cart adds from all results",
            "CartAddsBrand" "INT" "Cart adds of the brand's items",
            "PurchasesTotal" "INT" "Purchases from all results",
            "PurchasesBrand" "INT" "Purchases of the brand's items",
        ],
        indexes: &[Index {
            name: "sqp_SellerID_WeekStart_IDX",
            columns: &["SellerID", "WeekStart"],
        }],
    },
    Table {
        name: "spapi_settlement",
        doc: "Settlement lines (GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2 columns): every amount posted in a closed settlement period; in the demo world one order line per SKU and day (its amounts: \"The demo world's economics\").",
        columns: seller_scoped![
            "Settlement-id" "VARCHAR(32)" "Settlement id",
            "Settlement-start-date" "DATETIME" "Settlement period start",
            "Settlement-end-date" "DATETIME" "Settlement period end",
            "Deposit-date" "DATETIME" "Deposit date",
            "Posted-date-time" "DATETIME" "When the line was posted",
            "Transaction-type" "VARCHAR(64)" "Order, Refund, other-transaction, ServiceFee",
            "Order-id" "VARCHAR(32)" "Order id (null for fees, reimbursements and reserves)",
            "Sku" "VARCHAR(64)" "Seller SKU",
            "Quantity-purchased" "INT" "Units",
            "Amount-type" "VARCHAR(64)" "ItemPrice, Promotion, ItemFees, FBA Inventory Reimbursement, other-transaction, Cost of Advertising",
            "Amount-description" "VARCHAR(64)" "Principal, Commission, RefundCommission, FBAPerUnitFulfillmentFee, Storage Fee, Subscription Fee, Current Reserve Amount, …",
            "Amount" "DECIMAL(12,2)" "Signed amount",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[
            Index {
                name: "MIX_MAX_Record_IDX",
                columns: &["SellerID", "Posted-date-time"],
            },
            Index {
                name: "Delete_Settlement_IDX",
                columns: &["MarketplaceSellerID", "Settlement-id"],
            },
        ],
    },
    Table {
        name: "spapi_finance_transaction",
        doc: "Financial transactions as the provider lists them (Finances 2024-06-19 listTransactions): one row per amount, its transaction's status and settlement; the days not yet in a closed settlement, and the weeks before them.",
        columns: seller_scoped![
            "Date" "DATE" "Posted day (UTC)",
            "Transaction-id" "VARCHAR(64)" "The provider's transaction id",
            "Posted-date-time" "DATETIME" "When it was posted",
            "Transaction-type" "VARCHAR(32)" "Shipment, Refund, ServiceFee, Adjustment",
            "Transaction-status" "VARCHAR(32)" "DEFERRED, RELEASED or DEFERRED_RELEASED (deferred once, released since)",
            "Maturity-date" "DATETIME" "When a deferred transaction is released (null for one never deferred)",
            "Settlement-id" "VARCHAR(32)" "The settlement (financial event group) it is in; the open one until it closes",
            "Order-id" "VARCHAR(32)" "Order id (null for fees and reimbursements)",
            "Sku" "VARCHAR(64)" "Seller SKU (null for the account's own fees)",
            "Quantity" "INT" "Units",
            "Amount-type" "VARCHAR(64)" "As the settlement's: ItemPrice, Promotion, ItemFees, FBA Inventory Reimbursement, other-transaction",
            "Amount-description" "VARCHAR(64)" "As the settlement's: Principal, Commission, FBAPerUnitFulfillmentFee, Storage Fee, …",
            "Amount" "DECIMAL(12,2)" "Signed amount",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "finance_transaction_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "spapi_fba_returns",
        doc: "Customer returns to FBA (GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA): each refund's units by what became of them; a SELLABLE unit is back in stock, so its landed cost comes back to the P&L.",
        columns: seller_scoped![
            "Date" "DATE" "Return day (UTC)",
            "Return-date" "DATETIME" "When it was returned",
            "Order-id" "VARCHAR(32)" "The order refunded",
            "SKU" "VARCHAR(64)" "Seller SKU",
            "ASIN" "VARCHAR(10)" "ASIN",
            "Quantity" "INT" "Units",
            "Detailed-disposition" "VARCHAR(32)" "SELLABLE, CUSTOMER_DAMAGED, CARRIER_DAMAGED (reimbursed by the marketplace)",
            "Reason" "VARCHAR(64)" "The buyer's reason",
        ],
        indexes: &[Index {
            name: "fba_returns_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "cost_period",
        doc: "The tenant's landed cost per unit of each SKU from a day on (entered in the gateway: `POST /api/costs`, `costs import`, the console's Costs page); a copy the gateway keeps for SQL, its state store holding the original.",
        columns: seller_scoped![
            "SKU" "VARCHAR(64)" "Seller SKU",
            "ValidFrom" "DATE" "First day the cost applies (a sale's or return's posted day)",
            "ValidThrough" "DATE" "Last day it applies (the day before the SKU's next period); null while it is the latest",
            "Currency" "VARCHAR(3)" "Currency of the three amounts (converted at the posted day's rate where it is not the seller's)",
            "UnitCost" "DECIMAL(12,2)" "What a unit costs from the supplier",
            "Freight" "DECIMAL(12,2)" "Inbound freight per unit",
            "Duties" "DECIMAL(12,2)" "Duties per unit",
        ],
        indexes: &[Index {
            name: "cost_period_SellerID_SKU_IDX",
            columns: &["SellerID", "SKU", "ValidFrom"],
        }],
    },
    Table {
        name: "exchange_rate",
        doc: "The tenant's euro reference rates (imported from a published reference-rate file: `POST /api/exchange-rates`, `rates import`): one euro in each currency on each working day; a day without a rate takes the latest before it. A copy kept for SQL, as `cost_period`.",
        columns: cols![
            "Date" "DATE" "Day the rate was published for",
            "Currency" "VARCHAR(3)" "Currency",
            "PerEuro" "DECIMAL(18,6)" "Units of the currency one euro buys",
        ],
        indexes: &[Index {
            name: "exchange_rate_Currency_Date_IDX",
            columns: &["Currency", "Date"],
        }],
    },
    Table {
        name: "ads_profile",
        doc: "Advertising profiles (one per seller or vendor account and marketplace).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Advertising profile id",
            "CountryCode" "VARCHAR(2)" "Marketplace country",
            "CurrencyCode" "VARCHAR(3)" "Currency",
            "Timezone" "VARCHAR(64)" "Profile time zone",
            "AccountType" "VARCHAR(8)" "`seller` or `vendor`",
        ],
        indexes: &[Index {
            name: "ads_profile_SellerID_IDX",
            columns: &["SellerID"],
        }],
    },
    Table {
        name: "ads_campaign",
        doc: "Campaigns of every ad product (sp/sb/sd list campaigns).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "CampaignID" "BIGINT" "Campaign id",
            "AdProduct" "VARCHAR(32)" "SPONSORED_PRODUCTS, SPONSORED_BRANDS, SPONSORED_DISPLAY",
            "Name" "VARCHAR(255)" "Campaign name",
            "Brand" "VARCHAR(128)" "Brand advertised",
            "TargetingType" "VARCHAR(16)" "MANUAL or AUTO",
            "State" "VARCHAR(16)" "ENABLED, PAUSED",
            "DailyBudget" "DECIMAL(10,2)" "Current daily budget",
            "StartDate" "DATE" "First serving day",
        ],
        indexes: &[Index {
            name: "ads_campaign_SellerID_IDX",
            columns: &["SellerID", "CampaignID"],
        }],
    },
    Table {
        name: "ads_ad_group",
        doc: "Ad groups.",
        columns: seller_scoped![
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group id",
            "Name" "VARCHAR(255)" "Ad group name",
            "DefaultBid" "DECIMAL(10,2)" "Default bid",
            "State" "VARCHAR(16)" "ENABLED, PAUSED",
        ],
        indexes: &[Index {
            name: "ads_ad_group_SellerID_IDX",
            columns: &["SellerID", "AdGroupID"],
        }],
    },
    Table {
        name: "ads_targeting",
        doc: "Keywords and product targets (sp keywords, sd targets).",
        columns: seller_scoped![
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "TargetingID" "BIGINT" "Keyword id or target id",
            "TargetingType" "VARCHAR(16)" "KEYWORD or PRODUCT",
            "Targeting" "VARCHAR(255)" "Keyword text or target expression",
            "MatchType" "VARCHAR(32)" "EXACT, PHRASE, BROAD, or TARGETING_EXPRESSION",
            "Bid" "DECIMAL(10,2)" "Bid",
            "State" "VARCHAR(16)" "ENABLED, PAUSED",
        ],
        indexes: &[Index {
            name: "ads_targeting_SellerID_IDX",
            columns: &["SellerID", "TargetingID"],
        }],
    },
    Table {
        name: "ads_campaign_daily",
        doc: "Daily campaign performance (v3 spCampaigns, sbCampaigns, sdCampaigns). Equals the sum of the ad-group rows.",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "Date" "DATE" "Day",
            "AdProduct" "VARCHAR(32)" "Ad product",
            "CampaignID" "BIGINT" "Campaign",
            "CampaignName" "VARCHAR(255)" "Campaign name",
            "CampaignBudget" "DECIMAL(10,2)" "Daily budget in force that day",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_campaign_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_ad_group_daily",
        doc: "Daily ad-group performance (v3 campaigns reports grouped by adGroup).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "Date" "DATE" "Day",
            "AdProduct" "VARCHAR(32)" "Ad product",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_ad_group_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_targeting_daily",
        doc: "Daily keyword and target performance (v3 spTargeting, sdTargeting).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "Date" "DATE" "Day",
            "AdProduct" "VARCHAR(32)" "Ad product",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "TargetingID" "BIGINT" "Keyword or target",
            "Targeting" "VARCHAR(255)" "Keyword text or expression",
            "MatchType" "VARCHAR(32)" "Match type",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_targeting_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_stream_traffic_hourly",
        doc: "Hourly traffic from Amazon Marketing Stream (`sp-traffic`, `sb-traffic`, `sd-traffic`) by target and placement: each hour's records summed (duplicates dropped by `idempotency_id`). A settled day sums to `ads_targeting_daily`; the sync status names any difference.",
        columns: seller_scoped![
            "Date" "DATE" "Day (marketplace time)",
            "Hour" "INT" "Hour of the day, 0–23 (marketplace time)",
            "AdProduct" "VARCHAR(32)" "SPONSORED_PRODUCTS, SPONSORED_BRANDS, SPONSORED_DISPLAY",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "TargetingID" "BIGINT" "Keyword or target",
            "Placement" "VARCHAR(64)" "Where the ads showed, in the provider's words (`Top of Search on-Amazon` …)",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_stream_traffic_hourly_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_stream_conversion_hourly",
        doc: "Hourly attributed conversions from Amazon Marketing Stream (`sp-conversion`, `sb-conversion`, `sd-conversion`) by target and placement, at the hour of the click: the first records and every restatement's deltas summed. A settled day (past the 14-day attribution window) sums to `ads_targeting_daily`.",
        columns: seller_scoped![
            "Date" "DATE" "Day of the click (marketplace time)",
            "Hour" "INT" "Hour of the click, 0–23",
            "AdProduct" "VARCHAR(32)" "Ad product",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "TargetingID" "BIGINT" "Keyword or target",
            "Placement" "VARCHAR(64)" "Placement",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_stream_conversion_hourly_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_stream_budget_usage",
        doc: "Each campaign's budget use through the day from Amazon Marketing Stream (`budget-usage`): one row per reading.",
        columns: seller_scoped![
            "Date" "DATE" "Day (marketplace time)",
            "Hour" "INT" "Hour of the reading, 0–23",
            "AdProduct" "VARCHAR(32)" "Ad product",
            "CampaignID" "BIGINT" "Campaign",
            "Budget" "DECIMAL(10,2)" "The day's budget",
            "BudgetUsagePercentage" "DECIMAL(8,2)" "Share of the budget spent by the reading, percent",
            "UsageUpdatedAt" "DATETIME" "When the reading was taken (marketplace time)",
        ],
        indexes: &[Index {
            name: "ads_stream_budget_usage_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_search_term_daily",
        doc: "Daily customer search terms by keyword (v3 spSearchTerm).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "Date" "DATE" "Day",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "TargetingID" "BIGINT" "Keyword",
            "Targeting" "VARCHAR(255)" "Keyword text",
            "MatchType" "VARCHAR(32)" "Match type",
            "SearchTerm" "VARCHAR(255)" "What the shopper typed",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_search_term_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "ads_advertised_product_daily",
        doc: "Daily advertised-product performance (v3 spAdvertisedProduct).",
        columns: seller_scoped![
            "ProfileID" "BIGINT" "Profile",
            "Date" "DATE" "Day",
            "CampaignID" "BIGINT" "Campaign",
            "AdGroupID" "BIGINT" "Ad group",
            "AdvertisedASIN" "VARCHAR(10)" "ASIN advertised",
            "AdvertisedSKU" "VARCHAR(64)" "SKU advertised",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "Cost" "DECIMAL(12,2)" "Spend",
            "Purchases7d" "INT" "Attributed purchases, 7-day window",
            "Sales7d" "DECIMAL(12,2)" "Attributed sales, 7-day window",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "ads_advertised_product_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
    Table {
        name: "dsp_advertiser",
        doc: "DSP advertisers. `DspAdvertiserID` is what Reporting v1 takes; `SeatID` is a seat id it refuses.",
        columns: seller_scoped![
            "DspAdvertiserID" "BIGINT" "Numeric DSP advertiser id",
            "SeatID" "VARCHAR(32)" "DSP seat id (an account id, not an advertiser id)",
            "Name" "VARCHAR(128)" "Advertiser name",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[],
    },
    Table {
        name: "dsp_daily",
        doc: "Daily DSP line-item performance. Base metrics include halo; `*Promoted` are promoted-only.",
        columns: seller_scoped![
            "DspAdvertiserID" "BIGINT" "DSP advertiser",
            "Date" "DATE" "Day",
            "OrderID" "BIGINT" "DSP order",
            "LineItemID" "BIGINT" "Line item",
            "LineItemName" "VARCHAR(255)" "Line item name",
            "Impressions" "INT" "Impressions",
            "Clicks" "INT" "Clicks",
            "TotalCost" "DECIMAL(12,2)" "Spend",
            "Purchases" "INT" "Purchases including halo",
            "Sales" "DECIMAL(12,2)" "Sales including halo",
            "PurchasesPromoted" "INT" "Purchases of promoted items only",
            "SalesPromoted" "DECIMAL(12,2)" "Sales of promoted items only",
            "Currency" "VARCHAR(3)" "Currency",
        ],
        indexes: &[Index {
            name: "dsp_daily_SellerID_Date_IDX",
            columns: &["SellerID", "Date"],
        }],
    },
];

/// A table by name.
pub fn table(name: &str) -> &'static Table {
    TABLES
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
}

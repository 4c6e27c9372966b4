//! The starter warehouse's tables (MySQL-flavoured names, as the spec's tables are).

/// DDL for the starter tables and their indexes.
pub const DDL: &str = r#"
CREATE TABLE seller (
    ID INTEGER PRIMARY KEY,
    MarketplaceSellerID VARCHAR(32) NOT NULL,
    Name VARCHAR(128) NOT NULL,
    Marketplace VARCHAR(2) NOT NULL,
    MarketplaceID VARCHAR(16) NOT NULL,
    Currency VARCHAR(3) NOT NULL
);
CREATE INDEX seller_MarketplaceSellerID_IDX ON seller (MarketplaceSellerID);

CREATE TABLE item (
    SellerID INTEGER NOT NULL,
    MarketplaceSellerID VARCHAR(32) NOT NULL,
    ASIN VARCHAR(10) NOT NULL,
    ParentASIN VARCHAR(10),
    SKU VARCHAR(64) NOT NULL,
    Brand VARCHAR(64) NOT NULL,
    Title VARCHAR(255) NOT NULL,
    Price DECIMAL(10,2) NOT NULL
);
CREATE INDEX item_SellerID_IDX ON item (SellerID, ASIN);

CREATE TABLE spapi_sales_and_traffic_by_asin (
    SellerID INTEGER NOT NULL,
    MarketplaceSellerID VARCHAR(32) NOT NULL,
    Date DATE NOT NULL,
    ParentASIN VARCHAR(10),
    ChildASIN VARCHAR(10) NOT NULL,
    OrderedProductSales DECIMAL(12,2) NOT NULL,
    Currency VARCHAR(3) NOT NULL,
    UnitsOrdered INTEGER NOT NULL,
    TotalOrderItems INTEGER NOT NULL,
    Sessions INTEGER NOT NULL,
    PageViews INTEGER NOT NULL,
    BuyBoxPercentage DECIMAL(5,2) NOT NULL
);
CREATE INDEX sales_traffic_SellerID_Date_IDX ON spapi_sales_and_traffic_by_asin (SellerID, Date);

CREATE TABLE ads_sp_campaigns (
    SellerID INTEGER NOT NULL,
    MarketplaceSellerID VARCHAR(32) NOT NULL,
    ProfileID BIGINT NOT NULL,
    Date DATE NOT NULL,
    CampaignID BIGINT NOT NULL,
    CampaignName VARCHAR(255) NOT NULL,
    Impressions INTEGER NOT NULL,
    Clicks INTEGER NOT NULL,
    Cost DECIMAL(12,2) NOT NULL,
    Sales7d DECIMAL(12,2) NOT NULL,
    Purchases7d INTEGER NOT NULL,
    Currency VARCHAR(3) NOT NULL
);
CREATE INDEX ads_sp_campaigns_SellerID_Date_IDX ON ads_sp_campaigns (SellerID, Date);

CREATE TABLE spapi_settlement (
    SellerID INTEGER NOT NULL,
    MarketplaceSellerID VARCHAR(32) NOT NULL,
    `Settlement-id` VARCHAR(32) NOT NULL,
    `Settlement-start-date` DATETIME NOT NULL,
    `Settlement-end-date` DATETIME NOT NULL,
    `Posted-date-time` DATETIME NOT NULL,
    `Transaction-type` VARCHAR(64) NOT NULL,
    `Order-id` VARCHAR(32),
    `Sku` VARCHAR(64),
    `Amount-type` VARCHAR(64) NOT NULL,
    `Amount-description` VARCHAR(64) NOT NULL,
    `Amount` DECIMAL(12,2) NOT NULL,
    `Currency` VARCHAR(3) NOT NULL
);
CREATE INDEX MIX_MAX_Record_IDX ON spapi_settlement (SellerID, `Posted-date-time`);
CREATE INDEX Delete_Settlement_IDX ON spapi_settlement (MarketplaceSellerID, `Settlement-id`);
"#;

//! The datasets a sync fills, as data: where each comes from at the provider, which merchants
//! it applies to, the tables and natural key it writes, how far back the provider lets it be
//! read, how many recent days the provider restates (re-read every run), and how many days
//! one report covers. A new dataset is a row here and its reader in `rows.rs`.

/// Which merchants a dataset applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    /// Selling-partner merchants (`seller.AccountType = 'seller'`).
    Sellers,
    /// Vendors.
    Vendors,
}

/// How the provider gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A selling-side report of this type.
    SpapiReport(&'static str),
}

impl Source {
    /// The source as the status shows it.
    pub fn label(self) -> &'static str {
        match self {
            Source::SpapiReport(t) => t,
        }
    }
}

/// Which side's retail or advertising restatement default applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Retail,
    Advertising,
}

/// One dataset.
#[derive(Debug)]
pub struct Dataset {
    pub name: &'static str,
    pub about: &'static str,
    pub source: Source,
    pub side: Side,
    pub applies: Applies,
    /// The tables it writes, and the natural key of their rows.
    pub tables: &'static [&'static str],
    pub key: &'static [&'static str],
    /// The grain of a row's date.
    pub grain: &'static str,
    /// How many days before today the provider lets it be read.
    pub lookback_days: i64,
    /// Days one report covers.
    pub slice_days: i64,
    /// What the provider cannot give, in words (shown in the status and the docs).
    pub limits: &'static str,
}

/// Every dataset a sync fills.
pub const DATASETS: &[Dataset] = &[Dataset {
    name: "sales_and_traffic",
    about: "Daily sales and traffic for the seller and by child ASIN",
    source: Source::SpapiReport("GET_SALES_AND_TRAFFIC_REPORT"),
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
    limits: "Two years back. ItemPrice is the day's sales over its units; a day without units has none (no document carries the price then).",
}];

/// The dataset called `name`.
pub fn find(name: &str) -> Option<&'static Dataset> {
    DATASETS.iter().find(|d| d.name == name)
}

/// The datasets that apply to a merchant of `account_type` (`seller` or `vendor`).
pub fn for_account(account_type: &str) -> impl Iterator<Item = &'static Dataset> {
    let applies = if account_type == "vendor" {
        Applies::Vendors
    } else {
        Applies::Sellers
    };
    DATASETS.iter().filter(move |d| d.applies == applies)
}

//! Documents into warehouse rows: each dataset's document read with the marketplace's one
//! reader (`pp_marketplace::documents`, money in whole cents) and laid out in the world
//! schema's column order, with the slices of the tables it replaces.

use chrono::NaiveDate;
use pp_core::Error;
use pp_core::Result;
use pp_marketplace::documents::ads::AdsRow;
use pp_marketplace::documents::{cents, selling};
use pp_world::schema::{Table, table};
use pp_world::{Cell, Slice};
use serde_json::Value;

/// A seller as its rows carry it.
#[derive(Debug, Clone)]
pub struct Seller {
    pub id: i64,
    pub token: String,
    pub currency: String,
}

/// The rows of one table's slice.
pub struct Load {
    pub slice: Slice,
    pub rows: Vec<Vec<Cell>>,
}

fn days(
    t: &'static Table,
    seller: &Seller,
    from: NaiveDate,
    to: NaiveDate,
    col: &'static str,
) -> Slice {
    Slice {
        table: t,
        seller_id: seller.id,
        range: Some((col, from.to_string(), to.to_string())),
        part: None,
    }
}

/// The figures both sales-and-traffic tables end with, in their column order.
fn figures(f: &selling::SalesFigures, currency: &str) -> [Cell; 7] {
    [
        Cell::Cents(f.sales),
        Cell::Int(f.units),
        Cell::Int(f.order_items),
        Cell::Int(f.sessions),
        Cell::Int(f.page_views),
        Cell::Cents(f.buy_box),
        Cell::Text(currency.to_owned()),
    ]
}

/// `GET_SALES_AND_TRAFFIC_REPORT` for the one day `day`: the seller's day and its ASINs'.
pub fn sales_and_traffic(seller: &Seller, day: NaiveDate, doc: &Value) -> Result<Vec<Load>> {
    let (by_date, by_asin) = selling::sales_and_traffic(doc)?;
    let t_date = table("spapi_sales_and_traffic_by_date");
    let t_asin = table("spapi_sales_and_traffic_by_asin");
    let head = |d: NaiveDate| -> Vec<Cell> {
        vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(d.to_string()),
        ]
    };
    let date_rows = by_date
        .iter()
        .filter(|d| d.date == day)
        .map(|d| {
            let f = &d.figures;
            let mut r = head(d.date);
            r.extend(figures(f, &seller.currency));
            r
        })
        .collect();
    let asin_rows = by_asin
        .iter()
        .map(|a| {
            let f = &a.figures;
            let mut r = head(day);
            r.extend([
                Cell::Text(a.parent.clone()),
                Cell::Text(a.child.clone()),
                a.sku.clone().into(),
                // the price is what the day's sales say; a day without units names none
                match f.units {
                    0 => Cell::Null,
                    u => Cell::Cents(f.sales / u),
                },
            ]);
            r.extend(figures(f, &seller.currency));
            r
        })
        .collect();
    Ok(vec![
        Load {
            slice: days(t_date, seller, day, day, "Date"),
            rows: date_rows,
        },
        Load {
            slice: days(t_asin, seller, day, day, "Date"),
            rows: asin_rows,
        },
    ])
}

/// Vendor sales and traffic over `from..=to`: one row per day and ASIN either report names,
/// the other report's figures empty where it has none.
pub fn vendor_sales_and_traffic(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    sales: &[selling::VendorSales],
    traffic: &[(NaiveDate, String, i64)],
) -> Load {
    /// A day and ASIN: its sales, its glance views.
    type Day<'a> = (Option<&'a selling::VendorSales>, Option<i64>);
    let mut joined: std::collections::BTreeMap<(NaiveDate, &str), Day<'_>> = Default::default();
    for s in sales {
        joined.entry((s.date, s.asin.as_str())).or_default().0 = Some(s);
    }
    for (d, asin, views) in traffic {
        joined.entry((*d, asin.as_str())).or_default().1 = Some(*views);
    }
    let rows = joined
        .into_iter()
        .filter(|((d, _), _)| (from..=to).contains(d))
        .map(|((d, asin), (s, views))| {
            vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Text(d.to_string()),
                Cell::Text(asin.to_owned()),
                s.map_or(Cell::Null, |s| Cell::Cents(s.ordered_revenue)),
                s.map_or(Cell::Null, |s| Cell::Int(s.ordered_units)),
                s.map_or(Cell::Null, |s| Cell::Cents(s.shipped_revenue)),
                s.map_or(Cell::Null, |s| Cell::Int(s.shipped_units)),
                views.map_or(Cell::Null, Cell::Int),
                Cell::Text(seller.currency.clone()),
            ]
        })
        .collect();
    Load {
        slice: days(table("vendor_sales_and_traffic"), seller, from, to, "Date"),
        rows,
    }
}

/// Brand analytics search query performance over the weeks `from..=to`, from the documents of
/// every ASIN list the slice asked: one row per week and query, the marketplace's totals as
/// any ASIN's row gives them and the brand's part summed over the ASINs.
pub fn search_query_performance(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    parts: &[Vec<selling::QueryWeek>],
) -> Load {
    /// A query's week: the totals and the brand's part (impressions, clicks, cart adds,
    /// purchases), the week's end and the query's volume.
    type Week = ([i64; 4], [i64; 4], NaiveDate, i64);
    let mut weeks: std::collections::BTreeMap<(NaiveDate, &str), Week> = Default::default();
    for q in parts.iter().flatten() {
        let e = weeks
            .entry((q.week_start, q.query.as_str()))
            .or_insert(([0; 4], [0; 4], q.week_end, q.volume));
        let pairs = [q.impressions, q.clicks, q.cart_adds, q.purchases];
        for (k, (total, mine)) in pairs.into_iter().enumerate() {
            e.0[k] = total;
            e.1[k] += mine;
        }
    }
    let rows = weeks
        .into_iter()
        .map(|((start, query), (total, brand, end, volume))| {
            let mut r = vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Text(start.to_string()),
                Cell::Text(end.to_string()),
                Cell::Text(query.to_owned()),
                Cell::Int(volume),
            ];
            r.extend((0..4).flat_map(|k| [Cell::Int(total[k]), Cell::Int(brand[k])]));
            r
        })
        .collect();
    Load {
        slice: days(
            table("spapi_brand_analytics_sqp"),
            seller,
            from,
            to,
            "WeekStart",
        ),
        rows,
    }
}

/// Why an advertising row does not fit its table.
fn unfit(table: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        pp_core::Kind::UpstreamUnavailable,
        format!("the provider's advertising report does not fit {table}: {why}"),
    )
}

/// One dimension of an advertising row, under the first of `names` it has.
fn dim<'a>(r: &'a AdsRow, table: &str, names: &[&str]) -> Result<&'a str> {
    names
        .iter()
        .find_map(|n| r.dims.get(*n))
        .map(String::as_str)
        .ok_or_else(|| unfit(table, format!("a row has no {}", names.join(" or "))))
}

fn id(r: &AdsRow, table: &str, names: &[&str]) -> Result<Cell> {
    let v = dim(r, table, names)?;
    v.parse::<i64>()
        .map(Cell::Int)
        .map_err(|_| unfit(table, format!("{} {v} is not a number", names[0])))
}

/// A Reporting v3 document's rows for `table`, one ad product of one profile over
/// `from..=to`: each of the table's columns taken from the row by name.
pub fn ads_v3(
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

/// The catalog: one row per listed SKU, its item's attributes from catalog items (`items`,
/// by ASIN). A listing whose item the provider did not return is left out.
pub fn catalog(
    seller: &Seller,
    listings: &[std::collections::BTreeMap<String, String>],
    items: &[Value],
) -> Result<Load> {
    let t = table("catalog_item");
    let field = |l: &std::collections::BTreeMap<String, String>, k: &str| -> Result<String> {
        l.get(k)
            .cloned()
            .ok_or_else(|| unreadable("all-listings", format!("a listing has no {k}")))
    };
    let mut rows = Vec::new();
    for l in listings {
        let asin = field(l, "asin1")?;
        let Some(item) = items.iter().find(|i| i["asin"] == asin.as_str()) else {
            continue;
        };
        let summary = &item["summaries"][0];
        let text =
            |v: &Value| -> Cell { v.as_str().map_or(Cell::Null, |s| Cell::Text(s.to_owned())) };
        let parent = item["relationships"][0]["relationships"][0]["parentAsins"][0]
            .as_str()
            .unwrap_or(&asin)
            .to_owned();
        let price = &item["attributes"]["list_price"][0]["value"];
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(asin.clone()),
            Cell::Text(parent),
            Cell::Text(field(l, "seller-sku")?),
            text(&summary["brand"]),
            text(&item["vendorDetails"][0]["brandCode"]),
            text(&item["attributes"]["model_name"][0]["value"]),
            text(&summary["itemName"]),
            match price {
                Value::Null => Cell::Null,
                p => Cell::Cents(pp_marketplace::documents::json_cents("catalog item", p)?),
            },
            text(&summary["releaseDate"]),
        ]);
    }
    Ok(Load {
        slice: Slice {
            table: t,
            seller_id: seller.id,
            range: None,
            part: None,
        },
        rows,
    })
}

fn unreadable(what: &str, why: String) -> Error {
    Error::new(
        pp_core::Kind::UpstreamUnavailable,
        format!("the provider's {what} document does not read: {why}"),
    )
}

/// How many days of sales a day's supply is averaged over.
const SUPPLY_DAYS: i64 = 28;

/// The FBA inventory of `from..=to` from the ledger's days (which start up to 27 days earlier,
/// for the days of supply), with today's inbound units (`inbound`, by SKU, from the
/// unsuppressed inventory report) on the day `inbound_day`.
pub fn fba_inventory(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    ledger: &[selling::LedgerDay],
    inbound: Option<(NaiveDate, &std::collections::BTreeMap<String, i64>)>,
) -> Load {
    use std::collections::BTreeMap;
    let t = table("spapi_fba_inventory");
    let sellable: Vec<&selling::LedgerDay> = ledger
        .iter()
        .filter(|l| l.disposition == "SELLABLE")
        .collect();
    // units sold by SKU and day (shipments are written as removals), and each SKU's first
    // day in the document (the report's start, or the day it first had stock)
    let mut sold: BTreeMap<(&str, NaiveDate), i64> = BTreeMap::new();
    let mut first: BTreeMap<&str, NaiveDate> = BTreeMap::new();
    for l in &sellable {
        *sold.entry((l.sku.as_str(), l.date)).or_default() += -l.customer_shipments;
        let f = first.entry(l.sku.as_str()).or_insert(l.date);
        *f = (*f).min(l.date);
    }
    let mut rows = Vec::new();
    for l in sellable.iter().filter(|l| l.date >= from && l.date <= to) {
        let since = l.date - chrono::Days::new(SUPPLY_DAYS as u64 - 1);
        // a day whose 28 days the ledger does not reach (the reach's first days, a new SKU's
        // first days) has no days of supply
        let known = first.get(l.sku.as_str()).is_some_and(|f| *f <= since);
        let units: i64 = sold
            .range((l.sku.as_str(), since)..=(l.sku.as_str(), l.date))
            .map(|(_, u)| u)
            .sum();
        let supply = match (known, units) {
            (true, u) if u > 0 => {
                let avg = u as f64 / SUPPLY_DAYS as f64;
                Cell::Real((l.ending as f64 / avg * 10.0).round() / 10.0)
            }
            _ => Cell::Null,
        };
        let inbound = match inbound {
            Some((day, by_sku)) if day == l.date => {
                by_sku.get(&l.sku).copied().map_or(Cell::Null, Cell::Int)
            }
            _ => Cell::Null,
        };
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(l.date.to_string()),
            Cell::Text(l.asin.clone()),
            Cell::Text(l.sku.clone()),
            Cell::Int(l.ending),
            inbound,
            Cell::Int(l.in_transit),
            supply,
        ]);
    }
    Load {
        slice: days(t, seller, from, to, "Date"),
        rows,
    }
}

/// Units in inbound shipments by SKU, from the unsuppressed inventory report.
pub fn inbound_units(text: &str) -> Result<std::collections::BTreeMap<String, i64>> {
    pp_marketplace::documents::tsv("unsuppressed inventory", text)?
        .iter()
        .map(|r| {
            let sku = r.get("sku").cloned().unwrap_or_default();
            let n = r
                .get("afn-inbound-working-quantity")
                .and_then(|v| v.trim().parse::<i64>().ok())
                .ok_or_else(|| {
                    unreadable(
                        "unsuppressed inventory",
                        format!("SKU {sku} has no inbound quantity"),
                    )
                })?;
            Ok((sku, n))
        })
        .collect()
}

/// A settlement's lines (the V2 flat file; its first line after the header is the
/// settlement's summary, which has no amount type and is not a line): one slice per
/// settlement, replaced whole. The file's times (`…+00:00`) are written as the world writes
/// them (`…Z`); an empty order id, SKU or quantity is empty.
pub fn settlement(seller: &Seller, text: &str) -> Result<Load> {
    const WHAT: &str = "settlement report";
    let lines = pp_marketplace::documents::tsv(WHAT, text)?;
    let get = |l: &std::collections::BTreeMap<String, String>, k: &str| -> Result<String> {
        l.get(k)
            .cloned()
            .ok_or_else(|| unreadable(WHAT, format!("a line has no {k}")))
    };
    let time = |s: String| match s.strip_suffix("+00:00") {
        Some(base) => format!("{base}Z"),
        None => s,
    };
    let opt = |s: String| {
        if s.is_empty() {
            Cell::Null
        } else {
            Cell::Text(s)
        }
    };
    let summary = lines
        .first()
        .ok_or_else(|| unreadable(WHAT, "it has no summary line".into()))?;
    let sid = get(summary, "settlement-id")?;
    let (start, end, deposit) = (
        time(get(summary, "settlement-start-date")?),
        time(get(summary, "settlement-end-date")?),
        time(get(summary, "deposit-date")?),
    );
    let mut rows = Vec::new();
    for l in lines.iter().skip(1) {
        if get(l, "amount-type")?.is_empty() {
            continue;
        }
        let quantity = match get(l, "quantity-purchased")?.as_str() {
            "" => Cell::Null,
            q => Cell::Int(
                q.parse()
                    .map_err(|_| unreadable(WHAT, format!("'{q}' is not a quantity")))?,
            ),
        };
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(sid.clone()),
            Cell::Text(start.clone()),
            Cell::Text(end.clone()),
            Cell::Text(deposit.clone()),
            Cell::Text(time(get(l, "posted-date-time")?)),
            Cell::Text(get(l, "transaction-type")?),
            opt(get(l, "order-id")?),
            opt(get(l, "sku")?),
            quantity,
            Cell::Text(get(l, "amount-type")?),
            Cell::Text(get(l, "amount-description")?),
            Cell::Cents(cents(WHAT, &get(l, "amount")?)?),
            Cell::Text(get(l, "currency")?),
        ]);
    }
    Ok(Load {
        slice: Slice {
            table: table("spapi_settlement"),
            seller_id: seller.id,
            range: Some(("Settlement-id", sid.clone(), sid)),
            part: None,
        },
        rows,
    })
}

/// A Reporting v1 document's DSP rows over `from..=to`: one per day and line item (the
/// report's ad group), its order the report's campaign.
pub fn dsp_daily(
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

//! What the selling side's notifications say, made from the world: for one seller's day, the
//! orders of that day (`ORDER_CHANGE`), the offers whose price an injected price test or
//! promotion moved (`ANY_OFFER_CHANGED`), the items an injected stock-out emptied or its end
//! refilled (`FBA_INVENTORY_AVAILABILITY_CHANGES`), the items launched
//! (`LISTINGS_ITEM_STATUS_CHANGE`) and each hour's sales per ASIN (`ITEM_SALES_EVENT_CHANGE`); and a finished report (`REPORT_PROCESSING_FINISHED`).
//! Each is the notification's `payload` in the provider's shape and the time it happened.

use chrono::NaiveDate;
use serde_json::{Value, json};

use super::super::orders::{orders_of_day, purchase_time};
use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

/// The notification types the sandbox sends.
pub const TYPES: &[&str] = &[
    "ORDER_CHANGE",
    "ANY_OFFER_CHANGED",
    "FBA_INVENTORY_AVAILABILITY_CHANGES",
    "LISTINGS_ITEM_STATUS_CHANGE",
    "REPORT_PROCESSING_FINISHED",
    "ITEM_SALES_EVENT_CHANGE",
];

/// One notification to send: its type, payload and event time.
#[derive(Debug, Clone)]
pub struct Notice {
    pub kind: &'static str,
    pub payload: Value,
    pub event_time: String,
}

/// An injected event's day field.
fn date_of(e: &Value, k: &str) -> Option<NaiveDate> {
    e[k].as_str()?.parse().ok()
}

/// The seller's notices of `day`, of the types in `kinds`.
pub fn day_notices(
    sim: &Sim,
    seller: &Seller,
    kinds: &[String],
    day: NaiveDate,
) -> Result<Vec<Notice>, SimError> {
    let wants = |k: &str| kinds.iter().any(|x| x == k);
    let mut out = Vec::new();
    if wants("ORDER_CHANGE") {
        for o in orders_of_day(sim, seller, day)? {
            out.push(Notice {
                kind: "ORDER_CHANGE",
                event_time: purchase_time(&o),
                payload: json!({ "OrderChangeNotification": {
                    "NotificationLevel": "OrderLevel",
                    "SellerId": seller.token,
                    "AmazonOrderId": o.id,
                    "OrderChangeType": "OrderStatusChange",
                    "OrderChangeTrigger": { "TimeOfOrderChange": purchase_time(&o), "ChangeReason": "Order placed" },
                    "Summary": {
                        "MarketplaceId": seller.marketplace_id,
                        "OrderStatus": "Unshipped",
                        "PurchaseDate": purchase_time(&o),
                        "DestinationPostalCode": null,
                        "FulfillmentType": "AFN",
                        "OrderType": "StandardOrder",
                        "NumberOfItemsShipped": 0,
                        "NumberOfItemsUnshipped": o.units,
                        "OrderItems": [{
                            "OrderItemId": format!("{}-1", o.id),
                            "SellerSKU": o.sku.clone().unwrap_or_default(),
                            "SupplySourceId": null,
                            "OrderItemStatus": "Unshipped",
                            "Quantity": o.units,
                        }],
                    },
                } }),
            });
        }
    }
    if wants("ITEM_SALES_EVENT_CHANGE") {
        out.extend(item_sales(seller, &orders_of_day(sim, seller, day)?));
    }
    let world = sim.world();
    for e in &world.events {
        if e["seller_id"].as_i64() != Some(seller.id) {
            continue;
        }
        let kind = e["kind"].as_str().unwrap_or_default();
        let (start, after_end) = match kind {
            "launch" => (date_of(e, "date"), None),
            _ => (
                date_of(e, "start"),
                date_of(e, "end").and_then(|d| d.succ_opt()),
            ),
        };
        let starts = start == Some(day);
        if !starts && after_end != Some(day) {
            continue;
        }
        match kind {
            "stock_out" if wants("FBA_INVENTORY_AVAILABILITY_CHANGES") => {
                let asin = e["asin"].as_str().unwrap_or_default();
                out.push(inventory(sim, seller, asin, day, starts)?);
            }
            "price_test" if wants("ANY_OFFER_CHANGED") => {
                let list = e["list_price"].as_f64().unwrap_or(0.0);
                let price = if starts {
                    e["test_price"].as_f64().unwrap_or(list)
                } else {
                    list
                };
                let asin = e["asin"].as_str().unwrap_or_default();
                out.push(offer(seller, asin, day, price, list));
            }
            "promotion" if wants("ANY_OFFER_CHANGED") => {
                let cut = if starts {
                    e["discount_pct"].as_f64().unwrap_or(0.0) / 100.0
                } else {
                    0.0
                };
                let brand = e["brand"].as_str().unwrap_or_default();
                for item in world.rows(
                    // the event names the brand by its slug
                    "SELECT ASIN, ListPrice FROM catalog_item WHERE SellerID = ?1 AND LOWER(REPLACE(Brand, ' ', '-')) = ?2 ORDER BY ASIN",
                    &[&seller.id, &brand],
                )? {
                    let list = item["ListPrice"].as_f64().unwrap_or(0.0);
                    let price = (list * (1.0 - cut) * 100.0).round() / 100.0;
                    let asin = item["ASIN"].as_str().unwrap_or_default();
                    out.push(offer(seller, asin, day, price, list));
                }
            }
            "launch" if wants("LISTINGS_ITEM_STATUS_CHANGE") => {
                let asin = e["asin"].as_str().unwrap_or_default();
                let sku = world
                    .rows(
                        "SELECT SKU FROM catalog_item WHERE SellerID = ?1 AND ASIN = ?2",
                        &[&seller.id, &asin],
                    )?
                    .first()
                    .and_then(|r| r["SKU"].as_str().map(str::to_owned));
                // a vendor's item has no listing of its own
                let Some(sku) = sku else { continue };
                out.push(Notice {
                    kind: "LISTINGS_ITEM_STATUS_CHANGE",
                    event_time: format!("{day}T08:00:00Z"),
                    payload: json!({
                        "SellerId": seller.token,
                        "MarketplaceId": seller.marketplace_id,
                        "Asin": asin,
                        "Sku": sku,
                        "CreatedDate": format!("{day}T08:00:00Z"),
                        "Status": ["BUYABLE", "DISCOVERABLE"],
                    }),
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The offer of `asin` at `price`, changed on `day`.
fn offer(seller: &Seller, asin: &str, day: NaiveDate, price: f64, list: f64) -> Notice {
    let money = |a: f64| json!({ "Amount": a, "CurrencyCode": seller.currency });
    let at = format!("{day}T06:00:00Z");
    Notice {
        kind: "ANY_OFFER_CHANGED",
        event_time: at.clone(),
        payload: json!({ "AnyOfferChangedNotification": {
            "SellerId": seller.token,
            "OfferChangeTrigger": {
                "MarketplaceId": seller.marketplace_id,
                "ASIN": asin,
                "ItemCondition": "new",
                "TimeOfOfferChange": at,
                "OfferChangeType": "Internal",
            },
            "Summary": {
                "NumberOfOffers": [{ "Condition": "new", "FulfillmentChannel": "Amazon", "OfferCount": 1 }],
                "LowestPrices": [{ "Condition": "new", "FulfillmentChannel": "Amazon", "LandedPrice": money(price), "ListingPrice": money(price), "Shipping": money(0.0) }],
                "BuyBoxPrices": [{ "Condition": "new", "LandedPrice": money(price), "ListingPrice": money(price), "Shipping": money(0.0) }],
                "ListPrice": money(list),
                "MinimumAdvertisedPrice": money(0.0),
                "SuggestedLowerPricePlusShipping": money(price),
                "TotalBuyBoxEligibleOffers": 1,
                "SalesRankings": [],
                "NumberOfBuyBoxEligibleOffers": [{ "Condition": "new", "FulfillmentChannel": "Amazon", "OfferCount": 1 }],
                "CompetitivePriceThreshold": money(price),
            },
            "Offers": [{
                "SellerId": seller.token,
                "SubCondition": "new",
                "ListingPrice": money(price),
                "Shipping": money(0.0),
                "IsFulfilledByAmazon": true,
                "IsBuyBoxWinner": true,
                "IsFeaturedMerchant": true,
            }],
        } }),
    }
}

/// The stock of `asin` on `day`: none when a stock-out `starts`, else the day's snapshot.
fn inventory(
    sim: &Sim,
    seller: &Seller,
    asin: &str,
    day: NaiveDate,
    starts: bool,
) -> Result<Notice, SimError> {
    let rows = sim.world().rows(
        "SELECT i.SKU, i.Fulfillable, i.Inbound, i.Reserved, c.Title FROM spapi_fba_inventory i
         LEFT JOIN catalog_item c ON c.SellerID = i.SellerID AND c.ASIN = i.ASIN
         WHERE i.SellerID = ?1 AND i.ASIN = ?2 AND i.Date = ?3",
        &[&seller.id, &asin, &day.to_string()],
    )?;
    let r = rows.first().cloned().unwrap_or_default();
    let n = |k: &str| r.get(k).and_then(Value::as_i64).unwrap_or(0);
    let fulfillable = if starts { 0 } else { n("Fulfillable") };
    let sku = r.get("SKU").and_then(Value::as_str).unwrap_or_default();
    Ok(Notice {
        kind: "FBA_INVENTORY_AVAILABILITY_CHANGES",
        event_time: format!("{day}T00:00:00Z"),
        payload: json!({
            "SellerId": seller.token,
            "FNSKU": format!("X00{}", &asin.get(3..).unwrap_or(asin)),
            "ASIN": asin,
            "SKU": sku,
            "FulfillmentInventoryByMarketplace": [{
                "MarketplaceId": seller.marketplace_id,
                "ItemName": r.get("Title").and_then(Value::as_str).unwrap_or_default(),
                "FulfillmentInventory": {
                    "InboundQuantityBreakdown": { "Working": 0, "Shipped": n("Inbound"), "Receiving": 0 },
                    "Fulfillable": fulfillable,
                    "Unfulfillable": 0,
                    "Researching": 0,
                    "ReservedQuantityBreakdown": { "WarehouseProcessing": 0, "WarehouseTransfer": 0, "PendingCustomerOrder": n("Reserved") },
                    "FutureSupplyBuyable": 0,
                    "PendingCustomerOrderInTransit": 0,
                },
            }],
        }),
    })
}

/// A finished report's notice: its id, type, status and document.
pub fn report_finished(seller_token: &str, report: &Value) -> Notice {
    let mut payload = json!({
        "sellerId": seller_token,
        "accountId": seller_token,
        "reportId": report["reportId"],
        "reportType": report["reportType"],
        "processingStatus": report["processingStatus"],
    });
    if let Some(doc) = report.get("reportDocumentId") {
        payload["reportDocumentId"] = doc.clone();
    }
    Notice {
        kind: "REPORT_PROCESSING_FINISHED",
        event_time: report["processingEndTime"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        payload: json!({ "reportProcessingFinishedNotification": payload }),
    }
}

/// The day's orders as the hours' sales of each ASIN (`ITEM_SALES_EVENT_CHANGE`): one
/// notification per hour with orders, each ASIN's ordered units and revenue in it, told at the
/// hour's end. The hours of a day add up to its orders.
pub fn item_sales(seller: &Seller, orders: &[super::super::orders::Order]) -> Vec<Notice> {
    let mut hours: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<&str, (i64, i64)>,
    > = Default::default();
    for o in orders {
        // `YYYY-MM-DDTHH`: the hour the order was placed in
        let hour = purchase_time(o)[..13].to_owned();
        let cell = hours.entry(hour).or_default().entry(&o.asin).or_default();
        cell.0 += o.units;
        cell.1 += (o.price * o.units as f64 * 100.0).round() as i64;
    }
    hours
        .into_iter()
        .filter_map(|(hour, asins)| {
            let start =
                chrono::NaiveDateTime::parse_from_str(&format!("{hour}:00"), "%Y-%m-%dT%H:%M")
                    .ok()?;
            let end = start + chrono::Duration::hours(1);
            let (start, end) = (
                start.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                end.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            );
            let changes: Vec<Value> = asins
                .into_iter()
                .map(|(asin, (units, cents))| {
                    json!({
                        "accountId": seller.token, "marketplaceId": seller.marketplace_id,
                        "currencyCode": seller.currency, "startTime": start, "endTime": end,
                        "asin": asin, "orderedUnits": units, "orderedRevenue": cents as f64 / 100.0,
                    })
                })
                .collect();
            Some(Notice {
                kind: "ITEM_SALES_EVENT_CHANGE",
                payload: json!({ "itemSalesEventChanges": changes }),
                event_time: end,
            })
        })
        .collect()
}

//! Selling-side notifications: what a message on the tenant's notifications queue says, read
//! strictly (the provider's notification JSON, its top-level keys in PascalCase for the older
//! types and camelCase for the newer), and what the gateway makes of it — an event in the
//! feed and the webhooks for an order, offer, inventory or listing-status change and for an
//! hour's sales per item, and for a
//! finished report the provider's word kept so the sync fetches it without asking
//! (`Ctx::spapi_done` reads it).

use chrono::DateTime;
use pp_core::events::payloads::{Notified, NotifiedData};
use pp_core::events::{self, EventType};
use serde_json::{Map, Value, json};

/// The tenant's one queue all notification types arrive on (its `stream_queues` name).
pub const QUEUE: &str = "notifications";

/// The types the gateway subscribes each seller to.
pub const TYPES: &[&str] = &[
    "ORDER_CHANGE",
    "ANY_OFFER_CHANGED",
    "FBA_INVENTORY_AVAILABILITY_CHANGES",
    "LISTINGS_ITEM_STATUS_CHANGE",
    "REPORT_PROCESSING_FINISHED",
    "ITEM_SALES_EVENT_CHANGE",
];

/// A notification, read.
#[derive(Debug, Clone)]
pub struct Notice {
    pub kind: String,
    pub id: String,
    pub event_time: String,
    pub publish_time: String,
    pub published_ms: i64,
    pub payload: Value,
    pub body: Value,
}

/// What a notice means to the gateway.
#[derive(Debug)]
pub enum Meaning {
    /// An event for the feed.
    Event(Notified),
    /// A report finished: its id, status and document.
    Report {
        report_id: String,
        report_type: String,
        status: String,
        document_id: Option<String>,
    },
}

/// `key` in PascalCase or camelCase.
fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).or_else(|| {
        let mut c = key.chars();
        let first = c.next()?.to_ascii_uppercase();
        v.get(format!("{first}{}", c.as_str()).as_str())
    })
}

fn text(v: &Value, key: &str) -> Result<String, String> {
    field(v, key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| format!("the notification has no {key}"))
}

/// Reads a message body; why not, if it is not a notification.
pub fn read(body: &str) -> Result<Notice, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("the message is not JSON: {e}"))?;
    let meta =
        field(&v, "notificationMetadata").ok_or("the notification has no notificationMetadata")?;
    let publish_time = text(meta, "publishTime")?;
    let published_ms = DateTime::parse_from_rfc3339(&publish_time)
        .map_err(|e| format!("publishTime {publish_time} is not a time: {e}"))?
        .timestamp_millis();
    Ok(Notice {
        kind: text(&v, "notificationType")?,
        id: text(meta, "notificationId")?,
        event_time: text(&v, "eventTime")?,
        publish_time,
        published_ms,
        payload: field(&v, "payload")
            .filter(|p| p.is_object())
            .cloned()
            .ok_or("the notification has no payload object")?,
        body: v,
    })
}

fn put(m: &mut Map<String, Value>, k: &str, v: Option<&Value>) {
    if let Some(v) = v.filter(|v| !v.is_null()) {
        m.insert(k.into(), v.clone());
    }
}

/// What `n` means; why not, when its payload lacks what its type needs (a type the gateway
/// does not subscribe to is refused as well).
pub fn meaning(n: &Notice) -> Result<Meaning, String> {
    let p = &n.payload;
    let (mut subject, mut said) = (Map::new(), Map::new());
    let kind: &'static EventType = match n.kind.as_str() {
        "REPORT_PROCESSING_FINISHED" => {
            let r = field(p, "reportProcessingFinishedNotification")
                .ok_or("the payload has no reportProcessingFinishedNotification")?;
            return Ok(Meaning::Report {
                report_id: text(r, "reportId")?,
                report_type: text(r, "reportType")?,
                status: text(r, "processingStatus")?,
                document_id: field(r, "reportDocumentId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            });
        }
        "ORDER_CHANGE" => {
            let o = field(p, "OrderChangeNotification")
                .ok_or("the payload has no OrderChangeNotification")?;
            let summary = field(o, "Summary").ok_or("the order change has no Summary")?;
            put(&mut subject, "sellerId", field(o, "SellerId"));
            put(
                &mut subject,
                "marketplaceId",
                field(summary, "MarketplaceId"),
            );
            subject.insert("orderId".into(), text(o, "AmazonOrderId")?.into());
            put(&mut said, "changeType", field(o, "OrderChangeType"));
            put(&mut said, "orderStatus", field(summary, "OrderStatus"));
            put(&mut said, "purchaseDate", field(summary, "PurchaseDate"));
            put(
                &mut said,
                "fulfillmentType",
                field(summary, "FulfillmentType"),
            );
            let items: Vec<Value> = field(summary, "OrderItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|i| json!({ "sku": field(i, "SellerSKU"), "quantity": field(i, "Quantity") }))
                .collect();
            said.insert("items".into(), items.into());
            &events::ORDER_CHANGED
        }
        "ANY_OFFER_CHANGED" => {
            let o = field(p, "AnyOfferChangedNotification")
                .ok_or("the payload has no AnyOfferChangedNotification")?;
            let trigger =
                field(o, "OfferChangeTrigger").ok_or("the offer change has no trigger")?;
            put(&mut subject, "sellerId", field(o, "SellerId"));
            put(
                &mut subject,
                "marketplaceId",
                field(trigger, "MarketplaceId"),
            );
            subject.insert("asin".into(), text(trigger, "ASIN")?.into());
            put(&mut said, "changeType", field(trigger, "OfferChangeType"));
            let summary = field(o, "Summary");
            let first_price = |k: &str| {
                summary
                    .and_then(|s| field(s, k))
                    .and_then(|a| a.get(0))
                    .and_then(|b| field(b, "LandedPrice"))
            };
            put(&mut said, "buyBoxPrice", first_price("BuyBoxPrices"));
            put(&mut said, "lowestPrice", first_price("LowestPrices"));
            put(
                &mut said,
                "listPrice",
                summary.and_then(|s| field(s, "ListPrice")),
            );
            &events::OFFER_CHANGED
        }
        "FBA_INVENTORY_AVAILABILITY_CHANGES" => {
            put(&mut subject, "sellerId", field(p, "SellerId"));
            subject.insert("asin".into(), text(p, "ASIN")?.into());
            put(&mut subject, "sku", field(p, "SKU"));
            let by = field(p, "FulfillmentInventoryByMarketplace")
                .and_then(|a| a.get(0))
                .ok_or("the inventory change names no marketplace")?;
            put(&mut subject, "marketplaceId", field(by, "MarketplaceId"));
            let inv = field(by, "FulfillmentInventory")
                .ok_or("the inventory change has no FulfillmentInventory")?;
            said.insert(
                "fulfillable".into(),
                field(inv, "Fulfillable")
                    .and_then(Value::as_i64)
                    .ok_or("the inventory change has no Fulfillable")?
                    .into(),
            );
            put(&mut said, "unfulfillable", field(inv, "Unfulfillable"));
            put(&mut said, "inbound", field(inv, "InboundQuantityBreakdown"));
            put(
                &mut said,
                "reserved",
                field(inv, "ReservedQuantityBreakdown"),
            );
            &events::INVENTORY_CHANGED
        }
        "LISTINGS_ITEM_STATUS_CHANGE" => {
            put(&mut subject, "sellerId", field(p, "SellerId"));
            put(&mut subject, "marketplaceId", field(p, "MarketplaceId"));
            put(&mut subject, "asin", field(p, "Asin"));
            subject.insert("sku".into(), text(p, "Sku")?.into());
            said.insert(
                "status".into(),
                field(p, "Status")
                    .filter(|s| s.is_array())
                    .cloned()
                    .ok_or("the listing status change has no Status list")?,
            );
            &events::LISTING_STATUS_CHANGED
        }
        "ITEM_SALES_EVENT_CHANGE" => {
            let changes = field(p, "itemSalesEventChanges")
                .and_then(Value::as_array)
                .filter(|a| !a.is_empty())
                .ok_or("the item sales change has no itemSalesEventChanges")?;
            let first = &changes[0];
            put(&mut subject, "sellerId", field(first, "accountId"));
            put(&mut subject, "marketplaceId", field(first, "marketplaceId"));
            subject.insert("hour".into(), text(first, "startTime")?.into());
            put(&mut said, "endTime", field(first, "endTime"));
            put(&mut said, "currency", field(first, "currencyCode"));
            let mut items = Vec::new();
            for c in changes {
                items.push(json!({
                    "asin": text(c, "asin")?,
                    "orderedUnits": field(c, "orderedUnits").and_then(Value::as_i64).ok_or("an item sales change has no orderedUnits")?,
                    "orderedRevenue": field(c, "orderedRevenue").and_then(Value::as_f64).ok_or("an item sales change has no orderedRevenue")?,
                }));
            }
            said.insert("items".into(), items.into());
            &events::ITEM_SALES_CHANGED
        }
        other => return Err(format!("the gateway does not subscribe to {other}")),
    };
    Ok(Meaning::Event(Notified {
        kind,
        subject,
        data: NotifiedData {
            notification_id: n.id.clone(),
            event_time: n.event_time.clone(),
            publish_time: n.publish_time.clone(),
            said,
        },
    }))
}

/// The day a notice counts in (its event time's, else its publication's).
pub fn day(n: &Notice) -> String {
    n.event_time
        .get(..10)
        .filter(|d| d.parse::<chrono::NaiveDate>().is_ok())
        .unwrap_or_else(|| n.publish_time.get(..10).unwrap_or_default())
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_read_and_a_payload_missing_its_ids_is_refused() {
        let pascal = json!({
            "NotificationVersion": "1.0", "NotificationType": "LISTINGS_ITEM_STATUS_CHANGE",
            "PayloadVersion": "1.0", "EventTime": "2026-11-20T08:00:00Z",
            "Payload": { "SellerId": "A1", "MarketplaceId": "ATVPDKIKX0DER", "Asin": "B0X", "Sku": "S-1", "Status": ["BUYABLE"] },
            "NotificationMetadata": { "ApplicationId": "app", "SubscriptionId": "s", "PublishTime": "2026-11-20T08:00:01Z", "NotificationId": "n-1" },
        });
        let n = read(&pascal.to_string()).unwrap();
        assert_eq!((n.id.as_str(), day(&n).as_str()), ("n-1", "2026-11-20"));
        let Meaning::Event(e) = meaning(&n).unwrap() else {
            panic!("an event")
        };
        assert_eq!(e.kind.name, "listing.status_changed");
        assert_eq!(e.subject["sku"], "S-1");
        let camel = json!({
            "notificationVersion": "1.0", "notificationType": "REPORT_PROCESSING_FINISHED",
            "payloadVersion": "2020-09-04", "eventTime": "2026-11-20T08:00:00Z",
            "payload": { "reportProcessingFinishedNotification": { "accountId": "A1", "reportId": "9", "reportType": "T", "processingStatus": "DONE", "reportDocumentId": "d" } },
            "notificationMetadata": { "applicationId": "app", "subscriptionId": "s", "publishTime": "2026-11-20T08:00:01Z", "notificationId": "n-2" },
        });
        let n = read(&camel.to_string()).unwrap();
        assert!(
            matches!(meaning(&n).unwrap(), Meaning::Report { report_id, document_id: Some(_), .. } if report_id == "9")
        );
        let sales = json!({
            "notificationVersion": "2020-09-04", "notificationType": "ITEM_SALES_EVENT_CHANGE",
            "payloadVersion": "2020-09-04", "eventTime": "2026-11-20T16:00:00Z",
            "payload": { "itemSalesEventChanges": [
                { "accountId": "A1", "marketplaceId": "ATVPDKIKX0DER", "currencyCode": "USD", "startTime": "2026-11-20T15:00:00Z", "endTime": "2026-11-20T16:00:00Z", "asin": "B01", "orderedUnits": 9, "orderedRevenue": 80.91 },
                { "accountId": "A1", "marketplaceId": "ATVPDKIKX0DER", "currencyCode": "USD", "startTime": "2026-11-20T15:00:00Z", "endTime": "2026-11-20T16:00:00Z", "asin": "B02", "orderedUnits": 5 },
            ] },
            "notificationMetadata": { "applicationId": "app", "subscriptionId": "s", "publishTime": "2026-11-20T16:45:00Z", "notificationId": "n-3" },
        });
        // an item without its revenue is refused; with it, each item's hour is read
        let why = meaning(&read(&sales.to_string()).unwrap()).unwrap_err();
        assert!(why.contains("orderedRevenue"), "{why}");
        let mut whole = sales.clone();
        whole["payload"]["itemSalesEventChanges"][1]["orderedRevenue"] = json!(527.6);
        let Meaning::Event(e) = meaning(&read(&whole.to_string()).unwrap()).unwrap() else {
            panic!("an event")
        };
        assert_eq!(e.kind.name, "item.sales_changed");
        assert_eq!(e.subject["hour"], "2026-11-20T15:00:00Z");
        assert_eq!(e.data.said["items"][1]["orderedUnits"], 5);
        let mut broken = pascal.clone();
        broken["Payload"]["Sku"] = Value::Null;
        let why = meaning(&read(&broken.to_string()).unwrap()).unwrap_err();
        assert!(why.contains("Sku"), "{why}");
        assert!(read("not json").unwrap_err().contains("not JSON"));
        let mut no_id = pascal;
        no_id["NotificationMetadata"]
            .as_object_mut()
            .unwrap()
            .remove("NotificationId");
        assert!(
            read(&no_id.to_string())
                .unwrap_err()
                .contains("notificationId")
        );
    }
}

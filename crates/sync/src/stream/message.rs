//! What a Marketing Stream message says: an SNS envelope (`SubscriptionConfirmation` or
//! `Notification`) whose `Message` is one record of a dataset, read strictly — a message that
//! is not one of these is rejected with the reason, never guessed at. A record's place in time
//! is its local hour (`time_window_start`, or for `budget-usage` `usage_updated_timestamp`,
//! both ISO 8601 with the marketplace's offset): the day and hour its rows count in.

use chrono::{DateTime, FixedOffset, NaiveDate, Timelike};
use serde_json::Value;

/// The datasets the consumer reads, with the ad product each covers (`None`: every product).
pub const DATASETS: &[(&str, Option<&str>)] = &[
    ("sp-traffic", Some("SPONSORED_PRODUCTS")),
    ("sp-conversion", Some("SPONSORED_PRODUCTS")),
    ("sb-traffic", Some("SPONSORED_BRANDS")),
    ("sb-conversion", Some("SPONSORED_BRANDS")),
    ("sd-traffic", Some("SPONSORED_DISPLAY")),
    ("sd-conversion", Some("SPONSORED_DISPLAY")),
    ("budget-usage", None),
];

/// A message, read.
#[derive(Debug)]
pub enum Message {
    /// SNS asks the subscriber to visit `subscribe_url`.
    Confirmation {
        topic: String,
        subscribe_url: String,
    },
    /// A record of the stream.
    Record(Record),
}

/// One record and where it counts.
#[derive(Debug, Clone)]
pub struct Record {
    pub dataset: String,
    pub idempotency_id: String,
    pub advertiser: String,
    pub marketplace_id: String,
    /// The local day and hour it counts in.
    pub day: NaiveDate,
    pub hour: u32,
    /// When SNS published it (ms).
    pub published_ms: i64,
    pub body: Value,
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("the message has no {key}"))
}

/// Reads a message body; why not, if it is not a stream message.
pub fn read(body: &str) -> Result<Message, String> {
    let env: Value =
        serde_json::from_str(body).map_err(|e| format!("the message is not JSON: {e}"))?;
    match text(&env, "Type")? {
        "SubscriptionConfirmation" => Ok(Message::Confirmation {
            topic: text(&env, "TopicArn")?.to_owned(),
            subscribe_url: text(&env, "SubscribeURL")?.to_owned(),
        }),
        "Notification" => {
            let published = DateTime::parse_from_rfc3339(text(&env, "Timestamp")?)
                .map_err(|e| format!("the notification's Timestamp is not ISO 8601: {e}"))?;
            let body: Value = serde_json::from_str(text(&env, "Message")?)
                .map_err(|e| format!("the notification's Message is not JSON: {e}"))?;
            record(body, published.timestamp_millis()).map(Message::Record)
        }
        other => Err(format!(
            "an SNS message of type {other} is not a stream message"
        )),
    }
}

/// The local day and hour a record of `dataset` counts in.
pub fn when(dataset: &str, body: &Value) -> Result<(NaiveDate, u32), String> {
    let at_key = if dataset == "budget-usage" {
        "usage_updated_timestamp"
    } else {
        "time_window_start"
    };
    let at: DateTime<FixedOffset> = DateTime::parse_from_rfc3339(text(body, at_key)?)
        .map_err(|e| format!("{at_key} is not ISO 8601: {e}"))?;
    let local = at.naive_local();
    Ok((local.date(), local.hour()))
}

fn record(body: Value, published_ms: i64) -> Result<Record, String> {
    let dataset = text(&body, "dataset_id")?.to_owned();
    if !DATASETS.iter().any(|d| d.0 == dataset) {
        return Err(format!("dataset {dataset} is not one the gateway reads"));
    }
    let (day, hour) = when(&dataset, &body)?;
    Ok(Record {
        idempotency_id: text(&body, "idempotency_id")?.to_owned(),
        advertiser: text(&body, "advertiser_id")?.to_owned(),
        marketplace_id: text(&body, "marketplace_id")?.to_owned(),
        day,
        hour,
        published_ms,
        dataset,
        body,
    })
}

/// An integer field (absent is refused).
pub fn int(v: &Value, key: &str) -> Result<i64, String> {
    v.get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("the record has no whole number {key}"))
}

/// A money field in cents (two decimals, as the provider writes them).
pub fn cents(v: &Value, key: &str) -> Result<i64, String> {
    v.get(key)
        .and_then(Value::as_f64)
        .map(|x| (x * 100.0).round() as i64)
        .ok_or_else(|| format!("the record has no number {key}"))
}

/// An id field, written as text or a number.
pub fn id(v: &Value, key: &str) -> Result<i64, String> {
    match v.get(key) {
        Some(Value::String(s)) => s.parse().map_err(|_| format!("{key} is not a number")),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| format!("{key} is not an integer")),
        _ => Err(format!("the record has no {key}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_counts_in_its_local_hour_and_anything_else_is_refused_with_why() {
        let rec = serde_json::json!({
            "idempotency_id": "x", "dataset_id": "sp-traffic", "advertiser_id": "A1",
            "marketplace_id": "ATVPDKIKX0DER", "time_window_start": "2026-11-20T23:00:00-08:00",
        });
        let env = serde_json::json!({
            "Type": "Notification", "Timestamp": "2026-11-21T08:05:00.000Z",
            "Message": rec.to_string(),
        });
        let Ok(Message::Record(r)) = read(&env.to_string()) else {
            panic!("a record");
        };
        assert_eq!((r.day.to_string(), r.hour), ("2026-11-20".to_owned(), 23));
        assert!(read("{").unwrap_err().contains("not JSON"));
        assert!(
            read(r#"{"Type":"Notification","Timestamp":"2026-11-21T08:05:00Z","Message":"{}"}"#)
                .unwrap_err()
                .contains("dataset_id")
        );
        assert!(read(r#"{"Type":"UnsubscribeConfirmation"}"#).is_err());
    }
}

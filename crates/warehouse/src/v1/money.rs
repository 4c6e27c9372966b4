//! Money and ratios as `/v1` answers carry them: amounts rounded to cents beside their
//! currency, ratios rounded to two places and null when undefined.

use serde_json::{Value, json};

/// Rounds to cents.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A money field: amount and currency, always together.
pub fn money(amount: f64, currency: &str) -> Value {
    json!({ "amount": round2(amount), "currency": currency })
}

/// `num / den`, times `scale`, rounded to two places; null when `den` is zero.
pub fn ratio(num: f64, den: f64, scale: f64) -> Value {
    if den == 0.0 {
        Value::Null
    } else {
        json!(round2(num / den * scale))
    }
}

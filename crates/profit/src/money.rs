//! Amounts as the profit data holds them: money in whole cents read from decimal text or a
//! JSON number (at most two decimals, never rounded), euro rates as millionths, currency
//! codes, and the one conversion rule every answer uses.

use pp_core::{Error, Kind, Result};

/// The most a cost amount may be (cents): ten million a unit is a typing error.
pub const MAX_CENTS: i64 = 1_000_000_000;

fn bad(what: &str, msg: String) -> Error {
    Error::new(Kind::BadParams, format!("{what}: {msg}"))
}

/// Decimal text (`12`, `12.5`, `12.34`, no sign, no exponent) as a count of `10^-scale`
/// units; more decimals than `scale` is refused, never rounded.
fn scaled(what: &str, text: &str, scale: u32) -> Result<i64> {
    let t = text.trim();
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) || t.ends_with('.') {
        return Err(bad(
            what,
            format!("'{text}' is not a plain decimal number (like 12.34)"),
        ));
    }
    if frac.len() > scale as usize {
        return Err(bad(
            what,
            format!("'{text}' has more than {scale} decimals"),
        ));
    }
    let frac = format!("{frac:0<width$}", width = scale as usize);
    whole
        .parse::<i64>()
        .ok()
        .and_then(|w| w.checked_mul(10_i64.pow(scale)))
        .and_then(|w| w.checked_add(frac.parse::<i64>().unwrap_or(0)))
        .ok_or_else(|| bad(what, format!("'{text}' is too large")))
}

/// A money amount (`12.34`) in cents: not negative, at most [`MAX_CENTS`].
pub fn cents(what: &str, text: &str) -> Result<i64> {
    let c = scaled(what, text, 2)?;
    if c > MAX_CENTS {
        return Err(bad(
            what,
            format!("{text} is more than {}", MAX_CENTS / 100),
        ));
    }
    Ok(c)
}

/// A JSON number or numeric text as [`cents`] (a number is read by its decimal text, so
/// `12.34` is 1234 cents exactly).
pub fn cents_of(what: &str, v: &serde_json::Value) -> Result<i64> {
    match v {
        serde_json::Value::Number(n) => cents(what, &n.to_string()),
        serde_json::Value::String(s) => cents(what, s),
        _ => Err(bad(what, "must be a number like 12.34".into())),
    }
}

/// A euro rate (`1.0813`: units of the currency one euro buys) in millionths; positive.
pub fn rate_e6(what: &str, text: &str) -> Result<i64> {
    let r = scaled(what, text, 6)?;
    if r == 0 {
        return Err(bad(what, "a rate must be more than zero".into()));
    }
    Ok(r)
}

/// Millionths as decimal text with the decimals it needs (at least two: `1.0813`, `17.00`).
pub fn rate_text(e6: i64) -> String {
    let s = format!("{}.{:06}", e6 / 1_000_000, e6 % 1_000_000);
    let trimmed = s.trim_end_matches('0');
    let decimals = trimmed.len() - trimmed.find('.').unwrap_or(trimmed.len()) - 1;
    if decimals < 2 {
        format!("{}.{:02}", e6 / 1_000_000, (e6 % 1_000_000) / 10_000)
    } else {
        trimmed.to_owned()
    }
}

/// Cents as a number in major units (`1234` → `12.34`).
pub fn major(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// A currency code: three capital letters (ISO 4217's form).
pub fn currency(what: &str, code: &str) -> Result<String> {
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(code.to_owned())
    } else {
        Err(bad(
            what,
            format!("'{code}' is not a currency code (three capital letters, like USD)"),
        ))
    }
}

/// The one conversion rule: `cents` of a currency whose euro rate is `from_e6` in the
/// currency whose euro rate is `to_e6` (both of the amount's posted day), as
/// `cents × to ÷ from` rounded half away from zero, per amount.
pub fn convert(cents: i64, from_e6: i64, to_e6: i64) -> i64 {
    let n = i128::from(cents) * i128::from(to_e6);
    let d = i128::from(from_e6);
    let q = n / d;
    let r = n % d;
    let q = if 2 * r.abs() >= d { q + n.signum() } else { q };
    q as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_read_exactly_or_refused() {
        assert_eq!(cents("c", "12.34").unwrap(), 1234);
        assert_eq!(cents("c", "12.5").unwrap(), 1250);
        assert_eq!(cents("c", "0").unwrap(), 0);
        for bad in ["12.345", "-1", "1e3", "", "12.", ".5", "abc", "99999999999"] {
            assert!(cents("c", bad).is_err(), "{bad}");
        }
        assert_eq!(cents_of("c", &serde_json::json!(19.99)).unwrap(), 1999);
        assert_eq!(rate_e6("r", "1.0813").unwrap(), 1_081_300);
        assert!(rate_e6("r", "0").is_err());
        assert_eq!(rate_text(1_081_300), "1.0813");
        assert_eq!(rate_text(17_000_000), "17.00");
    }

    #[test]
    fn conversion_rounds_half_away_from_zero() {
        // 1.00 USD at 1.10 USD/EUR into CAD at 1.50 CAD/EUR: 136.3636… cents
        assert_eq!(convert(100, 1_100_000, 1_500_000), 136);
        assert_eq!(convert(1, 2_000_000, 1_000_000), 1); // 0.5 → 1
        assert_eq!(convert(-1, 2_000_000, 1_000_000), -1); // -0.5 → -1
        assert_eq!(convert(-3, 2_000_000, 1_000_000), -2); // -1.5 → -2
        assert_eq!(convert(500, 1_000_000, 1_000_000), 500);
    }
}

//! Server values as the JSON the embedded engine answers with, so one query reads the same on
//! every engine: a decimal that is a whole number is an integer (as SQLite's numeric affinity
//! stores it), any other decimal a number; dates are `YYYY-MM-DD`, date-times
//! `YYYY-MM-DDTHH:MM:SSZ` (the warehouse's times are UTC); bytes are base64.

use base64::Engine as _;
use chrono::{NaiveDate, NaiveDateTime};
use pp_core::{Error, Result};
use serde_json::Value;

/// A decimal written as text (`-12.50`, `300.00`) as a JSON number.
pub fn decimal(text: &str) -> Result<Value> {
    let bad = || Error::internal(format!("warehouse decimal '{text}' does not parse"));
    let whole = match text.split_once('.') {
        None => Some(text),
        Some((int, frac)) if frac.bytes().all(|b| b == b'0') => Some(int),
        Some(_) => None,
    };
    if let Some(int) = whole
        && let Ok(i) = int.parse::<i64>()
    {
        return Ok(i.into());
    }
    let f: f64 = text.parse().map_err(|_| bad())?;
    serde_json::Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(bad)
}

/// PostgreSQL's binary `NUMERIC` (base-10000 digits with a weight, a sign and a display
/// scale) as decimal text; `None` for NaN and the infinities.
pub fn pg_numeric(b: &[u8]) -> Result<Option<String>> {
    let short = || Error::internal("warehouse numeric value is cut short");
    let word = |i: usize| -> Result<u16> {
        b.get(i * 2..i * 2 + 2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]))
            .ok_or_else(short)
    };
    let (ndigits, weight, sign, dscale) = (
        word(0)? as usize,
        word(1)? as i16,
        word(2)?,
        word(3)? as usize,
    );
    if sign != 0 && sign != 0x4000 {
        return Ok(None);
    }
    let digits = (0..ndigits)
        .map(|i| word(4 + i))
        .collect::<Result<Vec<u16>>>()?;
    let digit = |pos: i32| -> u16 {
        usize::try_from(pos)
            .ok()
            .and_then(|p| digits.get(p).copied())
            .unwrap_or(0)
    };
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    if weight < 0 {
        out.push('0');
    } else {
        for pos in 0..=i32::from(weight) {
            if pos == 0 {
                out.push_str(&digit(pos).to_string());
            } else {
                out.push_str(&format!("{:04}", digit(pos)));
            }
        }
    }
    if dscale > 0 {
        let mut frac = String::new();
        let mut pos = i32::from(weight) + 1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(pos)));
            pos += 1;
        }
        frac.truncate(dscale);
        out.push('.');
        out.push_str(&frac);
    }
    Ok(Some(out))
}

pub fn date(d: NaiveDate) -> Value {
    d.format("%Y-%m-%d").to_string().into()
}

pub fn datetime(t: NaiveDateTime) -> Value {
    t.format("%Y-%m-%dT%H:%M:%S%.fZ").to_string().into()
}

fn pg_epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default()
}

fn cut(what: &str) -> Error {
    Error::internal(format!("warehouse {what} value is cut short"))
}

/// PostgreSQL's binary `DATE`: days since 2000-01-01.
pub fn pg_date(b: &[u8]) -> Result<Value> {
    let days = i32::from_be_bytes(b.try_into().map_err(|_| cut("date"))?);
    let d = pg_epoch().date() + chrono::Duration::days(i64::from(days));
    Ok(date(d))
}

/// PostgreSQL's binary `TIMESTAMP` and `TIMESTAMPTZ`: microseconds since 2000-01-01 (UTC).
pub fn pg_timestamp(b: &[u8]) -> Result<Value> {
    let micros = i64::from_be_bytes(b.try_into().map_err(|_| cut("timestamp"))?);
    Ok(datetime(
        pg_epoch() + chrono::Duration::microseconds(micros),
    ))
}

/// MySQL's binary `DATE`, `DATETIME` and `TIMESTAMP`: a length, then year (2 bytes), month,
/// day, and optionally hour, minute, second and microseconds (4 bytes).
pub fn mysql_datetime(b: &[u8], with_time: bool) -> Result<Value> {
    let bad = || cut("date");
    let body = b.get(1..).ok_or_else(bad)?;
    if body.is_empty() {
        return Ok(Value::Null); // the zero date
    }
    let byte = |i: usize| body.get(i).copied().map(u32::from).unwrap_or(0);
    let year = i32::from(u16::from_le_bytes([body[0], *body.get(1).ok_or_else(bad)?]));
    let d = NaiveDate::from_ymd_opt(year, byte(2), byte(3)).ok_or_else(bad)?;
    if !with_time {
        return Ok(date(d));
    }
    let micros = body
        .get(7..11)
        .map_or(0, |m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
    let t = d
        .and_hms_micro_opt(byte(4), byte(5), byte(6), micros)
        .ok_or_else(bad)?;
    Ok(datetime(t))
}

pub fn bytes(b: &[u8]) -> Value {
    base64::engine::general_purpose::STANDARD.encode(b).into()
}

pub fn real(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// The refusal of a column whose type the gateway does not render.
pub fn unsupported(column: &str, ty: &str) -> Error {
    Error::new(
        pp_core::Kind::SqlError,
        format!("column {column} has type {ty}, which the gateway does not render"),
    )
    .with_fix(format!(
        "Cast it to text: CAST({column} AS CHAR) on MySQL, {column}::text on PostgreSQL."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decimals_read_like_sqlite_numbers() {
        assert_eq!(decimal("300.00").unwrap(), json!(300));
        assert_eq!(decimal("-12.50").unwrap(), json!(-12.5));
        assert_eq!(decimal("7").unwrap(), json!(7));
        assert_eq!(decimal("0.05").unwrap(), json!(0.05));
        assert!(decimal("x").is_err());
    }

    #[test]
    fn dates_read_as_the_warehouse_writes_them() {
        assert_eq!(
            pg_date(&(-1i32).to_be_bytes()).unwrap(),
            json!("1999-12-31")
        );
        assert_eq!(
            pg_timestamp(&(86_400_000_000i64 + 1_500_000).to_be_bytes()).unwrap(),
            json!("2000-01-02T00:00:01.500Z")
        );
        assert_eq!(
            mysql_datetime(&[4, 0xEA, 0x07, 11, 24], false).unwrap(),
            json!("2026-11-24")
        );
        assert_eq!(
            mysql_datetime(&[7, 0xEA, 0x07, 11, 24, 13, 5, 9], true).unwrap(),
            json!("2026-11-24T13:05:09Z")
        );
    }

    #[test]
    fn postgres_numerics() {
        // 12345.678 with scale 3: digits 1, 2345, 6780; weight 1.
        let mut b = Vec::new();
        for w in [3u16, 1, 0, 3, 1, 2345, 6780] {
            b.extend(w.to_be_bytes());
        }
        assert_eq!(pg_numeric(&b).unwrap().unwrap(), "12345.678");
        // -0.05 with scale 2: digit 500 at weight -1.
        let mut b = Vec::new();
        for w in [1u16, 0xFFFF, 0x4000, 2, 500] {
            b.extend(w.to_be_bytes());
        }
        assert_eq!(pg_numeric(&b).unwrap().unwrap(), "-0.05");
        // 300.00: digit 300, weight 0, scale 2.
        let mut b = Vec::new();
        for w in [1u16, 0, 0, 2, 300] {
            b.extend(w.to_be_bytes());
        }
        assert_eq!(pg_numeric(&b).unwrap().unwrap(), "300.00");
        // zero: no digits.
        let mut b = Vec::new();
        for w in [0u16, 0, 0, 0] {
            b.extend(w.to_be_bytes());
        }
        assert_eq!(pg_numeric(&b).unwrap().unwrap(), "0");
    }
}

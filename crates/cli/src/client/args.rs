//! What several commands read alike: `NAME=VALUE` pairs (`--param`, `--filter`), sent as a
//! query string or as a JSON object, and a value put into a URL path.

use serde_json::{Map, Value};

use super::{Failure, exit};

/// `raw` split into names and values; `flag` names the flag in the refusal.
pub fn pairs<'a>(flag: &str, raw: &'a [String]) -> Result<Vec<(&'a str, &'a str)>, Failure> {
    raw.iter()
        .map(|p| {
            p.split_once('=').ok_or_else(|| {
                Failure::local(exit::USAGE, format!("{flag} '{p}' is not NAME=VALUE"))
            })
        })
        .collect()
}

/// `path` with the pairs as its query string (none: `path` alone).
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        q.append_pair(k, v);
    }
    let q = q.finish();
    if q.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{q}")
    }
}

/// The pairs as a JSON object: a value that reads as JSON (a number, `true`, an array …) is
/// sent as that, anything else as text.
pub fn json_object(flag: &str, raw: &[String]) -> Result<Map<String, Value>, Failure> {
    Ok(pairs(flag, raw)?
        .into_iter()
        .map(|(k, v)| {
            let value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned()));
            (k.to_owned(), value)
        })
        .collect())
}

/// `s` made safe as one URL path segment.
pub fn segment(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

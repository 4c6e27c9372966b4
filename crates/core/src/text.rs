//! Checks for free-text request fields shared by every service.

use serde_json::Value;

use crate::error::{Error, Kind, Result};

/// Characters that make one line of text read differently from what it holds: line and
/// paragraph separators, and the bidirectional embeddings, overrides and isolates.
fn disguising(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Checks that `s` is one line of plain text: no line breaks or other control characters
/// (NUL included), no line or paragraph separators, no bidirectional overrides.
pub fn check_one_line(name: &str, s: &str) -> Result<()> {
    if s.contains(['\n', '\r']) {
        return Err(Error::new(
            Kind::BadParams,
            format!("{name} must be one line"),
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_control() || disguising(*c)) {
        return Err(Error::new(
            Kind::BadParams,
            format!(
                "{name} holds U+{:04X}, a character that is not allowed here (control characters, line separators and bidirectional overrides are refused)",
                c as u32
            ),
        ));
    }
    Ok(())
}

/// An optional one-line text field of at most `max` characters; any break is `bad_params`
/// naming the field.
pub fn one_line(name: &str, v: Option<&Value>, max: usize) -> Result<Option<String>> {
    let bad = |msg: String| Err(Error::new(Kind::BadParams, msg));
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if let Err(e) = check_one_line(name, s) => Err(e),
        Some(Value::String(s)) if s.chars().count() > max => {
            bad(format!("{name} is longer than {max} characters"))
        }
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => bad(format!("{name} must be a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use serde_json::json;

    #[test]
    fn one_line_rules() {
        assert_eq!(
            one_line("note", Some(&json!("ok")), 5).unwrap().as_deref(),
            Some("ok")
        );
        assert_eq!(one_line("note", None, 5).unwrap(), None);
        for (v, words) in [
            (json!("a\nb"), "one line"),
            (json!("a\u{0}b"), "U+0000"),
            (json!("a\u{202E}b"), "U+202E"),
            (json!("a\u{2028}b"), "U+2028"),
            (json!("toolong"), "longer than 5"),
            (json!(3), "a string"),
        ] {
            assert!(
                one_line("note", Some(&v), 5)
                    .unwrap_err()
                    .message()
                    .contains(words)
            );
        }
    }
}

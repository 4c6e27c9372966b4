//! Checks for free-text request fields shared by every service.

use serde_json::Value;

use crate::error::{Error, Kind, Result};

/// An optional one-line text field of at most `max` characters; any break is `bad_params`
/// naming the field.
pub fn one_line(name: &str, v: Option<&Value>, max: usize) -> Result<Option<String>> {
    let bad = |msg: String| Err(Error::new(Kind::BadParams, msg));
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.contains(['\n', '\r']) => {
            bad(format!("{name} must be one line"))
        }
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

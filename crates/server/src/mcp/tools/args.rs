//! A tool call's `arguments`, read with the same clear errors the REST routes give.

use pp_core::{Error, Result};
use serde_json::{Map, Value};

/// The arguments of one call.
pub struct Args(Map<String, Value>);

impl Args {
    pub fn new(m: Map<String, Value>) -> Self {
        Self(m)
    }

    /// Refuses any argument not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<()> {
        match self.0.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(Error::invalid_request(format!(
                "'{k}' is not an argument of this tool (it takes {})",
                allowed.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// An optional string argument.
    pub fn str(&self, k: &str) -> Result<Option<&str>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Error::invalid_request(format!("{k} must be a string"))),
        }
    }

    /// A required string argument.
    pub fn required(&self, k: &str) -> Result<&str> {
        self.str(k)?
            .ok_or_else(|| Error::invalid_request(format!("{k} is required")))
    }

    /// An optional whole number in `min..=max`.
    pub fn int(&self, k: &str, min: u64, max: u64) -> Result<Option<u64>> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(Error::invalid_request(format!(
                    "{k} must be a whole number from {min} to {max}"
                ))),
            },
        }
    }

    /// The raw map.
    pub fn map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The arguments as a query string, for tools whose REST twin reads one (scalars only).
    pub fn to_query(&self) -> Result<String> {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.0 {
            let text = match v {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => {
                    return Err(Error::invalid_request(format!(
                        "{k} must be a string, number or boolean"
                    )));
                }
            };
            q.append_pair(k, &text);
        }
        Ok(q.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Args {
        Args::new(v.as_object().unwrap().clone())
    }

    #[test]
    fn reads_and_refuses_with_the_arguments_name() {
        let a = args(json!({"sql": "select 1", "maxRows": 5, "flag": true}));
        assert_eq!(a.required("sql").unwrap(), "select 1");
        assert_eq!(a.int("maxRows", 1, 10).unwrap(), Some(5));
        assert!(
            a.int("maxRows", 6, 10)
                .unwrap_err()
                .message()
                .contains("maxRows")
        );
        assert!(a.str("maxRows").is_err());
        assert!(a.required("nope").unwrap_err().message().contains("nope"));
        assert!(
            a.only(&["sql", "maxRows"])
                .unwrap_err()
                .message()
                .contains("'flag'")
        );
        assert_eq!(a.to_query().unwrap(), "sql=select+1&maxRows=5&flag=true");
        assert!(args(json!({"x": [1]})).to_query().is_err());
    }
}

//! The one way a query string is read: a repeated parameter is refused, then the string is
//! deserialized into the route's typed query (unknown parameters refused where the type says
//! so). A refusal answers in the path's family envelope.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::Response;
use pp_core::{Error, Result};
use serde::de::DeserializeOwned;

use super::error::for_path;

/// Parses `raw` (without the `?`) into `T`.
pub fn parse<T: DeserializeOwned>(raw: &str) -> Result<T> {
    let mut seen = std::collections::HashSet::new();
    for (k, _) in form_urlencoded::parse(raw.as_bytes()) {
        if !seen.insert(k.clone()) {
            return Err(Error::invalid_request(format!(
                "parameter '{k}' is repeated"
            )));
        }
    }
    serde_urlencoded::from_str(raw).map_err(|e| {
        Error::invalid_request(pp_core::wire::plain("the query string", &e.to_string()))
    })
}

/// The request's query string as `T`.
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parse(parts.uri.query().unwrap_or(""))
            .map(Self)
            .map_err(|e| for_path(parts.uri.path(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn repeated_and_unknown_parameters_are_refused() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Q {
            a: Option<String>,
        }
        assert_eq!(parse::<Q>("a=1").unwrap().a.as_deref(), Some("1"));
        assert!(
            parse::<Q>("a=1&a=2")
                .unwrap_err()
                .message()
                .contains("repeated")
        );
        assert!(parse::<Q>("b=1").unwrap_err().message().contains("b"));
        assert_eq!(
            parse::<HashMap<String, String>>("x=%20y").unwrap()["x"],
            " y"
        );
    }
}

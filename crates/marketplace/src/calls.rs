//! Turning a call body into an upstream request from its catalog entry: every argument must be
//! a declared parameter; path parameters must be present; a body only where the operation takes
//! one, and well formed; the merchant's marketplace (and, on listings, its seller id) injected.
//! Anything wrong is `invalid_request` and nothing is sent.

use pp_core::{Error, Result, TenantId};
use serde_json::{Map, Value};

use crate::catalog::Operation;
use crate::connections::GrantKind;
use crate::merchants::Merchant;
use crate::upstream::Request;

fn scalar(name: &str, v: &Value) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Array(a) => a
            .iter()
            .map(|x| scalar(name, x))
            .collect::<Result<Vec<_>>>()
            .map(|v| v.join(",")),
        _ => Err(Error::invalid_request(format!(
            "{name} must be a string, number, boolean or a list of them"
        ))),
    }
}

/// What an operation takes, in words: its parameters and where its request body goes.
fn takes(names: &[&str], body: bool) -> String {
    match (names, body) {
        ([], false) => "it takes no parameters".to_owned(),
        ([], true) => "it takes only a request body, sent as query.body".to_owned(),
        (n, false) => format!("it takes {}", n.join(", ")),
        (n, true) => format!(
            "it takes {}, and a request body sent as query.body",
            n.join(", ")
        ),
    }
}

/// Builds the request for `op` with the call's `query` arguments.
pub fn build<'a>(
    op: &'a Operation,
    args: &Map<String, Value>,
    tenant: &'a TenantId,
    grant: GrantKind,
    merchant_token: &'a str,
    merchant: Option<&Merchant>,
) -> Result<Request<'a>> {
    let names: Vec<&str> = op
        .params
        .iter()
        .filter(|p| p.location != "body")
        .map(|p| p.name.as_str())
        .collect();
    for k in args.keys() {
        if k != "body" && !names.contains(&k.as_str()) {
            return Err(Error::invalid_request(format!(
                "'{k}' is not a parameter of {}: {}",
                op.id,
                takes(&names, op.takes_body())
            ))
            .with_fix(format!(
                "GET /api/marketplace/{}/operations lists each operation's parameters.",
                op.api
            )));
        }
    }
    if let Some(checks) = &op.checks {
        checks.run(&op.id, args)?;
    }
    let body = match args.get("body") {
        // an optional body is still a body: the provider wants `{}` with its media type
        None | Some(Value::Null) if op.takes_body() => match op.body_required() {
            false => Some(Value::Object(Map::new())),
            true => {
                return Err(Error::invalid_request(format!(
                    "{} needs a request body: send it as query.body",
                    op.id
                ))
                .with_fix(format!(
                    "GET /api/marketplace/{}/operations shows the operation's parameters and notes.",
                    op.api
                )));
            }
        },
        None | Some(Value::Null) => None,
        Some(_) if !op.takes_body() => {
            return Err(Error::invalid_request(format!("{} takes no body", op.id)));
        }
        Some(b @ (Value::Object(_) | Value::Array(_))) => Some(b.clone()),
        Some(_) => {
            return Err(Error::invalid_request(format!(
                "the body of {} must be a JSON object or array",
                op.id
            )));
        }
    };
    let mut path = op.path.clone();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    for p in op.params.iter().filter(|p| p.location != "body") {
        let injected = match (&merchant, p.name.as_str(), p.location.as_str()) {
            (Some(m), "sellerId", "path") => Some(m.seller_id.clone()),
            (Some(m), _, _) if op.marketplace_param.as_deref() == Some(p.name.as_str()) => {
                Some(m.marketplace_id.clone())
            }
            _ => None,
        };
        let given = args
            .get(&p.name)
            .filter(|v| !v.is_null())
            .map(|v| scalar(&p.name, v))
            .transpose()?;
        let value = match (given, injected) {
            (Some(g), Some(i)) if g != i => {
                return Err(Error::invalid_request(format!(
                    "{} is set from the merchant ({i}); {} accepts exactly that one",
                    p.name, op.id
                )));
            }
            (Some(g), _) => Some(g),
            (None, i) => i,
        };
        match (p.location.as_str(), value) {
            ("path", Some(v)) => {
                let enc: String = form_urlencoded::byte_serialize(v.as_bytes()).collect();
                path = path.replace(&format!("{{{}}}", p.name), &enc.replace('+', "%20"));
            }
            ("path", None) => {
                return Err(Error::invalid_request(format!(
                    "{} needs the path parameter {}",
                    op.id, p.name
                )));
            }
            ("query", Some(v)) => query.push((p.name.clone(), v)),
            ("header", Some(v)) => headers.push((p.name.clone(), v)),
            (_, None) if p.required => {
                return Err(Error::invalid_request(format!(
                    "{} needs the {} parameter {}",
                    op.id, p.location, p.name
                ))
                .with_fix(format!(
                    "GET /api/marketplace/{}/operations lists each operation's parameters and notes.",
                    op.api
                )));
            }
            _ => {}
        }
    }
    let media_type = match &op.media_type_by_id {
        None => op.media_type.clone(),
        Some(by) => {
            let id = args
                .get(&by.param)
                .and_then(Value::as_str)
                .unwrap_or_default();
            let media = by.for_id(id).ok_or_else(|| {
                Error::invalid_request(format!(
                    "{} is not an id {} can read: its kind cannot be told from it",
                    by.param, op.id
                ))
                .with_fix("Pass the id exactly as the create answered it.")
            })?;
            Some(media.to_owned())
        }
    };
    Ok(Request {
        op,
        tenant,
        grant,
        merchant: merchant_token,
        path,
        query,
        headers,
        body,
        media_type,
        background: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{find, spapi};
    use serde_json::json;

    fn m() -> Merchant {
        Merchant {
            seller_id: "A2".into(),
            legacy_seller_id: 1,
            marketplace: "US".into(),
            marketplace_id: "ATVPDKIKX0DER".into(),
            account_type: "seller".into(),
        }
    }

    #[test]
    fn arguments_are_checked_and_the_merchant_injected() {
        let t = TenantId::parse("acme").unwrap();
        let built = |op, v: Value| {
            build(
                op,
                v.as_object().unwrap(),
                &t,
                GrantKind::Seller,
                "A2",
                Some(&m()),
            )
        };
        let refused = |op, v: Value| built(op, v).unwrap_err().message().to_owned();
        let promo = find(spapi(), "promotions.search_promotions").unwrap();
        let r = built(promo, json!({"limit": 5, "asins": ["B1", "B2"]})).unwrap();
        assert!(
            r.query
                .contains(&("marketplaceIds".into(), "ATVPDKIKX0DER".into())),
            "{:?}",
            r.query
        );
        assert!(r.query.contains(&("asins".into(), "B1,B2".into())));
        assert!(
            refused(promo, json!({"marketplaceIds": "A2EUQ1WTGCTBG2"}))
                .contains("exactly that one"),
            "another marketplace"
        );
        assert!(refused(promo, json!({"bogus": 1})).contains("bogus"));
        assert!(refused(promo, json!({"body": {}})).contains("no body"));
        let sel = find(spapi(), "promotions.get_selection").unwrap();
        assert!(refused(sel, json!({"promotionId": "p"})).contains("selectionId"));
        assert!(
            refused(sel, json!({"promotionId": "p", "selectionId": "s"})).contains("revisionId")
        );
        let listing = find(spapi(), "listings.get_listings_item").unwrap();
        let r = built(listing, json!({"sku": "A B/1"})).unwrap();
        assert_eq!(r.path, "/listings/2021-08-01/items/A2/A%20B%2F1");
        let create = find(spapi(), "reports.create_report").unwrap();
        assert!(refused(create, json!({"body": "x"})).contains("must be a JSON object"));
        assert!(refused(create, json!({})).contains("needs a request body"));
        let e = refused(create, json!({"name": "x"}));
        assert!(
            e.contains("it takes only a request body, sent as query.body"),
            "{e}"
        );
        // an optional body is sent as {} (the provider answers 415 without one)
        let list = find(crate::catalog::ads(), "sp.list_campaigns").unwrap();
        let r = build(list, &Map::new(), &t, GrantKind::Ads, "A2", None).unwrap();
        assert_eq!(r.body, Some(json!({})));
    }
}

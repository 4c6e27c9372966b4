//! Tenant write policies: none until one is set, replaced whole by the next, kept per tenant.

use serde_json::json;

use crate::{Fixture, each_engine};

#[tokio::test]
async fn a_policy_is_absent_until_set_replaced_whole_and_kept_per_tenant() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let p = f.store.policies();
        assert_eq!(p.get(a.as_str()).await.unwrap(), None, "{}", f.engine);
        let first = json!({ "maxRaise": 2, "bids": { "USD": { "max": 5.5 } } });
        p.put(a.as_str(), &first, "ana@acme.example").await.unwrap();
        let row = p.get(a.as_str()).await.unwrap().unwrap();
        assert_eq!(
            (&row.doc, row.updated_by.as_str()),
            (&first, "ana@acme.example"),
            "{}",
            f.engine
        );
        let second = json!({ "maxItems": 10 });
        p.put(a.as_str(), &second, "bo@acme.example").await.unwrap();
        let row = p.get(a.as_str()).await.unwrap().unwrap();
        assert_eq!(
            (&row.doc, row.updated_by.as_str()),
            (&second, "bo@acme.example")
        );
        assert_eq!(
            p.get(b.as_str()).await.unwrap(),
            None,
            "another tenant's is its own"
        );
    })
    .await;
}

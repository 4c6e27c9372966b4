//! Marketplace connections: one row per tenant, kind and merchant, replaced on re-connect.

use crate::{Fixture, each_engine};

#[tokio::test]
async fn a_connection_is_replaced_on_reconnect_and_kept_per_tenant() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let c = f.store.connections();
        c.upsert(&a, "seller", "M1", "na", "active", b"sealed-1")
            .await
            .unwrap();
        c.upsert(&a, "ads", "M1", "na", "not_activated", b"sealed-2")
            .await
            .unwrap();
        c.upsert(&a, "seller", "M1", "eu", "active", b"sealed-3")
            .await
            .unwrap();
        let row = c.get(&a, "seller", "M1").await.unwrap().unwrap();
        assert_eq!(
            (row.region.as_str(), row.sealed_token.as_slice()),
            ("eu", &b"sealed-3"[..]),
            "{}",
            f.engine
        );
        c.set_status(&a, "seller", "M1", "lapsed").await.unwrap();
        let kinds: Vec<(String, String)> = c
            .list(&a)
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.kind, r.status))
            .collect();
        assert_eq!(
            kinds,
            [
                ("ads".to_owned(), "not_activated".to_owned()),
                ("seller".into(), "lapsed".into())
            ]
        );
        assert!(
            c.list(&b).await.unwrap().is_empty(),
            "tenants never see each other"
        );
        assert!(c.get(&b, "seller", "M1").await.unwrap().is_none());
    })
    .await;
}

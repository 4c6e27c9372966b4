//! Marketplace connections: one row per tenant, kind and merchant, replaced on re-connect;
//! a disconnect erases the token; and the one-time states of connects in progress.

use pp_store::{NewConnection, NewPerson, now_unix};

use crate::{Fixture, each_engine};

fn conn<'a>(kind: &'a str, region: &'a str, status: &'a str, token: &'a [u8]) -> NewConnection<'a> {
    NewConnection {
        kind,
        merchant: "M1",
        region,
        status,
        sealed_token: token,
        connected_by: "ana@x.example",
        reach: "ATVPDKIKX0DER,A2EUQ1WTGCTBG2",
    }
}

#[tokio::test]
async fn a_connection_is_replaced_on_reconnect_and_kept_per_tenant() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let c = f.store.connections();
        c.upsert(&a, &conn("seller", "na", "active", b"sealed-1"))
            .await
            .unwrap();
        c.upsert(&a, &conn("ads", "na", "not_activated", b"sealed-2"))
            .await
            .unwrap();
        c.upsert(&a, &conn("seller", "eu", "active", b"sealed-3"))
            .await
            .unwrap();
        let row = c.get(&a, "seller", "M1").await.unwrap().unwrap();
        assert_eq!(
            (row.region.as_str(), row.sealed_token.as_slice()),
            ("eu", &b"sealed-3"[..]),
            "{}",
            f.engine
        );
        assert_eq!(row.connected_by.as_deref(), Some("ana@x.example"));
        assert_eq!(row.reach, "ATVPDKIKX0DER,A2EUQ1WTGCTBG2");
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

#[tokio::test]
async fn a_disconnect_erases_the_token_until_a_reconnect() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let c = f.store.connections();
        c.upsert(&a, &conn("seller", "na", "active", b"sealed-1"))
            .await
            .unwrap();
        c.touch(&a, "seller", "M1").await.unwrap();
        let before = c.get(&a, "seller", "M1").await.unwrap().unwrap();
        assert!(before.last_call_at.is_some(), "{}", f.engine);
        assert!(
            !c.disconnect(&b, "seller", "M1", "lapsed", "eve")
                .await
                .unwrap()
        );
        assert!(
            c.disconnect(&a, "seller", "M1", "lapsed", "ana@x.example")
                .await
                .unwrap()
        );
        let row = c.get(&a, "seller", "M1").await.unwrap().unwrap();
        assert!(row.sealed_token.is_empty(), "{}", f.engine);
        assert_eq!(row.status, "lapsed");
        assert_eq!(row.disconnected_by.as_deref(), Some("ana@x.example"));
        assert_eq!(row.last_call_at, before.last_call_at, "its history stays");
        c.upsert(&a, &conn("seller", "na", "active", b"sealed-2"))
            .await
            .unwrap();
        let row = c.get(&a, "seller", "M1").await.unwrap().unwrap();
        assert_eq!(row.sealed_token, b"sealed-2");
        assert_eq!((row.status.as_str(), row.disconnected_by), ("active", None));
    })
    .await;
}

#[tokio::test]
async fn a_connect_state_is_taken_once() {
    each_engine(async |f: Fixture| {
        let a = f.tenant("acme").await;
        f.store
            .people()
            .insert(&NewPerson {
                id: "p1",
                tenant_id: "acme",
                email: "ana@x.example",
                display_name: "Ana",
                role: "admin",
                password_hash: "h",
            })
            .await
            .unwrap();
        let states = f.store.connect_states();
        let until = now_unix() + 600;
        states
            .insert(b"state-1", &a, "p1", "seller", "eu", until)
            .await
            .unwrap();
        assert!(states.take(b"state-2").await.unwrap().is_none());
        let (x, y) = tokio::join!(states.take(b"state-1"), states.take(b"state-1"));
        let taken: Vec<_> = [x.unwrap(), y.unwrap()].into_iter().flatten().collect();
        assert_eq!(taken.len(), 1, "{}", f.engine);
        let s = &taken[0];
        assert_eq!(
            (
                s.tenant_id.as_str(),
                s.person_id.as_str(),
                s.kind.as_str(),
                s.region.as_str(),
                s.expires_at
            ),
            ("acme", "p1", "seller", "eu", until)
        );
        assert!(states.take(b"state-1").await.unwrap().is_none());
    })
    .await;
}

#[tokio::test]
async fn a_grant_added_or_changing_moves_the_auth_epoch_and_a_recorded_call_does_not() {
    each_engine(async |f: Fixture| {
        let a = f.tenant("acme").await;
        let c = f.store.connections();
        let epoch = async || f.store.tokens().epochs().await.unwrap().auth;
        let before = epoch().await;
        c.upsert(&a, &conn("seller", "na", "active", b"sealed-1"))
            .await
            .unwrap();
        let at = epoch().await;
        // a merchant connected on another instance (or by the command line) is seen at once
        assert!(at > before, "a new connection: {}", f.engine);
        c.touch(&a, "seller", "M1").await.unwrap();
        assert_eq!(epoch().await, at, "a recorded call: {}", f.engine);
        c.upsert(&a, &conn("seller", "na", "active", b"sealed-2"))
            .await
            .unwrap();
        let reconnected = epoch().await;
        assert!(reconnected > at, "a reconnect: {}", f.engine);
        c.set_status(&a, "seller", "M1", "lapsed").await.unwrap();
        let lapsed = epoch().await;
        assert!(lapsed > reconnected, "a lapse");
        c.disconnect(&a, "seller", "M1", "lapsed", "ana")
            .await
            .unwrap();
        assert!(epoch().await > lapsed, "a disconnect");
    })
    .await;
}

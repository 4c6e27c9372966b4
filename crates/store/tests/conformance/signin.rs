//! Sign-in: codes used once (a second use revokes what the first minted), refresh tokens
//! spent once (a second spend revokes the family), dynamic clients bound to one tenant within
//! a limit, setup codes spent once, and a disabled person's sessions and grants ended.

use pp_store::signin::{
    GrantToken, NewClient, NewCode, NewGrant, Redeemed, Rotated, SetupCredential,
};
use pp_store::{NewPerson, now_unix};

use crate::{Fixture, each_engine};

async fn setup(f: &Fixture) {
    f.tenant("acme").await;
    f.tenant("zeta").await;
    f.store
        .people()
        .insert(&NewPerson {
            id: "p1",
            tenant_id: "acme",
            email: "ana@x.example",
            display_name: "Ana",
            role: "member",
            password_hash: "h",
        })
        .await
        .unwrap();
    f.store
        .clients()
        .insert(&NewClient {
            client_id: "app1",
            tenant_id: None,
            kind: "partner",
            name: "App",
            secret_hash: None,
            redirect_uris: &["https://a.example/cb".to_owned()],
            scopes: "account:read",
            created_by: "test",
        })
        .await
        .unwrap();
}

fn grant(id: &str) -> NewGrant<'_> {
    NewGrant {
        id,
        tenant_id: "acme",
        person_id: "p1",
        client_id: Some("app1"),
        scopes: "account:read",
    }
}

fn token<'a>(hash: &'a [u8], kind: &'a str) -> GrantToken<'a> {
    GrantToken {
        hash,
        kind,
        scopes: "account:read",
        expires_at: now_unix() + 600,
    }
}

#[tokio::test]
async fn a_code_works_once_and_a_second_use_revokes_its_grant() {
    each_engine(async |f: Fixture| {
        setup(&f).await;
        let g = f.store.grants();
        g.insert_code(&NewCode {
            code_hash: b"c1",
            client_id: "app1",
            person_id: "p1",
            redirect_uri: "https://a.example/cb",
            scopes: "account:read",
            challenge: "x",
            expires_at: now_unix() + 60,
        })
        .await
        .unwrap();
        assert_eq!(g.code(b"c1").await.unwrap().unwrap().tenant_id, "acme");
        let first = g
            .redeem(b"c1", &grant("g1"), &[token(b"a1", "access")])
            .await
            .unwrap();
        assert_eq!(first, Redeemed::Minted, "{}", f.engine);
        assert!(f.store.tokens().live(b"a1").await.unwrap().is_some());
        let again = g
            .redeem(b"c1", &grant("g2"), &[token(b"a2", "access")])
            .await
            .unwrap();
        assert_eq!(again, Redeemed::Reused, "{}", f.engine);
        assert!(
            f.store.tokens().live(b"a1").await.unwrap().is_none(),
            "{}",
            f.engine
        );
        assert!(f.store.tokens().live(b"a2").await.unwrap().is_none());
        assert_eq!(
            g.redeem(b"nope", &grant("g3"), &[]).await.unwrap(),
            Redeemed::Gone
        );
    })
    .await;
}

#[tokio::test]
async fn a_refresh_token_spent_twice_revokes_its_family() {
    each_engine(async |f: Fixture| {
        setup(&f).await;
        let g = f.store.grants();
        g.insert_direct(
            &grant("g1"),
            &[token(b"a1", "access"), token(b"r1", "refresh")],
        )
        .await
        .unwrap();
        let row = g.refresh_token(b"r1").await.unwrap().unwrap();
        assert_eq!((row.grant_id.as_str(), row.used), ("g1", false));
        let r = g
            .rotate(
                b"r1",
                "g1",
                &[token(b"a2", "access"), token(b"r2", "refresh")],
            )
            .await
            .unwrap();
        assert_eq!(r, Rotated::Rotated, "{}", f.engine);
        let live = f.store.tokens().live(b"a2").await.unwrap().unwrap();
        assert_eq!(live.person_email.as_deref(), Some("ana@x.example"));
        assert_eq!(live.client_id.as_deref(), Some("app1"));
        let r = g
            .rotate(b"r1", "g1", &[token(b"a3", "access")])
            .await
            .unwrap();
        assert_eq!(r, Rotated::Reused, "{}", f.engine);
        for t in [b"a1", b"a2", b"a3"] {
            assert!(
                f.store.tokens().live(t).await.unwrap().is_none(),
                "{}",
                f.engine
            );
        }
        assert!(g.refresh_token(b"r2").await.unwrap().is_none());
    })
    .await;
}

/// Issue 66, finding 5: a registration flood evicted clients waiting for consent. Reproduced
/// on the old main against the release binary: 1,100 registrations from 110 addresses evicted
/// a client whose authorization a person had already started. Now a client in a pending
/// authorization is never evicted, and room is made from the network with the most waiting.
#[tokio::test]
async fn a_full_table_evicts_the_busiest_network_first_and_never_a_pending_client() {
    each_engine(async |f: Fixture| {
        setup(&f).await;
        let c = f.store.clients();
        let uris = ["http://127.0.0.1:9/cb".to_owned()];
        let new = |id: &'static str| NewClient {
            client_id: id,
            tenant_id: None,
            kind: "dynamic",
            name: "MCP",
            secret_hash: None,
            redirect_uris: &uris,
            scopes: "account:read",
            created_by: "dcr:test",
        };
        // the person's client first (the oldest), then two from one busy network
        assert_eq!(
            c.insert_dynamic(&new("a"), "net-a", 3).await.unwrap(),
            Some(0)
        );
        assert_eq!(
            c.insert_dynamic(&new("b1"), "net-b", 3).await.unwrap(),
            Some(0)
        );
        assert_eq!(
            c.insert_dynamic(&new("b2"), "net-b", 3).await.unwrap(),
            Some(0)
        );
        assert_eq!(
            c.insert_dynamic(&new("c"), "net-c", 3).await.unwrap(),
            Some(1)
        );
        assert!(
            c.get("a").await.unwrap().is_some(),
            "the oldest, alone on its network, stays"
        );
        assert!(
            c.get("b1").await.unwrap().is_none(),
            "the busy network's oldest made room"
        );
        // held clients are never evicted; with all held, nothing is stored
        let later = pp_store::now_unix() + 600;
        for id in ["a", "b2", "c"] {
            c.hold_pending(id, later).await.unwrap();
        }
        assert_eq!(
            c.insert_dynamic(&new("d"), "net-d", 3).await.unwrap(),
            None,
            "{}",
            f.engine
        );
        assert!(c.get("d").await.unwrap().is_none());
        for id in ["a", "b2", "c"] {
            assert!(c.get(id).await.unwrap().is_some(), "{id} was held");
        }
        // a hold that has ended protects nothing
        c.hold_pending("b2", pp_store::now_unix() - 1)
            .await
            .unwrap();
        assert_eq!(
            c.insert_dynamic(&new("d"), "net-d", 3).await.unwrap(),
            Some(1)
        );
        assert!(c.get("b2").await.unwrap().is_none());
    })
    .await;
}

#[tokio::test]
async fn a_dynamic_client_binds_to_one_tenant_within_its_limit() {
    each_engine(async |f: Fixture| {
        setup(&f).await;
        let c = f.store.clients();
        let uris = ["http://127.0.0.1:9/cb".to_owned()];
        for id in ["d1", "d2"] {
            let n = NewClient {
                client_id: id,
                tenant_id: None,
                kind: "dynamic",
                name: "MCP",
                secret_hash: None,
                redirect_uris: &uris,
                scopes: "account:read",
                created_by: "dcr:1.2.3.4",
            };
            assert_eq!(c.insert_dynamic(&n, "1.2.3.4", 2).await.unwrap(), Some(0));
        }
        let n = NewClient {
            client_id: "d3",
            tenant_id: None,
            kind: "dynamic",
            name: "MCP",
            secret_hash: None,
            redirect_uris: &uris,
            scopes: "account:read",
            created_by: "x",
        };
        // issue 52, finding 5: a full table of unused clients forgets the oldest to make room
        // (on the old main the next registration was refused, everyone's, for a day)
        assert_eq!(
            c.insert_dynamic(&n, "x", 2).await.unwrap(),
            Some(1),
            "{}",
            f.engine
        );
        assert!(c.get("d1").await.unwrap().is_none(), "the oldest made room");
        assert!(c.get("d3").await.unwrap().is_some());
        // the test goes on with d1 as the first consented client, registered again
        let again = NewClient {
            client_id: "d1",
            ..n
        };
        assert_eq!(c.insert_dynamic(&again, "x", 2).await.unwrap(), Some(1));
        assert!(c.get("d2").await.unwrap().is_none(), "then the next oldest");
        assert!(c.bind("d1", "acme", 1).await.unwrap());
        assert!(
            c.bind("d1", "acme", 1).await.unwrap(),
            "binding again is a no-op"
        );
        assert!(
            !c.bind("d1", "zeta", 5).await.unwrap(),
            "bound to acme, not zeta"
        );
        assert!(
            !c.bind("d3", "acme", 1).await.unwrap(),
            "acme is at its limit on {}",
            f.engine
        );
        assert_eq!(
            c.get("d1").await.unwrap().unwrap().tenant_id.as_deref(),
            Some("acme")
        );
        assert!(
            c.revoke("d1", Some("zeta")).await.is_err(),
            "zeta cannot revoke acme's client"
        );
        assert!(c.revoke("d1", Some("acme")).await.unwrap());
        assert!(
            c.bind("d3", "acme", 1).await.unwrap(),
            "a revoked client frees its place"
        );
    })
    .await;
}

#[tokio::test]
async fn a_setup_code_is_spent_once_and_a_disabled_person_loses_everything() {
    each_engine(async |f: Fixture| {
        setup(&f).await;
        let s = f.store.setup_codes();
        s.insert(b"s1", "p1", "plugin", now_unix() + 600)
            .await
            .unwrap();
        let cred = |id: &'static str| SetupCredential {
            id,
            client_id: id,
            secret_hash: "h",
            scopes: "account:read",
        };
        let made = s.redeem(b"s1", &cred("c1")).await.unwrap().unwrap();
        assert_eq!(
            (made.person_id.as_deref(), made.tenant_id.as_str()),
            (Some("p1"), "acme")
        );
        assert!(
            s.redeem(b"s1", &cred("c2")).await.unwrap().is_none(),
            "{}",
            f.engine
        );
        assert_eq!(
            s.list("p1").await.unwrap()[0].credential_id.as_deref(),
            Some("c1")
        );

        f.store
            .sessions()
            .insert(b"sess", "p1", "csrf", now_unix() + 600)
            .await
            .unwrap();
        assert!(f.store.sessions().live(b"sess").await.unwrap().is_some());
        f.store
            .grants()
            .insert_direct(&grant("g1"), &[token(b"a1", "access")])
            .await
            .unwrap();
        assert!(f.store.people().disable("p1").await.unwrap());
        assert!(
            f.store.sessions().live(b"sess").await.unwrap().is_none(),
            "{}",
            f.engine
        );
        assert!(f.store.tokens().live(b"a1").await.unwrap().is_none());
        assert!(
            f.store
                .credentials()
                .find("c1")
                .await
                .unwrap()
                .revoked_at
                .is_some()
        );
    })
    .await;
}

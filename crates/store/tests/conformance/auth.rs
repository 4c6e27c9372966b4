//! Tenants, credentials, tokens, service keys and usage.

use pp_store::{NewCredential, NewToken};

use crate::{Fixture, each_engine};

fn cred<'a>(id: &'a str, tenant: &'a str, hash: &'a str) -> NewCredential<'a> {
    NewCredential {
        id,
        tenant_id: tenant,
        client_id: id,
        secret_hash: hash,
        label: "etl",
        scopes: "sql:query",
        person_id: None,
    }
}

fn token<'a>(hash: &'a [u8], cred: &'a str, secret_hash: &'a str) -> NewToken<'a> {
    NewToken {
        token_hash: hash,
        credential_id: cred,
        tenant_id: "acme",
        scopes: "sql:query",
        expires_at: pp_store::now_unix() + 600,
        secret_hash,
    }
}

#[tokio::test]
async fn tenants_are_unique_and_listed_by_id() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("zeta").await;
        f.tenant("acme").await;
        let again = f.store.tenants().create(&t, "Zeta", "x").await;
        assert_eq!(again.unwrap_err().kind.code(), "bad_params", "{}", f.engine);
        let ids: Vec<String> = f
            .store
            .tenants()
            .list()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, ["acme", "zeta"], "{}", f.engine);
        assert_eq!(
            f.store.tenants().get(&t).await.unwrap().unwrap().name,
            "zeta"
        );
    })
    .await;
}

#[tokio::test]
async fn a_token_lives_until_its_credential_is_revoked_or_rotated() {
    each_engine(async |f: Fixture| {
        f.tenant("acme").await;
        let creds = f.store.credentials();
        let row = creds.insert(&cred("c1", "acme", "h1")).await.unwrap();
        assert_eq!((row.revoked_at, row.scopes.as_str()), (None, "sql:query"));
        assert!(creds.by_client_id("c1").await.unwrap().is_some());
        assert_eq!(
            creds.find("nope").await.unwrap_err().kind.code(),
            "not_found"
        );
        let tokens = f.store.tokens();
        // a token is stored only against the secret hash the credential holds now
        assert!(
            !tokens.insert(&token(b"t0", "c1", "stale")).await.unwrap(),
            "{}",
            f.engine
        );
        assert!(tokens.insert(&token(b"t1", "c1", "h1")).await.unwrap());
        let grant = tokens.live(b"t1").await.unwrap().unwrap();
        assert_eq!(
            (grant.tenant_id.as_str(), grant.label.as_str()),
            ("acme", "etl")
        );
        // rotation: the old hash and its tokens stop at once
        creds.rotate("c1", "h2").await.unwrap();
        assert!(tokens.live(b"t1").await.unwrap().is_none(), "{}", f.engine);
        assert!(!tokens.insert(&token(b"t2", "c1", "h1")).await.unwrap());
        assert!(
            !creds.rehash("c1", "h1", "h3").await.unwrap(),
            "the secret moved on"
        );
        assert!(creds.rehash("c1", "h2", "h3").await.unwrap());
        assert!(tokens.insert(&token(b"t3", "c1", "h3")).await.unwrap());
        // revocation: refused at once, and only once
        assert!(creds.revoke("c1").await.unwrap());
        assert!(!creds.revoke("c1").await.unwrap());
        assert!(tokens.live(b"t3").await.unwrap().is_none(), "{}", f.engine);
        assert_eq!(
            creds.rotate("c1", "h4").await.unwrap_err().kind.code(),
            "bad_params"
        );
        assert!(!tokens.insert(&token(b"t4", "c1", "h3")).await.unwrap());
        assert_eq!(creds.list(Some("acme")).await.unwrap().len(), 1);
        assert!(creds.list(Some("beta")).await.unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_service_key_is_made_once_even_when_asked_for_at_once() {
    each_engine(async |f: Fixture| {
        let keys: Vec<[u8; 32]> = futures_util::future::join_all(
            (0..8).map(|_| async { f.store.keys().get("cursor").await.unwrap() }),
        )
        .await;
        assert!(keys.windows(2).all(|w| w[0] == w[1]), "{}", f.engine);
        assert_ne!(f.store.keys().get("other").await.unwrap(), keys[0]);
        f.store
            .usage()
            .record("acme", "c1", "/v1/me", 200)
            .await
            .unwrap();
    })
    .await;
}

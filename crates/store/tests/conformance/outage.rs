//! The state store out of reach (PostgreSQL only: the embedded store cannot be). Issue 52,
//! finding 8, reproduced on the old main: with PostgreSQL stopped under six writers, every
//! acknowledged write survived, but six requests answered `500 unknown` instead of the spec's
//! `503 unavailable` (retryable, with `Retry-After`).

use pp_core::{Kind, TenantId};
use pp_store::{StateUrl, Store};

use crate::scratch_db::{ScratchDb, admin_exec};

#[tokio::test]
async fn a_state_store_out_of_reach_is_unavailable_and_nothing_is_half_written() {
    let Some(db) = ScratchDb::create("pp_outage").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let url = StateUrl::parse(&db.url, dir.path()).unwrap();
    let store = Store::connect(&url, dir.path()).await.unwrap();
    let (acme, beta) = (
        TenantId::parse("acme").unwrap(),
        TenantId::parse("beta").unwrap(),
    );
    store
        .tenants()
        .create(&acme, "Acme", "sqlite:/a")
        .await
        .unwrap();

    // the database stops taking connections, and the ones it had are ended
    let name = db.name();
    let stop = format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false");
    admin_exec(false, &stop).await.unwrap();
    let end =
        format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'");
    admin_exec(false, &end).await.unwrap();

    for attempt in 0..2 {
        let e = store
            .tenants()
            .create(&beta, "Beta", "sqlite:/b")
            .await
            .unwrap_err();
        assert_eq!(
            e.kind,
            Kind::Unavailable,
            "attempt {attempt}: {}",
            e.chain()
        );
        let envelope = e.api_envelope(None);
        assert_eq!(envelope["retryable"], true, "{envelope}");
        assert_eq!(envelope["retryAfter"], 5, "{envelope}");
        assert!(!envelope.to_string().contains(name), "{envelope}");
    }

    // back again: the refused write was not made, the earlier one is there, writing works
    let start = format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true");
    admin_exec(false, &start).await.unwrap();
    assert!(store.tenants().get(&beta).await.unwrap().is_none());
    assert!(store.tenants().get(&acme).await.unwrap().is_some());
    store
        .tenants()
        .create(&beta, "Beta", "sqlite:/b")
        .await
        .unwrap();
}

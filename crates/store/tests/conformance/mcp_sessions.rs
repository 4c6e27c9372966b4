//! MCP sessions in the store: bound to their credential, seen by every instance, bounded per
//! credential, per tenant and in all, and closed once idle.

use pp_store::mcp_sessions::{Opened, SessionCaps};

use crate::{Fixture, each_engine};

const CAPS: SessionCaps = SessionCaps {
    per_credential: 2,
    per_tenant: 3,
    total: 5,
    idle_ms: 60_000,
};

#[tokio::test]
async fn sessions_are_shared_bound_and_bounded() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.store.mcp_sessions(), f.second_instance().await);
        let b = b.mcp_sessions();
        let open = async |c: &str, t: &str| a.open(c, t, "2025-06-18", CAPS).await.unwrap();
        let Opened::Id(first) = open("a", "t").await else {
            panic!()
        };
        assert_eq!(
            b.touch(&first, "a", 60_000).await.unwrap().as_deref(),
            Some("2025-06-18"),
            "another instance sees it ({})",
            f.engine
        );
        assert!(
            b.touch(&first, "z", 60_000).await.unwrap().is_none(),
            "another credential never reaches it"
        );
        let pause = || tokio::time::sleep(std::time::Duration::from_millis(5));
        pause().await;
        let Opened::Id(second) = open("a", "t").await else {
            panic!()
        };
        pause().await;
        // the touches above fell inside the refresh interval and wrote nothing, so the first
        // is still the least recently used: the third session takes its place
        let Opened::Id(third) = open("a", "t").await else {
            panic!()
        };
        let live = async |s: &str| b.touch(s, "a", 60_000).await.unwrap().is_some();
        assert_eq!(
            (live(&first).await, live(&second).await, live(&third).await),
            (false, true, true),
            "the credential keeps its cap of 2 ({})",
            f.engine
        );
        open("b", "t").await;
        assert_eq!(open("c", "t").await, Opened::TenantFull, "{}", f.engine);
        assert!(matches!(open("d", "u").await, Opened::Id(_)));
        assert!(matches!(open("e", "v").await, Opened::Id(_)));
        assert_eq!(open("f", "w").await, Opened::TableFull, "{}", f.engine);
        assert!(a.close(&third, "a").await.unwrap());
        assert!(!a.close(&third, "a").await.unwrap(), "closed once");
        // idle: a session unused for longer than the idle time is gone, on every instance
        assert!(b.touch(&second, "a", 0).await.unwrap().is_none());
        assert!(!live(&second).await, "and stays gone ({})", f.engine);
    })
    .await;
}

#[tokio::test]
async fn live_sessions_are_counted_across_instances() {
    each_engine(async |f: Fixture| {
        let a = f.store.mcp_sessions();
        assert_eq!(a.live(60_000).await.unwrap(), 0, "{}", f.engine);
        for c in ["a", "b"] {
            a.open(c, "t", "2025-06-18", CAPS).await.unwrap();
        }
        let b = f.second_instance().await;
        assert_eq!(
            b.mcp_sessions().live(60_000).await.unwrap(),
            2,
            "{}",
            f.engine
        );
        // none was used within the last millisecond's window of zero
        assert_eq!(a.live(-1).await.unwrap(), 0, "{}", f.engine);
    })
    .await;
}

#[tokio::test]
async fn the_session_epoch_moves_when_a_session_ends_and_only_then() {
    each_engine(async |f: Fixture| {
        let s = f.store.mcp_sessions();
        let epochs = async || f.store.tokens().epochs().await.unwrap();
        let start = epochs().await;
        let Opened::Id(id) = s.open("a", "t", "2025-06-18", CAPS).await.unwrap() else {
            panic!()
        };
        s.touch(&id, "a", 60_000).await.unwrap();
        assert_eq!(epochs().await, start, "opened and used ({})", f.engine);
        assert!(s.close(&id, "a").await.unwrap());
        let ended = epochs().await;
        assert!(ended.sessions > start.sessions, "{}", f.engine);
        assert_eq!(
            ended.auth, start.auth,
            "a session is not a token ({})",
            f.engine
        );
        // another instance reads the same epochs
        let other = f.second_instance().await;
        assert_eq!(
            other.tokens().epochs().await.unwrap(),
            ended,
            "{}",
            f.engine
        );
    })
    .await;
}

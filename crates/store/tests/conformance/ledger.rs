//! The report ledger's exactly-once rule: identical creates share a row, keys bind to their
//! request, uncertain outcomes are reconciled from the first send, and deciders racing on two
//! instances decide one at a time.

use pp_core::TenantId;
use pp_store::Store;
use pp_store::ledger::{CREATED, Decision, Intent, UNKNOWN};
use serde_json::json;

use crate::{Fixture, each_engine};

fn intent(
    t: &TenantId,
    family: &'static str,
    account: &str,
    hash: &str,
    key: Option<&str>,
    lease_ms: i64,
) -> Intent {
    Intent {
        tenant: t.clone(),
        family,
        account: account.into(),
        hash: hash.into(),
        key: key.map(str::to_owned),
        lease_ms,
        fresh_since: None,
    }
}

async fn decide(s: &Store, i: Intent) -> Decision {
    s.ledger().decide(i).await.unwrap()
}

#[tokio::test]
async fn identical_creates_share_a_row_and_keys_bind_to_their_request() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let s = &f.store;
        let d = async |hash: &str, key: Option<&str>| {
            decide(s, intent(&t, "ads_v3", "p1", hash, key, 60_000)).await
        };
        let Decision::Send(first) = d("h1", Some("k1")).await else {
            panic!()
        };
        assert!(
            matches!(d("h1", None).await, Decision::Wait(_)),
            "in flight"
        );
        s.ledger()
            .settle(&first.id, CREATED, Some("r1"), None)
            .await
            .unwrap();
        let Decision::Reuse(e) = d("h1", None).await else {
            panic!()
        };
        assert_eq!(e.provider_id.as_deref(), Some("r1"));
        assert!(matches!(d("h1", Some("k1")).await, Decision::Reuse(_)));
        let other = s
            .ledger()
            .decide(intent(&t, "ads_v3", "p1", "h2", Some("k1"), 60_000))
            .await;
        assert!(other.is_err(), "a key names one request ({})", f.engine);
        // an uncertain outcome is reconciled by the next try, which holds the row meanwhile
        let Decision::Send(second) = d("h2", Some("k2")).await else {
            panic!()
        };
        s.ledger()
            .settle(&second.id, UNKNOWN, None, Some(&json!({"kind": "timeout"})))
            .await
            .unwrap();
        assert!(matches!(d("h2", Some("k2")).await, Decision::Reconcile(_)));
        assert!(matches!(d("h2", None).await, Decision::Wait(_)));
        // a sender that died: its lease runs out, and the row is reconciled
        let Decision::Send(_) = decide(s, intent(&t, "spapi", "m", "h3", None, -1)).await else {
            panic!()
        };
        assert!(
            matches!(d("h3", None).await, Decision::Send(_)),
            "another family and account"
        );
        assert!(matches!(
            decide(s, intent(&t, "spapi", "m", "h3", None, 60_000)).await,
            Decision::Reconcile(_)
        ));
        assert_eq!(
            s.ledger()
                .account_of(&t, "ads_v3", "r1")
                .await
                .unwrap()
                .as_deref(),
            Some("p1")
        );
        assert!(s.ledger().adopted(&t, "r1").await.unwrap());
        let (row, err) = s.ledger().get(&second.id).await.unwrap().unwrap();
        assert_eq!(
            (row.status.as_str(), err),
            ("sending", Some(json!({"kind": "timeout"}))),
            "{}",
            f.engine
        );
    })
    .await;
}

/// A reconcile that could not finish leaves the window where the first create was sent.
#[tokio::test]
async fn the_window_starts_at_the_first_send_whatever_reconciles_follow() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let s = &f.store;
        let i = intent(&t, "spapi", "m", "h", Some("k"), 60_000);
        let Decision::Send(first) = decide(s, i.clone()).await else {
            panic!()
        };
        s.ledger()
            .settle(&first.id, UNKNOWN, None, None)
            .await
            .unwrap();
        for _ in 0..2 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let Decision::Reconcile(e) = decide(s, i.clone()).await else {
                panic!()
            };
            assert_eq!(e.sent_at, first.sent_at, "the window never moves");
            s.ledger().release_unknown(&e.id).await.unwrap();
        }
        let (row, _) = s.ledger().get(&first.id).await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.sent_at), (UNKNOWN, first.sent_at));
    })
    .await;
}

/// A report that ended FATAL is no answer to a new identical request; its watch record reads back.
#[tokio::test]
async fn a_failed_report_is_not_handed_out_again() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let s = &f.store;
        let d =
            async |key: Option<&str>| decide(s, intent(&t, "spapi", "m", "h", key, 60_000)).await;
        let Decision::Send(first) = d(Some("k1")).await else {
            panic!()
        };
        s.ledger()
            .settle(&first.id, CREATED, Some("r1"), None)
            .await
            .unwrap();
        let fatal = json!({"processingStatus": "FATAL"});
        s.ledger()
            .record_watch(&first.id, &fatal, Some("provider_fatal"))
            .await
            .unwrap();
        let (seen, reason, _) = s.ledger().watched(&t, "r1").await.unwrap().unwrap();
        assert_eq!((seen, reason.as_deref()), (fatal, Some("provider_fatal")));
        assert!(
            matches!(d(None).await, Decision::Send(_)),
            "a new identical request creates ({})",
            f.engine
        );
        assert!(
            matches!(d(Some("k1")).await, Decision::Reuse(_)),
            "its own key still answers the same"
        );
    })
    .await;
}

/// Thirty-two deciders on two instances, at once, for the same create: one sends, the rest wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_deciders_on_two_instances_send_once() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let other = f.second_instance().await;
        for key in [None, Some("same-key")] {
            let hash = format!("h-{key:?}");
            let tasks = (0..32).map(|n| {
                let s = if n % 2 == 0 {
                    f.store.clone()
                } else {
                    other.clone()
                };
                let i = intent(&t, "ads_v1", "acct", &hash, key, 60_000);
                tokio::spawn(async move { s.ledger().decide(i).await.unwrap() })
            });
            let all: Vec<Decision> = futures_util::future::join_all(tasks)
                .await
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
            let sends = all
                .iter()
                .filter(|d| matches!(d, Decision::Send(_)))
                .count();
            let waits = all
                .iter()
                .filter(|d| matches!(d, Decision::Wait(_)))
                .count();
            assert_eq!((sends, waits), (1, 31), "key {key:?} on {}", f.engine);
        }
    })
    .await;
}

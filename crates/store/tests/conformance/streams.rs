//! Marketing Stream's state: a record delivered twice (to one consumer or two) is kept once,
//! a committed day is marked to be made again and a later commit keeps it marked, the queue's
//! progress is counted, and every tenant's rows are its own.

use pp_store::streams::{NewRecord, Subscription};
use serde_json::json;

use crate::{Fixture, each_engine};

fn record(id: &str, day: &str, clicks: i64) -> NewRecord {
    NewRecord {
        idempotency_id: id.into(),
        seller_id: 1,
        day: day.into(),
        record: json!({ "idempotency_id": id, "clicks": clicks }),
        published_ms: 1_000 + clicks,
        makes_rows: true,
    }
}

#[tokio::test]
async fn a_record_is_kept_once_and_its_day_stays_marked_until_made_at_its_latest() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let s = f.store.streams();
        for t in [&a, &b] {
            s.put_subscription(
                t,
                "sp-traffic",
                &Subscription {
                    profile_id: "3100000001".into(),
                    dataset: "sp-traffic".into(),
                    seller_id: 1,
                    subscription_id: "amzn1.fead.cs1.x".into(),
                    queue_url: format!("http://sqs/{}", t.as_str()),
                    status: "PENDING_CONFIRMATION".into(),
                    created_ms: 1,
                },
            )
            .await
            .unwrap();
        }
        let first = s
            .commit(
                &a,
                "sp-traffic",
                vec![record("r1", "2026-11-20", 3), record("r2", "2026-11-21", 4)],
                vec![],
            )
            .await
            .unwrap();
        assert_eq!((first.inserted, first.duplicates), (2, 0), "{}", f.engine);
        // the same records again, as a second instance or a redelivery would bring them
        let again = s
            .commit(
                &a,
                "sp-traffic",
                vec![record("r2", "2026-11-21", 4), record("r3", "2026-11-21", 5)],
                vec![("not JSON".into(), "{".into())],
            )
            .await
            .unwrap();
        assert_eq!((again.inserted, again.duplicates), (1, 1), "{}", f.engine);
        assert_eq!(
            s.records(a.as_str(), 1, "sp-traffic", "2026-11-21")
                .await
                .unwrap()
                .len(),
            2
        );
        assert!(
            s.records(b.as_str(), 1, "sp-traffic", "2026-11-21")
                .await
                .unwrap()
                .is_empty()
        );
        let q = &s.queue_states(&a).await.unwrap()[0];
        assert_eq!(
            (q.messages, q.duplicates, q.rejected),
            (5, 1, 1),
            "{}",
            f.engine
        );
        assert_eq!(q.last_published_ms, Some(1_005));
        assert_eq!(q.last_error.as_deref(), Some("not JSON"));
        assert_eq!(s.rejects(&a, 10).await.unwrap()[0].3, "{");
        assert_eq!(s.queue_states(&b).await.unwrap()[0].messages, 0);

        let pending = s.claim(10, 60_000).await.unwrap();
        assert_eq!(pending.len(), 2, "{pending:?}");
        // a second maker finds nothing to take while the claims hold
        assert!(
            s.claim(10, 60_000).await.unwrap().is_empty(),
            "{}",
            f.engine
        );
        let day21 = pending
            .iter()
            .find(|p| p.day == "2026-11-21")
            .unwrap()
            .clone();
        assert_eq!(day21.version, 2, "two commits touched it");
        // a commit after the day was claimed keeps it marked: made at version 2, it is now 3,
        // and its claim is let go so it is made again
        s.commit(
            &a,
            "sp-traffic",
            vec![record("r4", "2026-11-21", 6)],
            vec![],
        )
        .await
        .unwrap();
        s.made(&day21).await.unwrap();
        for p in pending.iter().filter(|p| p.day != "2026-11-21") {
            s.made(p).await.unwrap();
        }
        let left = s.claim(10, 60_000).await.unwrap();
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!((left[0].day.as_str(), left[0].version), ("2026-11-21", 3));
        s.made(&left[0]).await.unwrap();
        assert!(!s.any_pending().await.unwrap());
        // a claim that runs out (its maker killed) is taken by the next
        s.commit(
            &a,
            "sp-traffic",
            vec![record("r5", "2026-11-22", 7)],
            vec![],
        )
        .await
        .unwrap();
        assert_eq!(s.claim(10, 1).await.unwrap().len(), 1);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        assert_eq!(s.claim(10, 60_000).await.unwrap().len(), 1, "{}", f.engine);
        assert_eq!(s.queues().await.unwrap().len(), 2);
    })
    .await;
}

/// Notifications share one queue per tenant whatever their type; a notification is kept once
/// by its id and never marks a day to be made; a finished report's first notice is the one
/// kept, and only for its tenant.
#[tokio::test]
async fn notifications_share_a_queue_mark_no_day_and_a_reports_first_notice_is_kept() {
    each_engine(async |f: Fixture| {
        use pp_store::streams::ReportNotice;
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let s = f.store.streams();
        for kind in ["ORDER_CHANGE", "REPORT_PROCESSING_FINISHED"] {
            s.put_subscription(
                &a,
                "notifications",
                &Subscription {
                    profile_id: "A1SELLER".into(),
                    dataset: kind.into(),
                    seller_id: 0,
                    subscription_id: format!("sub-{kind}"),
                    queue_url: "http://sqs/acme-notifications".into(),
                    status: "ACTIVE".into(),
                    created_ms: 1,
                },
            )
            .await
            .unwrap();
        }
        assert_eq!(s.queues().await.unwrap().len(), 1, "{}", f.engine);
        assert_eq!(s.subscriptions(&a).await.unwrap().len(), 2);
        let mut n = record("n1", "2026-11-21", 1);
        n.makes_rows = false;
        let kept = s
            .commit(&a, "notifications", vec![n.clone(), n], vec![])
            .await
            .unwrap();
        assert_eq!((kept.inserted, kept.duplicates), (1, 1));
        assert!(!s.any_pending().await.unwrap(), "{}", f.engine);
        let done = ReportNotice {
            report_type: "GET_SALES_AND_TRAFFIC_REPORT".into(),
            status: "DONE".into(),
            document_id: Some("doc-1".into()),
            at_ms: 5,
        };
        s.report_finished(&a, "r-1", &done).await.unwrap();
        let later = ReportNotice {
            report_type: "GET_SALES_AND_TRAFFIC_REPORT".into(),
            status: "FATAL".into(),
            document_id: None,
            at_ms: 6,
        };
        s.report_finished(&a, "r-1", &later).await.unwrap();
        assert_eq!(s.report_notice(&a, "r-1").await.unwrap(), Some(done));
        assert_eq!(s.report_notice(&b, "r-1").await.unwrap(), None);
        assert!(s.hears_reports(&a, "A1SELLER").await.unwrap());
        assert!(!s.hears_reports(&b, "A1SELLER").await.unwrap());
    })
    .await;
}

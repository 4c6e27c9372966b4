//! Audited ads writes: plans are the tenant's own; a plan commits once; an Idempotency-Key
//! answers its first commit again, also through a second instance; a settled row never
//! changes; the log reads newest first with filters and a keyset.

use pp_core::TenantId;
use pp_store::ads_writes::{ANSWERED, AuditFilter, AuditRow, Begin, PlanRow, SENDING, WITHDRAWN};
use serde_json::json;

use crate::{Fixture, each_engine};

fn plan(t: &TenantId, id: &str) -> PlanRow {
    PlanRow {
        id: id.into(),
        tenant: t.clone(),
        credential_id: "cred_1".into(),
        actor: "svc:test/cred_1".into(),
        operation: "sp.update_keywords".into(),
        call_hash: "c".into(),
        plan_hash: "h".into(),
        body: json!({ "items": [] }),
        created_ms: 1,
        expires_ms: i64::MAX,
    }
}

fn row(t: &TenantId, id: &str, plan: &str, key: Option<&str>, at: i64) -> AuditRow {
    AuditRow {
        id: id.into(),
        tenant: t.clone(),
        plan_id: plan.into(),
        credential_id: "cred_1".into(),
        actor: "svc:test/cred_1".into(),
        surface: "api".into(),
        operation: "sp.update_keywords".into(),
        merchant: "A1".into(),
        profile_id: Some("31".into()),
        plan_hash: "h".into(),
        idempotency_key: key.map(str::to_owned),
        snapshot: json!([{ "index": 0, "atPreview": { "bid": 1.0 } }]),
        sent: None,
        answer: None,
        status: SENDING.into(),
        created_ms: at,
        finished_ms: None,
        approved_by: None,
        previewed_by: None,
        previewed_credential_id: None,
    }
}

#[tokio::test]
async fn a_plan_commits_once_and_a_key_answers_its_first_commit() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let w = f.store.ads_writes();
        w.put_plan(&plan(&t, "pl_1")).await.unwrap();
        assert!(w.plan(&t, "pl_1").await.unwrap().is_some());
        assert!(
            w.plan(&other, "pl_1").await.unwrap().is_none(),
            "tenants never see each other's plans"
        );
        assert!(matches!(
            w.begin(row(&t, "au_1", "pl_1", Some("k1"), 10))
                .await
                .unwrap(),
            Begin::Started
        ));
        // a second instance sees the same rule
        let second = f.second_instance().await;
        let w2 = second.ads_writes();
        match w2
            .begin(row(&t, "au_2", "pl_1", Some("k1"), 11))
            .await
            .unwrap()
        {
            Begin::Replay(first) => assert_eq!(first.id, "au_1"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            w2.begin(row(&t, "au_3", "pl_1", None, 12)).await.unwrap(),
            Begin::AlreadyCommitted(_)
        ));
        assert!(matches!(
            w2.begin(row(&t, "au_4", "pl_2", Some("k1"), 13))
                .await
                .unwrap(),
            Begin::KeyTaken(_)
        ));
        // the other tenant's key space is its own
        w.put_plan(&plan(&other, "pl_9")).await.unwrap();
        assert!(matches!(
            w.begin(row(&other, "au_5", "pl_9", Some("k1"), 14))
                .await
                .unwrap(),
            Begin::Started
        ));
        // settled once, never again
        w.settle(
            "au_1",
            ANSWERED,
            Some(&json!({ "body": {} })),
            &json!({ "items": [] }),
        )
        .await
        .unwrap();
        assert!(w.settle("au_1", ANSWERED, None, &json!({})).await.is_err());
        let got = w.by_key(&t, "k1").await.unwrap().unwrap();
        assert_eq!(
            (got.status.as_str(), got.answer),
            (ANSWERED, Some(json!({ "items": [] })))
        );
    })
    .await;
}

#[tokio::test]
async fn the_log_reads_newest_first_with_filters_and_a_keyset() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let w = f.store.ads_writes();
        for i in 0..5 {
            let mut r = row(&t, &format!("au_{i}"), &format!("pl_{i}"), None, 100 + i);
            if i == 4 {
                r.actor = "someone@example.com".into();
            }
            assert!(matches!(w.begin(r).await.unwrap(), Begin::Started));
        }
        let page = |before: Option<(i64, String)>| AuditFilter {
            before,
            limit: 2,
            ..AuditFilter::default()
        };
        let first = w.list(&t, &page(None)).await.unwrap();
        assert_eq!(
            first.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["au_4", "au_3"]
        );
        let last = first.last().unwrap();
        let next = w
            .list(&t, &page(Some((last.created_ms, last.id.clone()))))
            .await
            .unwrap();
        assert_eq!(
            next.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["au_2", "au_1"]
        );
        let by_actor = AuditFilter {
            actor: Some("someone@example.com".into()),
            limit: 10,
            ..AuditFilter::default()
        };
        assert_eq!(w.list(&t, &by_actor).await.unwrap().len(), 1);
        let window = AuditFilter {
            since_ms: Some(101),
            until_ms: Some(103),
            limit: 10,
            ..AuditFilter::default()
        };
        assert_eq!(w.list(&t, &window).await.unwrap().len(), 2);
    })
    .await;
}

/// A plan long expired is forgotten, but not while a held commit waits on it (a person may
/// approve for up to a week); an unsent record is written settled, once per plan.
#[tokio::test]
async fn a_held_plan_outlives_its_expiry_and_an_unsent_record_is_settled_at_once() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let w = f.store.ads_writes();
        let long_ago = |id: &str| PlanRow {
            expires_ms: 1,
            ..plan(&t, id)
        };
        w.put_plan(&long_ago("pl_held")).await.unwrap();
        let mut held = crate::approvals::request(&t, "ap_1", "pl_held", i64::MAX);
        held.idempotency_key = None;
        f.store.approvals().request(&held).await.unwrap();
        w.put_plan(&long_ago("pl_idle")).await.unwrap();
        w.put_plan(&plan(&t, "pl_new")).await.unwrap();
        assert!(
            w.plan(&t, "pl_held").await.unwrap().is_some(),
            "{}",
            f.engine
        );
        assert!(
            w.plan(&t, "pl_idle").await.unwrap().is_none(),
            "{}",
            f.engine
        );
        // an unsent record: settled as written, and the plan's first row stays
        let mut r = row(&t, "au_1", "pl_held", None, 5);
        r.status = WITHDRAWN.into();
        r.answer = Some(json!({ "withdrawn": { "approvalId": "ap_1" } }));
        r.finished_ms = Some(6);
        assert!(w.record_unsent(&r).await.unwrap());
        let again = AuditRow {
            id: "au_2".into(),
            ..r.clone()
        };
        assert!(!w.record_unsent(&again).await.unwrap());
        let kept = w.by_plan(&t, "pl_held").await.unwrap().unwrap();
        assert_eq!(
            (kept.id.as_str(), kept.status.as_str()),
            ("au_1", WITHDRAWN)
        );
        assert_eq!(kept.finished_ms, Some(6));
        assert_eq!(kept.answer, r.answer);
    })
    .await;
}

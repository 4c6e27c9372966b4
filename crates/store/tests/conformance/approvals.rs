//! Approvals of write plans: one request per plan, decided once (by whoever is first), never
//! after its time, settled once after an approval; kept per tenant.

use pp_store::approvals::{self, ApprovalRow, Decided, Whose};

use crate::{Fixture, each_engine};

pub(crate) fn request(
    tenant: &pp_core::TenantId,
    id: &str,
    plan: &str,
    expires_ms: i64,
) -> ApprovalRow {
    ApprovalRow {
        id: id.into(),
        tenant: tenant.clone(),
        plan_id: plan.into(),
        plan_hash: format!("hash-of-{plan}"),
        operation: "sp.update_keywords".into(),
        credential_id: "cred_1".into(),
        actor: "svc:bot/cred_1".into(),
        surface: "mcp".into(),
        idempotency_key: Some("k-1".into()),
        reason: "commits from MCP sessions need a person's approval".into(),
        stored_status: approvals::PENDING.into(),
        decided_by: None,
        decided_ms: None,
        note: None,
        audit_id: None,
        created_ms: pp_store::jobs::now_ms(),
        expires_ms,
    }
}

#[tokio::test]
async fn a_request_is_decided_once_in_time_and_settled_once() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let ap = f.store.approvals();
        let later = pp_store::jobs::now_ms() + 3_600_000;
        let first = ap
            .request(&request(&a, "ap_1", "pl_1", later))
            .await
            .unwrap();
        assert_eq!(
            first.status(pp_store::jobs::now_ms()),
            "pending",
            "{}",
            f.engine
        );
        // the same plan again keeps its first request
        let again = ap
            .request(&request(&a, "ap_2", "pl_1", later))
            .await
            .unwrap();
        assert_eq!(again.id, "ap_1");
        assert_eq!(ap.pending(&a, 10).await.unwrap().len(), 1);
        assert!(ap.pending(&b, 10).await.unwrap().is_empty());
        assert_eq!(
            ap.decide(&b, "ap_1", true, "eve", None).await.unwrap(),
            Decided::NotFound
        );
        // decided once: the second decision finds it decided
        let Decided::Now(row) = ap
            .decide(&a, "ap_1", true, "pia@acme.example", Some("fine"))
            .await
            .unwrap()
        else {
            panic!("{}: not decided", f.engine)
        };
        assert_eq!(
            (
                row.stored_status.as_str(),
                row.decided_by.as_deref(),
                row.note.as_deref()
            ),
            ("approved", Some("pia@acme.example"), Some("fine"))
        );
        let Decided::Already(row) = ap
            .decide(&a, "ap_1", false, "bo@acme.example", None)
            .await
            .unwrap()
        else {
            panic!("{}: decided twice", f.engine)
        };
        assert_eq!(row.decided_by.as_deref(), Some("pia@acme.example"));
        assert!(ap.pending(&a, 10).await.unwrap().is_empty());
        // settled once
        assert!(
            ap.settle(&a, "ap_1", approvals::SENT, Some("au_1"))
                .await
                .unwrap()
        );
        assert!(
            !ap.settle(&a, "ap_1", approvals::FAILED, None)
                .await
                .unwrap()
        );
        let row = ap.get(&a, "ap_1").await.unwrap().unwrap();
        assert_eq!(
            (row.stored_status.as_str(), row.audit_id.as_deref()),
            ("sent", Some("au_1"))
        );
        // a request past its time reads expired and can no longer be decided
        let past = pp_store::jobs::now_ms() - 1;
        ap.request(&request(&a, "ap_3", "pl_3", past))
            .await
            .unwrap();
        let Decided::Already(row) = ap
            .decide(&a, "ap_3", true, "pia@acme.example", None)
            .await
            .unwrap()
        else {
            panic!("{}: an expired request was decided", f.engine)
        };
        assert_eq!(row.status(pp_store::jobs::now_ms()), "expired");
        assert!(
            !ap.settle(&a, "ap_3", approvals::SENT, Some("au_2"))
                .await
                .unwrap()
        );
    })
    .await;
}

/// Withdrawing takes back only the pending requests of whoever's access ended, in their
/// tenant, once; and a request reads its requester as live only while their credential is.
#[tokio::test]
async fn a_withdrawal_takes_back_pending_requests_of_one_requester_once() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let ap = f.store.approvals();
        let later = pp_store::jobs::now_ms() + 3_600_000;
        let of = |t: &pp_core::TenantId, id: &str, plan: &str, cred: &str, actor: &str| {
            let mut r = request(t, id, plan, later);
            r.credential_id = cred.into();
            r.actor = actor.into();
            r
        };
        for r in [
            of(&a, "ap_1", "pl_1", "cred_1", "svc:bot/cred_1"),
            of(&a, "ap_2", "pl_2", "cred_2", "svc:bot/cred_2"),
            of(&a, "ap_3", "pl_3", "grant_1", "ana@acme.example"),
            of(&b, "ap_4", "pl_4", "grant_2", "ana@acme.example"),
        ] {
            ap.request(&r).await.unwrap();
        }
        // a credential's
        let gone = ap
            .withdraw(&Whose::Credential("cred_1"), "admin:root", "revoked")
            .await
            .unwrap();
        let ids: Vec<&str> = gone.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["ap_1"], "{}", f.engine);
        assert_eq!(gone[0].status(pp_store::jobs::now_ms()), "withdrawn");
        assert_eq!(gone[0].decided_by.as_deref(), Some("admin:root"));
        // once: withdrawn again, nothing; deciding it says what it is
        assert!(
            ap.withdraw(&Whose::Credential("cred_1"), "admin:root", "revoked")
                .await
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            ap.decide(&a, "ap_1", true, "pia@acme.example", None)
                .await
                .unwrap(),
            Decided::Already(_)
        ));
        // a person's, in their tenant only
        let gone = ap
            .withdraw(
                &Whose::Person {
                    tenant: "acme",
                    email: "ana@acme.example",
                },
                "admin:root",
                "disabled",
            )
            .await
            .unwrap();
        let ids: Vec<&str> = gone.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["ap_3"], "{}", f.engine);
        let left = ap.get(&b, "ap_4").await.unwrap().unwrap();
        assert_eq!(left.stored_status, "pending");
        // nobody's credential exists here: no requester is live
        let row = ap.get(&a, "ap_2").await.unwrap().unwrap();
        assert!(!ap.requester_live(&row).await.unwrap(), "{}", f.engine);
        assert!(ap.withdraw_one(&a, "ap_2", "val", "gone").await.unwrap());
        assert!(!ap.withdraw_one(&a, "ap_2", "val", "gone").await.unwrap());
    })
    .await;
}

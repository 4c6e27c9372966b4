//! Approvals of write plans: one request per plan, decided once (by whoever is first), never
//! after its time, settled once after an approval; kept per tenant.

use pp_store::approvals::{self, ApprovalRow, Decided};

use crate::{Fixture, each_engine};

fn request(tenant: &pp_core::TenantId, id: &str, plan: &str, expires_ms: i64) -> ApprovalRow {
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

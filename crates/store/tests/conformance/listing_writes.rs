//! Listing writes' switches: enabling is per tenant and merchant and idempotent; a global
//! switch set off by one handle is read off by every other (as a second instance would), with
//! its reason and who set it; a committed change set is found by its plan.

use pp_store::ads_writes::{AuditRow, Begin, SENDING};
use serde_json::json;

use crate::{Fixture, each_engine};

#[tokio::test]
async fn listing_writes_are_enabled_per_tenant_and_merchant() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let l = f.store.listing_writes();
        assert!(!l.enabled(&t, "A1").await.unwrap());
        assert!(l.enable(&t, "A1", "admin").await.unwrap());
        assert!(
            !l.enable(&t, "A1", "admin").await.unwrap(),
            "already enabled"
        );
        assert!(l.enabled(&t, "A1").await.unwrap());
        assert!(!l.enabled(&t, "A2").await.unwrap());
        assert!(
            !l.enabled(&other, "A1").await.unwrap(),
            "another tenant's merchant of the same token is not enabled"
        );
        let list = l.accounts(&t).await.unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(
            (list[0].merchant.as_str(), list[0].enabled_by.as_str()),
            ("A1", "admin")
        );
        assert!(l.disable(&t, "A1").await.unwrap());
        assert!(!l.disable(&t, "A1").await.unwrap());
        assert!(!l.enabled(&t, "A1").await.unwrap());
    })
    .await;
}

#[tokio::test]
async fn a_global_switch_holds_for_every_reader() {
    each_engine(async |f: Fixture| {
        let l = f.store.listing_writes();
        assert!(l.switch("listings_media").await.unwrap().is_none());
        l.set_switch(
            "listings_media",
            true,
            Some("image pipeline incident"),
            "ops",
        )
        .await
        .unwrap();
        let second = f.second_instance().await;
        let s = second
            .listing_writes()
            .switch("listings_media")
            .await
            .unwrap()
            .unwrap();
        assert!(s.off);
        assert_eq!(s.reason.as_deref(), Some("image pipeline incident"));
        assert_eq!(s.changed_by, "ops");
        second
            .listing_writes()
            .set_switch("listings_media", false, None, "ops2")
            .await
            .unwrap();
        let s = l.switch("listings_media").await.unwrap().unwrap();
        assert!(!s.off);
        assert_eq!(s.reason, None);
        assert_eq!(l.switches().await.unwrap().len(), 1);
        assert!(l.set_switch("", true, None, "ops").await.is_err());
    })
    .await;
}

#[tokio::test]
async fn a_committed_change_set_is_found_by_its_plan_and_only_by_its_tenant() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let w = f.store.ads_writes();
        assert!(w.by_plan(&t, "cs_1").await.unwrap().is_none());
        let row = AuditRow {
            id: "au_1".into(),
            tenant: t.clone(),
            plan_id: "cs_1".into(),
            credential_id: "cred_1".into(),
            actor: "svc:test/cred_1".into(),
            surface: "api".into(),
            operation: "listings.patch_listings_item".into(),
            merchant: "A1".into(),
            profile_id: None,
            plan_hash: "h".into(),
            idempotency_key: None,
            snapshot: json!([]),
            sent: None,
            answer: None,
            status: SENDING.into(),
            created_ms: 1,
            finished_ms: None,
            approved_by: None,
            previewed_by: None,
            previewed_credential_id: None,
        };
        assert!(matches!(w.begin(row).await.unwrap(), Begin::Started));
        assert_eq!(w.by_plan(&t, "cs_1").await.unwrap().unwrap().id, "au_1");
        assert!(w.by_plan(&other, "cs_1").await.unwrap().is_none());
    })
    .await;
}

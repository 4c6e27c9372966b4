//! Intelligence runs: an account holds at most its cap of computing runs, counted across
//! instances (a second store handle sees the first's slots); a finished run frees its slots
//! and is metered by request id; a lapsed lease frees a dead run's slots; switching an
//! account off is per tenant and seller row.

use pp_store::intelligence::{Caps, NewRun, Refusal, RunStatus};
use serde_json::json;

use crate::{Fixture, each_engine};

fn row(tenant: &str, id: &str, request: &str) -> NewRun {
    NewRun {
        id: id.into(),
        tenant: tenant.into(),
        request_id: request.into(),
        request_version: "1".into(),
        accounts: vec!["seller:1".into()],
        params: json!({ "sellerId": "A1" }),
        mode: "sync".into(),
        actor: "svc:test".into(),
        credential_id: "cred_1".into(),
        surface: "rest".into(),
    }
}

const CAPS: Caps = Caps {
    per_account: 2,
    total: 10,
    lease_ms: 60_000,
};

#[tokio::test]
async fn an_account_holds_two_computing_runs_across_instances() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let other = f.tenant("beta").await;
        let second = f.second_instance().await;
        let acct = vec!["seller:1".to_owned()];
        for id in ["r1", "r2", "r3"] {
            f.store
                .intelligence()
                .insert(&row("acme", id, "INS-OPS-BRIDGE-01"))
                .await
                .unwrap();
        }
        let i = f.store.intelligence();
        assert_eq!(i.start(&t, "r1", &acct, CAPS).await.unwrap(), None);
        assert_eq!(
            second
                .intelligence()
                .start(&t, "r2", &acct, CAPS)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            i.start(&t, "r3", &acct, CAPS).await.unwrap(),
            Some(Refusal::Account("seller:1".into())),
            "a third computing run on the account is refused, whichever instance took the two"
        );
        assert_eq!(i.holding(&t, "seller:1").await.unwrap(), 2);
        assert_eq!(
            i.holding(&other, "seller:1").await.unwrap(),
            0,
            "another tenant's account of the same id is free"
        );
        let r1 = i.get(&t, "r1").await.unwrap().unwrap();
        assert_eq!(r1.status, RunStatus::Computing);
        assert!(
            i.get(&other, "r1").await.unwrap().is_none(),
            "another tenant cannot read the run"
        );
        assert!(
            i.finish("r1", Ok(&json!({ "total": 1 })), 12)
                .await
                .unwrap()
        );
        assert!(
            !i.finish("r1", Ok(&json!({ "total": 2 })), 12)
                .await
                .unwrap(),
            "a finished run stays as it was"
        );
        assert_eq!(
            i.start(&t, "r3", &acct, CAPS).await.unwrap(),
            None,
            "the finished run freed its slot"
        );
        let r1 = i.get(&t, "r1").await.unwrap().unwrap();
        assert_eq!(
            (r1.status, r1.result),
            (RunStatus::Succeeded, Some(json!({ "total": 1 })))
        );
        i.finish("r2", Err(&json!({ "kind": "no_data_for_period" })), 3)
            .await
            .unwrap();
        let m = i.meter(&t, 0).await.unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].runs, m[0].succeeded, m[0].failed, m[0].compute_ms),
            (3, 1, 1, 15)
        );
        let service = Caps { total: 1, ..CAPS };
        f.store
            .intelligence()
            .insert(&row("beta", "r4", "INS-MONTHLY-01"))
            .await
            .unwrap();
        assert_eq!(
            i.start(&other, "r4", &acct, service).await.unwrap(),
            Some(Refusal::Service),
            "the service-wide cap counts every tenant's runs"
        );
    })
    .await;
}

#[tokio::test]
async fn a_lapsed_lease_frees_a_dead_runs_slots() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let acct = vec!["seller:1".to_owned()];
        let i = f.store.intelligence();
        for id in ["d1", "d2", "d3"] {
            i.insert(&row("acme", id, "INS-OPS-BRIDGE-01"))
                .await
                .unwrap();
        }
        let short = Caps {
            lease_ms: -1,
            ..CAPS
        };
        i.start(&t, "d1", &acct, short).await.unwrap();
        i.start(&t, "d2", &acct, short).await.unwrap();
        assert_eq!(
            i.holding(&t, "seller:1").await.unwrap(),
            0,
            "both leases lapsed"
        );
        assert_eq!(i.start(&t, "d3", &acct, CAPS).await.unwrap(), None);
        i.discard("d3").await.unwrap();
        assert!(
            i.get(&t, "d3").await.unwrap().is_some(),
            "a run that computed is kept"
        );
    })
    .await;
}

#[tokio::test]
async fn intelligence_is_switched_off_per_tenant_and_seller() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let i = f.store.intelligence();
        assert!(i.opt_outs(&t).await.unwrap().is_empty(), "on by default");
        assert!(
            i.set_enrolled(&t, 3, false, Some("pilot ended"), "admin")
                .await
                .unwrap()
        );
        assert!(
            !i.set_enrolled(&t, 3, false, None, "admin").await.unwrap(),
            "already off"
        );
        let off = i.opt_outs(&t).await.unwrap();
        assert_eq!(
            (off[0].seller_id, off[0].reason.as_deref()),
            (3, Some("pilot ended"))
        );
        assert!(i.opt_outs(&other).await.unwrap().is_empty());
        assert!(i.set_enrolled(&t, 3, true, None, "admin").await.unwrap());
        assert!(i.opt_outs(&t).await.unwrap().is_empty());
    })
    .await;
}

//! Events and webhook deliveries: an appended event is read back in order, filtered by the
//! reader's scopes, its types and time, and never by another tenant; every enabled endpoint that
//! wants the type gets exactly one delivery and one job with the event, whichever instance
//! appended it; a disabled or uninterested endpoint gets none; attempts move a delivery and its
//! endpoint's failure record; a rotation keeps the old secret until its grace ends; a replay is a
//! new delivery of the same event.

use pp_core::events::{ADS_WRITE_COMMITTED, REPORT_DONE, SYNC_FINISHED};
use pp_store::events::{EventQuery, NewEvent};
use pp_store::webhooks::{Attempt, DeliveryStatus, NewEndpoint, Replay};
use serde_json::json;

use crate::{Fixture, each_engine};

/// A payload of the tests' own (the feed stores whatever a service's typed payload made).
struct Raw {
    kind: &'static pp_core::events::EventType,
    subject: serde_json::Value,
    data: serde_json::Value,
}

impl pp_core::events::Event for Raw {
    fn kind(&self) -> &'static pp_core::events::EventType {
        self.kind
    }
    fn subject(&self) -> serde_json::Value {
        self.subject.clone()
    }
    fn data(&self) -> serde_json::Value {
        self.data.clone()
    }
}

/// An event of `kind` with any payload.
fn raw(
    kind: &'static pp_core::events::EventType,
    subject: serde_json::Value,
    data: serde_json::Value,
) -> NewEvent {
    NewEvent::of(&Raw {
        kind,
        subject,
        data,
    })
}

fn endpoint(types: &[&str]) -> NewEndpoint {
    NewEndpoint {
        id: pp_store::random_id("we_", 12).unwrap(),
        url: "https://hooks.example/in".into(),
        description: "ops".into(),
        types: types.iter().map(|t| t.to_string()).collect(),
        secret: vec![1, 2, 3],
        created_by: "person:ana".into(),
        credential_id: None,
    }
}

fn query(scopes: &[&str]) -> EventQuery {
    EventQuery {
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        limit: 100,
        ..Default::default()
    }
}

#[tokio::test]
async fn the_feed_is_ordered_scoped_and_the_tenants_own() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let ev = f.store.events();
        let a = ev
            .append(
                &t,
                raw(&ADS_WRITE_COMMITTED, json!({"planId": "p1"}), json!({})),
            )
            .await
            .unwrap();
        let b = ev
            .append(
                &t,
                raw(&REPORT_DONE, json!({"reportId": "r1"}), json!({"n": 1})),
            )
            .await
            .unwrap();
        ev.append(&other, raw(&SYNC_FINISHED, json!({}), json!({})))
            .await
            .unwrap();
        assert!(a.seq < b.seq && a.id.starts_with("evt_"));
        let all = ev
            .list(&t, &query(&["ads:read", "retail:read", "account:read"]))
            .await
            .unwrap();
        assert_eq!(
            all.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            [a.id.as_str(), b.id.as_str()]
        );
        assert_eq!(all[1].data, json!({"n": 1}));
        let ads_only = ev.list(&t, &query(&["ads:read"])).await.unwrap();
        assert_eq!(ads_only.len(), 1, "a retail event is not an ads reader's");
        assert!(ev.list(&t, &query(&[])).await.unwrap().is_empty());
        let after = EventQuery {
            after_seq: Some(a.seq),
            ..query(&["ads:read", "retail:read"])
        };
        assert_eq!(ev.list(&t, &after).await.unwrap()[0].id, b.id);
        let typed = EventQuery {
            types: vec!["report.*".into()],
            ..query(&["ads:read", "retail:read"])
        };
        assert_eq!(ev.list(&t, &typed).await.unwrap()[0].id, b.id);
        let later = EventQuery {
            since_ms: Some(b.at_ms + 1),
            ..query(&["ads:read", "retail:read"])
        };
        assert!(ev.list(&t, &later).await.unwrap().is_empty());
        assert!(
            ev.get(&other, &a.id).await.unwrap().is_none(),
            "another tenant's event"
        );
        assert_eq!(ev.by_id(&a.id).await.unwrap().unwrap(), a);

        // appended twice under one key, it is one event
        let once = || raw(&REPORT_DONE, json!({}), json!({})).once("report:r9:done");
        let first = ev.append(&t, once()).await.unwrap();
        let again = f
            .second_instance()
            .await
            .events()
            .append(&t, once())
            .await
            .unwrap();
        assert_eq!(first, again);
        let elsewhere = ev.append(&other, once()).await.unwrap();
        assert_ne!(elsewhere.id, first.id, "the key is the tenant's own");
    })
    .await;
}

#[tokio::test]
async fn each_wanting_endpoint_gets_one_delivery_and_one_job() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let hooks = f.store.webhooks();
        let ads = hooks
            .create(&t, endpoint(&["ads.*"]), 3)
            .await
            .unwrap()
            .unwrap();
        let everything = hooks
            .create(&t, endpoint(&["*"]), 3)
            .await
            .unwrap()
            .unwrap();
        let off = hooks
            .create(&t, endpoint(&["*"]), 3)
            .await
            .unwrap()
            .unwrap();
        assert!(
            hooks
                .create(&t, endpoint(&["*"]), 3)
                .await
                .unwrap()
                .is_none(),
            "a fourth"
        );
        assert!(
            hooks
                .set_enabled(&t, &off.id, false, Some("paused"))
                .await
                .unwrap()
        );
        let second = f.second_instance().await;
        let e = second
            .events()
            .append(&t, raw(&ADS_WRITE_COMMITTED, json!({}), json!({})))
            .await
            .unwrap();
        let r = f
            .store
            .events()
            .append(&t, raw(&REPORT_DONE, json!({}), json!({})))
            .await
            .unwrap();
        let to_ads = hooks.deliveries(&t, &ads.id, None, 10).await.unwrap();
        let to_all = hooks
            .deliveries(&t, &everything.id, None, 10)
            .await
            .unwrap();
        assert_eq!(to_ads.len(), 1);
        assert_eq!(to_ads[0].event_id, e.id);
        assert_eq!(to_all.len(), 2);
        assert!(
            hooks
                .deliveries(&t, &off.id, None, 10)
                .await
                .unwrap()
                .is_empty()
        );
        let job = f
            .store
            .jobs()
            .get(&t, &to_ads[0].job_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            job.kind,
            <pp_store::webhooks::DeliveryJob as pp_store::jobs::BackgroundJob>::KIND
        );
        assert_eq!(job.input["delivery"], json!(to_ads[0].id));
        assert_eq!(to_all[0].event_id, r.id, "newest first");

        // a failed attempt starts the endpoint's failure record; a success clears it
        let d = &to_ads[0];
        let failing = hooks
            .record(
                d,
                Attempt {
                    at_ms: 1000,
                    status: Some(500),
                    error: Some("HTTP 500".into()),
                    duration_ms: 3,
                },
                DeliveryStatus::Pending,
            )
            .await
            .unwrap();
        assert_eq!(failing, Some(1000));
        let d = hooks.delivery(&d.id).await.unwrap().unwrap();
        assert_eq!((d.attempts, d.last_status), (1, Some(500)));
        let failing = hooks
            .record(
                &d,
                Attempt {
                    at_ms: 2000,
                    status: Some(200),
                    error: None,
                    duration_ms: 2,
                },
                DeliveryStatus::Delivered,
            )
            .await
            .unwrap();
        assert_eq!(failing, None);
        let d = hooks.delivery(&d.id).await.unwrap().unwrap();
        assert_eq!(
            (d.status, d.delivered_ms),
            (DeliveryStatus::Delivered, Some(2000))
        );
        assert_eq!(hooks.attempts(&d.id).await.unwrap().len(), 2);

        // a replay is a new delivery of the same event, with its own job
        let again = hooks.replay(&t, &d.id, 3).await.unwrap().unwrap();
        let Replay::Made(again) = again else {
            panic!("the first replay makes a delivery: {again:?}")
        };
        assert_ne!(again.id, d.id);
        assert_eq!(
            (again.event_id.as_str(), again.replay_of.as_deref()),
            (e.id.as_str(), Some(d.id.as_str()))
        );
        // issue 66, finding 8: while it waits, replaying the same delivery answers it (the
        // old main made a new delivery each time: 300 replays sent 300 POSTs)
        for _ in 0..5 {
            let same = hooks.replay(&t, &d.id, 3).await.unwrap().unwrap();
            assert_eq!(same, Replay::Pending(again.clone()));
        }
        let other = f.tenant("beta").await;
        assert!(
            hooks.replay(&other, &d.id, 3).await.unwrap().is_none(),
            "another tenant's delivery"
        );
    })
    .await;
}

#[tokio::test]
async fn a_rotation_keeps_the_old_secret_for_its_grace() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let hooks = f.store.webhooks();
        let e = hooks
            .create(&t, endpoint(&["*"]), 3)
            .await
            .unwrap()
            .unwrap();
        assert!(hooks.rotate(&t, &e.id, vec![9, 9], 5000).await.unwrap());
        let e = hooks.get(&t, &e.id).await.unwrap().unwrap();
        assert_eq!(e.secret, vec![9, 9]);
        assert_eq!(
            (e.previous_secret, e.previous_until_ms),
            (Some(vec![1, 2, 3]), Some(5000))
        );
        let other = f.tenant("beta").await;
        assert!(!hooks.rotate(&other, &e.id, vec![0], 1).await.unwrap());
        assert!(hooks.get(&other, &e.id).await.unwrap().is_none());
        assert!(!hooks.delete(&other, &e.id).await.unwrap());
        assert!(hooks.delete(&t, &e.id).await.unwrap());
        assert!(hooks.list(&t).await.unwrap().is_empty());
    })
    .await;
}

/// Issue 66, finding 2: deliveries went on after the registering credential was revoked.
/// Reproduced on the old main against the release binary. Ending the access that registered
/// an endpoint disables it, with an event, once; an endpoint a console admin registered
/// (no credential) stays.
#[tokio::test]
async fn ending_an_access_disables_the_endpoints_it_registered_with_an_event() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let hooks = f.store.webhooks();
        let by_token = hooks
            .create(
                &t,
                NewEndpoint {
                    credential_id: Some("cred_x".into()),
                    ..endpoint(&["ads.*"])
                },
                5,
            )
            .await
            .unwrap()
            .unwrap();
        let by_console = hooks
            .create(&t, endpoint(&["*"]), 5)
            .await
            .unwrap()
            .unwrap();
        let whose = pp_store::approvals::Whose::Credential("cred_x");
        let off = hooks
            .disable_registered(&whose, "admin@acme", "credential cred_x was revoked")
            .await
            .unwrap();
        assert_eq!(off.len(), 1, "{}", f.engine);
        assert_eq!(off[0].id, by_token.id);
        let row = hooks.get(&t, &by_token.id).await.unwrap().unwrap();
        assert!(!row.enabled);
        assert!(row.disabled_reason.unwrap().contains("revoked"));
        assert!(
            hooks
                .get(&t, &by_console.id)
                .await
                .unwrap()
                .unwrap()
                .enabled
        );
        let told = f
            .store
            .events()
            .list(&t, &query(&["account:read"]))
            .await
            .unwrap();
        assert_eq!(told.len(), 1);
        assert_eq!(told[0].kind, "webhook.endpoint.disabled");
        assert_eq!(told[0].subject["endpointId"], by_token.id.as_str());
        assert_eq!(told[0].data["by"], "admin@acme");
        // once: a second revocation finds nothing enabled
        let again = hooks
            .disable_registered(&whose, "admin@acme", "again")
            .await
            .unwrap();
        assert!(again.is_empty());
    })
    .await;
}

//! Warehouse sync's rows: a managed warehouse is recorded once; each (merchant, dataset) gets
//! one row and one live job however often it is asked for, from either instance; progress
//! replaces what it names and keeps the rest; waking moves only that tenant's waiting jobs.

use pp_store::jobs::{BackgroundJob, JobStatus};
use pp_store::sync::{Progress, Wanted};
use serde_json::json;

use crate::{Fixture, each_engine};

/// A dataset's job, as the sync service queues it.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct SyncDataset {
    seller_id: i64,
    dataset: String,
}

impl BackgroundJob for SyncDataset {
    const KIND: &'static str = "warehouse_sync";

    fn merchant(&self) -> Option<String> {
        Some("A1".into())
    }
}

fn wanted(seller_id: i64, dataset: &str) -> Wanted {
    let job = SyncDataset {
        seller_id,
        dataset: dataset.into(),
    };
    Wanted {
        seller_id,
        dataset: dataset.into(),
        merchant: "A1".into(),
        job: job.new_job().unwrap(),
    }
}

#[tokio::test]
async fn each_dataset_has_one_row_and_one_live_job() {
    each_engine(async |f: Fixture| {
        let (t, other) = (f.tenant("acme").await, f.tenant("beta").await);
        let s = f.store.sync();
        assert_eq!(s.loader(&t).await.unwrap(), None, "external until managed");
        assert!(s.manage(&t, "sqlite:/tmp/w.sqlite").await.unwrap());
        assert!(!s.manage(&t, "sqlite:/elsewhere").await.unwrap());
        assert_eq!(
            s.loader(&t).await.unwrap().as_deref(),
            Some("sqlite:/tmp/w.sqlite")
        );
        let first = s
            .ensure(&t, vec![wanted(1, "sales"), wanted(1, "ads")])
            .await
            .unwrap();
        assert_eq!(first.len(), 2);
        let second = f.second_instance().await;
        let again = second
            .sync()
            .ensure(&t, vec![wanted(1, "sales"), wanted(2, "sales")])
            .await
            .unwrap();
        assert_eq!(again.len(), 1, "only the new merchant's dataset gets a job");
        let rows = s.list(&t).await.unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].state, "backfilling");
        assert!(s.list(&other).await.unwrap().is_empty());

        s.record(
            &t,
            1,
            "sales",
            Progress {
                data_through: Some("2026-11-27".into()),
                covered_from: Some("2024-11-28".into()),
                loaded: Some(42),
                error: Some(Some(json!({"error": {"code": "throttled"}}))),
                ..Progress::default()
            },
        )
        .await
        .unwrap();
        s.record(
            &t,
            1,
            "sales",
            Progress {
                state: Some("synced".into()),
                error: Some(None),
                ..Progress::default()
            },
        )
        .await
        .unwrap();
        let r = s.get(&t, 1, "sales").await.unwrap().unwrap();
        assert_eq!(r.state, "synced");
        assert_eq!(r.data_through.as_deref(), Some("2026-11-27"));
        assert_eq!(r.last_rows, Some(42));
        assert!(r.last_success_ms.is_some());
        assert_eq!(r.last_error, None, "cleared");

        // a job that ended gets a successor; a live one is left alone
        let job = f.store.jobs().get(&t, &r.job_id).await.unwrap().unwrap();
        assert_eq!(job.status, JobStatus::Queued);
        assert!(f.store.jobs().cancel(&t, &r.job_id).await.unwrap());
        let revived = s.ensure(&t, vec![wanted(1, "sales")]).await.unwrap();
        assert_eq!(revived.len(), 1);
        assert_ne!(revived[0], r.job_id);
        assert_eq!(
            s.get(&t, 1, "sales").await.unwrap().unwrap().job_id,
            revived[0]
        );
        // waking moves the tenant's waiting jobs, and no one else's
        assert_eq!(s.wake(&other, None).await.unwrap(), 0);
        let _ = s.wake(&t, Some(1)).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_connection_added_outside_the_server_queues_one_adoption() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let s = f.store.sync();
        assert!(
            !s.request_adopt(&t).await.unwrap(),
            "an external warehouse is not the sync's to fill"
        );
        s.manage(&t, "sqlite:/tmp/w.sqlite").await.unwrap();
        assert!(s.request_adopt(&t).await.unwrap());
        let second = f.second_instance().await;
        assert!(second.sync().request_adopt(&t).await.unwrap());
        let queue = f.store.jobs().queue().await.unwrap();
        let adoptions: Vec<_> = queue
            .iter()
            .filter(|q| q.kind == <pp_store::sync::AdoptJob as BackgroundJob>::KIND)
            .collect();
        assert_eq!(adoptions.len(), 1, "{queue:?}");
        assert_eq!(
            (adoptions[0].status, adoptions[0].count),
            (JobStatus::Queued, 1),
            "one waiting adoption however often it is asked for"
        );
    })
    .await;
}

/// Issue 66, finding 7: a start brings forward only datasets between runs, once. Reproduced
/// on the old main against the release binary: 50 starts in a second moved every waiting
/// dataset, mid-run ones too, each start again, and the polls spent the provider's quota.
#[tokio::test]
async fn a_start_wakes_only_datasets_between_runs_and_only_once() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let s = f.store.sync();
        s.manage(&t, "sqlite:/tmp/w.sqlite").await.unwrap();
        s.ensure(
            &t,
            vec![wanted(1, "sales"), wanted(1, "ads"), wanted(1, "inventory")],
        )
        .await
        .unwrap();
        let later = pp_store::jobs::now_ms() + 3_600_000;
        for (name, state) in [
            ("sales", "synced"),
            ("ads", "backfilling"),
            ("inventory", "failing"),
        ] {
            s.record(
                &t,
                1,
                name,
                Progress {
                    state: Some(state.into()),
                    ..Progress::default()
                },
            )
            .await
            .unwrap();
        }
        // each job steps once and waits an hour, as a dataset between slices or runs does
        for _ in 0..3 {
            let job = f
                .store
                .jobs()
                .claim("w", 60_000, 10)
                .await
                .unwrap()
                .unwrap();
            let wait = pp_store::jobs::Outcome::Continue {
                state: json!({}),
                done: 0,
                run_after: later,
            };
            assert!(
                f.store
                    .jobs()
                    .finish_step(&job.id, "w", &wait, &[], None)
                    .await
                    .unwrap()
            );
        }
        assert_eq!(
            s.wake_idle(&t, None).await.unwrap(),
            2,
            "synced and failing ({})",
            f.engine
        );
        for _ in 0..5 {
            assert_eq!(s.wake_idle(&t, None).await.unwrap(), 0, "already due");
        }
        let mid_run = s.get(&t, 1, "ads").await.unwrap().unwrap().job_id;
        let job = f.store.jobs().get(&t, &mid_run).await.unwrap().unwrap();
        assert_eq!(job.run_after, later, "the backfill keeps its pace");
    })
    .await;
}

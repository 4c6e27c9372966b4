//! Forecast batches: optimistic versions checked and written in one transaction, the home
//! login claimed once, reads by prefix in bytewise key order, and writers racing on two
//! instances never losing a write.

use pp_core::{Error, Kind};
use pp_store::Store;
use pp_store::forecast::{DocWrite, Home, Plan, RevisionWrite, StoredDoc};

use crate::{Fixture, each_engine};

fn home(login: &str) -> Option<Home> {
    Some(Home {
        database: "acme".into(),
        login: login.into(),
        at: "2026-11-24T00:00:00Z".into(),
    })
}

/// The merchant scope a test key `fb:x:src:acme:<m>…` belongs to.
fn scope_of(key: &str) -> String {
    let m = key
        .trim_start_matches("fb:x:src:acme:")
        .split([':', ';'])
        .next()
        .unwrap_or("");
    format!("src:acme:{m}")
}

/// A planner like the forecast crate's, reduced: each key must be at `expected`; writes bump it
/// and log one revision each.
fn bump(
    keys: &[String],
    expected: &[i64],
    who: &str,
) -> impl FnOnce(Vec<Option<StoredDoc>>) -> pp_core::Result<(Plan, Vec<i64>)> + Send + 'static {
    let (keys, expected, who) = (keys.to_vec(), expected.to_vec(), who.to_owned());
    move |stored| {
        let mut plan = Plan::default();
        let mut versions = Vec::new();
        for ((k, e), s) in keys.iter().zip(&expected).zip(stored) {
            let scope = scope_of(k);
            let actual = s
                .as_ref()
                .filter(|s| s.doc.is_some())
                .map_or(0, |s| s.version);
            if actual != *e {
                return Err(Error::new(
                    Kind::Conflict,
                    format!("{k}: expected {e}, found {actual}"),
                ));
            }
            let version = actual + 1;
            plan.docs.push(DocWrite {
                key: k.clone(),
                kind: "override".into(),
                scope_id: scope.clone(),
                month: None,
                version,
                doc: Some(format!("{{\"by\":\"{who}\",\"v\":{version}}}")),
                created_at: "t".into(),
                updated_at: "t".into(),
                updated_by: who.clone(),
            });
            plan.revisions.push(RevisionWrite {
                key: k.clone(),
                scope_id: scope,
                month: None,
                field: "v".into(),
                before: Some(actual.to_string()),
                after: Some(version.to_string()),
                version,
                reason: None,
                actor: who.clone(),
                created_at: "t".into(),
            });
            versions.push(version);
        }
        Ok((plan, versions))
    }
}

#[tokio::test]
async fn versions_are_checked_homes_claimed_and_prefixes_read_bytewise() {
    each_engine(async |f: Fixture| {
        let fc = f.store.forecast();
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let k = keys(&[
            "fb:x:src:acme:1",
            "fb:x:src:acme:10",
            "fb:x:src:acme:1:scope:a",
            "fb:x:src:acme:1;",
        ]);
        assert_eq!(
            fc.apply(
                "acme",
                home("svc:a"),
                k.clone(),
                bump(&k, &[0, 0, 0, 0], "svc:a")
            )
            .await
            .unwrap(),
            [1, 1, 1, 1]
        );
        let stale = fc
            .apply(
                "acme",
                home("svc:a"),
                k[..1].to_vec(),
                bump(&k[..1], &[0], "svc:a"),
            )
            .await;
        assert_eq!(stale.unwrap_err().kind, Kind::Conflict, "{}", f.engine);
        let elsewhere = fc
            .apply(
                "acme",
                home("svc:b"),
                k[..1].to_vec(),
                bump(&k[..1], &[1], "svc:b"),
            )
            .await;
        assert_eq!(
            elsewhere.unwrap_err().kind,
            Kind::StateHomeElsewhere,
            "{}",
            f.engine
        );
        let page: Vec<String> = fc
            .docs("acme", "fb:x:src:acme:1", None, None, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|d| d.key)
            .collect();
        assert_eq!(
            page,
            ["fb:x:src:acme:1", "fb:x:src:acme:1:scope:a"],
            "{}",
            f.engine
        );
        let after: Vec<String> = fc
            .docs("acme", "fb:x:src:acme:1", None, Some("fb:x:src:acme:1"), 10)
            .await
            .unwrap()
            .into_iter()
            .map(|d| d.key)
            .collect();
        assert_eq!(after, ["fb:x:src:acme:1:scope:a"]);
        assert_eq!(
            fc.doc("acme", "fb:x:src:acme:10")
                .await
                .unwrap()
                .unwrap()
                .version,
            1
        );
        assert!(
            fc.doc("beta", "fb:x:src:acme:10").await.unwrap().is_none(),
            "tenants never see each other"
        );
        let log = fc
            .revisions("acme", "src:acme:1", None, 0, 100)
            .await
            .unwrap();
        assert_eq!(
            log.len(),
            3,
            "key 1, its scope and the ';' key ({})",
            f.engine
        );
        assert_eq!(
            fc.revisions("acme", "src:acme:1", None, log[1].id, 100)
                .await
                .unwrap()
                .len(),
            1
        );
    })
    .await;
}

/// Eight writers on two instances, 25 rounds each, over three shared keys: every accepted
/// write is in the log once, and each key's versions run 1, 2, 3 … without a gap.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_writers_on_two_instances_lose_nothing() {
    each_engine(async |f: Fixture| {
        let other = f.second_instance().await;
        let keys: Vec<String> = (0..3).map(|i| format!("fb:x:src:acme:{i}")).collect();
        let writers = (0..8).map(|w| {
            let s: Store = if w % 2 == 0 {
                f.store.clone()
            } else {
                other.clone()
            };
            let keys = keys.clone();
            tokio::spawn(async move {
                let mut accepted = 0;
                for round in 0..25 {
                    let k = vec![keys[(w + round) % 3].clone()];
                    let seen = s
                        .forecast()
                        .doc("acme", &k[0])
                        .await
                        .unwrap()
                        .map_or(0, |d| d.version);
                    if s.forecast()
                        .apply(
                            "acme",
                            home("svc:a"),
                            k.clone(),
                            bump(&k, &[seen], &format!("w{w}")),
                        )
                        .await
                        .is_ok()
                    {
                        accepted += 1;
                    }
                }
                accepted
            })
        });
        let accepted: i64 = futures_util::future::join_all(writers)
            .await
            .into_iter()
            .map(|r| r.unwrap())
            .sum();
        assert!(accepted > 0);
        let mut logged = 0;
        for k in &keys {
            let log = f
                .store
                .forecast()
                .revisions("acme", &scope_of(k), None, 0, 10_000)
                .await
                .unwrap();
            let versions: Vec<i64> = log.iter().map(|r| r.version).collect();
            let last = f
                .store
                .forecast()
                .doc("acme", k)
                .await
                .unwrap()
                .map_or(0, |d| d.version);
            assert_eq!(
                versions,
                (1..=last).collect::<Vec<_>>(),
                "{k} on {}",
                f.engine
            );
            logged += versions.len() as i64;
        }
        assert_eq!(
            logged, accepted,
            "every accepted write is in the log once ({})",
            f.engine
        );
    })
    .await;
}

//! Brand memory: documents written at the revision read, lifecycle changes with their event,
//! corroborations, and the timeline's filters (JSON lists included) on both engines.

use pp_store::brand::{Author, Corroborated, DocPut, LifecycleSet, NewEvent, Put, TimelineQuery};
use serde_json::json;

use crate::{Fixture, each_engine};

fn by() -> Author {
    Author {
        actor: "svc:t".into(),
        surface: "api".into(),
    }
}

fn doc(base: i64, content: &str) -> DocPut {
    DocPut {
        brand: "alpha".into(),
        kind: "overview".into(),
        name: String::new(),
        base_revision: base,
        content: content.into(),
        hash: format!("h-{content}"),
    }
}

fn event(kind: &str, day: &str, affects: &[&str], tags: &[&str]) -> NewEvent {
    NewEvent {
        brand: "alpha".into(),
        kind: kind.into(),
        occurred_on: day.into(),
        source: "api".into(),
        affects: affects.iter().map(|s| s.to_string()).collect(),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        payload: json!({}),
        ..NewEvent::default()
    }
}

#[tokio::test]
async fn documents_are_written_only_at_the_revision_read() {
    each_engine(async |f: Fixture| {
        let b = f.store.brand();
        assert_eq!(
            b.put_doc("t", doc(0, "one"), by()).await.unwrap(),
            Put::Written(1)
        );
        assert_eq!(
            b.put_doc("t", doc(0, "two"), by()).await.unwrap(),
            Put::Stale(1),
            "{}",
            f.engine
        );
        assert_eq!(
            b.put_doc("t", doc(1, "one"), by()).await.unwrap(),
            Put::Unchanged(1)
        );
        assert_eq!(
            b.put_doc("t", doc(1, "two"), by()).await.unwrap(),
            Put::Written(2)
        );
        assert_eq!(
            b.doc("t", "alpha", "overview", "")
                .await
                .unwrap()
                .unwrap()
                .content,
            "two"
        );
        assert!(b.doc("u", "alpha", "overview", "").await.unwrap().is_none());
        assert_eq!(b.doc_summaries("t").await.unwrap().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn lifecycle_changes_corroborations_and_filters() {
    each_engine(async |f: Fixture| {
        let b = f.store.brand();
        let retire = b
            .set_lifecycle(
                "t",
                "alpha",
                "retired",
                Some("duplicate".into()),
                event("structural.brand_retired", "", &[], &[]),
                by(),
            )
            .await
            .unwrap();
        let LifecycleSet::Changed { at, event_id } = retire else {
            panic!("{retire:?}")
        };
        assert!(matches!(
            b.set_lifecycle(
                "t",
                "alpha",
                "retired",
                None,
                event("x", "", &[], &[]),
                by()
            )
            .await
            .unwrap(),
            LifecycleSet::Unchanged { at: Some(_) }
        ));
        assert_eq!(
            b.event("t", event_id).await.unwrap().unwrap().occurred_on,
            at[..10],
            "{}",
            f.engine
        );
        assert_eq!(b.lifecycles("t").await.unwrap()[0].state, "retired");
        let stake = NewEvent {
            closes_on: Some("2026-12-01".into()),
            status: Some("proposed".into()),
            starts_on: Some("2026-11-01".into()),
            ..event("stake", "2026-11-01", &["sales", "units"], &["demo"])
        };
        let id = b.append("t", stake, by()).await.unwrap();
        b.append(
            "t",
            event("comment", "2026-11-02", &["sessions"], &[]),
            by(),
        )
        .await
        .unwrap();
        let corr = b
            .corroborate(
                "t",
                id,
                "2027-02-01".into(),
                event("corroboration", "2026-11-03", &[], &[]),
                by(),
            )
            .await
            .unwrap();
        assert!(matches!(corr, Corroborated::Recorded(_)), "{}", f.engine);
        assert!(matches!(
            b.corroborate("t", 999_999, "x".into(), event("c", "d", &[], &[]), by())
                .await
                .unwrap(),
            Corroborated::NotFound
        ));
        assert!(matches!(
            b.corroborate("t", event_id, "x".into(), event("c", "d", &[], &[]), by())
                .await
                .unwrap(),
            Corroborated::NotAStake(_)
        ));
        let s = b.event("t", id).await.unwrap().unwrap();
        assert_eq!(
            (s.status.as_deref(), s.closes_on.as_deref()),
            (Some("corroborated"), Some("2027-02-01"))
        );
        let q = |f: fn(&mut TimelineQuery)| {
            let mut q = TimelineQuery {
                today: "2026-11-24".into(),
                limit: 50,
                ..TimelineQuery::default()
            };
            f(&mut q);
            q
        };
        let kinds = async |q: TimelineQuery| -> Vec<String> {
            b.timeline("t", &q)
                .await
                .unwrap()
                .into_iter()
                .map(|e| e.kind)
                .collect()
        };
        assert_eq!(
            kinds(q(|q| q.affects = Some("units".into()))).await,
            ["stake"],
            "{}",
            f.engine
        );
        assert_eq!(
            kinds(q(|q| q.affects = Some("unit".into()))).await,
            Vec::<String>::new(),
            "{}",
            f.engine
        );
        assert_eq!(kinds(q(|q| q.tag = Some("demo".into()))).await, ["stake"]);
        assert_eq!(
            kinds(q(|q| q.status = Some("corroborated".into()))).await,
            ["stake"]
        );
        assert_eq!(
            kinds(q(|q| {
                q.start = Some("2026-11-02".into());
                q.end = Some("2026-11-10".into());
            }))
            .await,
            ["corroboration", "comment"]
        );
        let all = b.timeline("t", &q(|_| {})).await.unwrap();
        let after = q(|_| {});
        let after = TimelineQuery {
            after: Some((all[0].occurred_on.clone(), all[0].id)),
            ..after
        };
        assert_eq!(b.timeline("t", &after).await.unwrap().len(), all.len() - 1);
        assert!(
            b.timeline("u", &q(|_| {})).await.unwrap().is_empty(),
            "tenants never see each other"
        );
    })
    .await;
}

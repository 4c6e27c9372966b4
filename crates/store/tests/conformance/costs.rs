//! Profit's tenant data: a cost batch lands whole with one audit row per change or not at
//! all, sending it again changes and logs nothing, rates are replaced only where they differ,
//! and every tenant's rows are its own.

use pp_store::costs::{Cost, CostKey, Rate};

use crate::{Fixture, each_engine};

fn key(sku: &str, from: &str) -> CostKey {
    CostKey {
        seller_id: "A2DEMOSELLER01".into(),
        marketplace_id: "ATVPDKIKX0DER".into(),
        sku: sku.into(),
        valid_from: from.into(),
    }
}

fn cost(unit: i64) -> Cost {
    Cost {
        currency: "USD".into(),
        unit_cents: unit,
        freight_cents: 40,
        duties_cents: 0,
    }
}

#[tokio::test]
async fn a_cost_batch_lands_whole_or_not_at_all_and_every_change_is_logged() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("acme").await, f.tenant("beta").await);
        let c = f.store.costs();
        let put = vec![
            (key("A", "2026-01-01"), cost(500)),
            (key("A", "2026-06-01"), cost(550)),
            (key("B", "2026-01-01"), cost(900)),
        ];
        let w = c
            .write(
                &a,
                put.clone(),
                vec![],
                "ana@acme.example",
                Some("invoice 1".into()),
            )
            .await
            .unwrap();
        assert_eq!((w.added, w.changed, w.unchanged), (3, 0, 0), "{}", f.engine);
        let again = c
            .write(&a, put, vec![], "ana@acme.example", None)
            .await
            .unwrap();
        assert_eq!(
            (again.added, again.changed, again.unchanged),
            (0, 0, 3),
            "{}",
            f.engine
        );
        assert_eq!(
            c.changes(&a, None, 100).await.unwrap().len(),
            3,
            "an unchanged batch logs nothing"
        );
        // a batch whose removal names a missing period writes nothing of its own
        let e = c
            .write(
                &a,
                vec![(key("A", "2026-01-01"), cost(999))],
                vec![key("C", "2026-01-01")],
                "bo@acme.example",
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(e.kind, pp_core::Kind::NotFound, "{}", f.engine);
        let held = c.periods(&a, None, Some("A")).await.unwrap();
        assert_eq!(
            held[0].cost.unit_cents, 500,
            "the batch's change was rolled back ({})",
            f.engine
        );
        assert_eq!(c.changes(&a, None, 100).await.unwrap().len(), 3);
        // a change and a removal, logged with before and after, newest first
        let w = c
            .write(
                &a,
                vec![(key("A", "2026-01-01"), cost(510))],
                vec![key("B", "2026-01-01")],
                "bo@acme.example",
                Some("new price".into()),
            )
            .await
            .unwrap();
        assert_eq!((w.changed, w.removed), (1, 1));
        let log = c.changes(&a, None, 2).await.unwrap();
        assert_eq!(log[0].subject, "A2DEMOSELLER01/ATVPDKIKX0DER/A@2026-01-01");
        assert_eq!(log[0].before.as_ref().unwrap()["unitCents"], 500);
        assert_eq!(log[0].after.as_ref().unwrap()["unitCents"], 510);
        assert_eq!(
            (log[0].actor.as_str(), log[0].reason.as_deref()),
            ("bo@acme.example", Some("new price"))
        );
        assert!(
            log[1].after.is_none(),
            "the removal has no after: {:?}",
            log[1]
        );
        let older = c.changes(&a, Some(log[1].id), 100).await.unwrap();
        assert_eq!(older.len(), 3, "paging goes on below the last id");
        assert!(
            c.periods(&b, None, None).await.unwrap().is_empty(),
            "another tenant's are its own"
        );
        assert!(c.changes(&b, None, 10).await.unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn rates_are_replaced_only_where_they_differ_and_the_reporting_currency_is_logged() {
    each_engine(async |f: Fixture| {
        let a = f.tenant("acme").await;
        let c = f.store.costs();
        let rate = |day: &str, v: i64| Rate {
            day: day.into(),
            currency: "CAD".into(),
            per_eur_e6: v,
        };
        let w = c
            .put_rates(
                &a,
                vec![rate("2026-12-03", 1_473_100), rate("2026-12-04", 1_470_000)],
                "ecb.csv".into(),
                "ana",
            )
            .await
            .unwrap();
        assert_eq!((w.added, w.changed), (2, 0), "{}", f.engine);
        let w = c
            .put_rates(
                &a,
                vec![rate("2026-12-03", 1_473_100), rate("2026-12-04", 1_471_000)],
                "ecb2.csv".into(),
                "ana",
            )
            .await
            .unwrap();
        assert_eq!((w.added, w.changed, w.unchanged), (0, 1, 1), "{}", f.engine);
        let held = c
            .rates(&a, Some("CAD"), "2026-12-01", "2026-12-31")
            .await
            .unwrap();
        assert_eq!(
            held.iter().map(|r| r.per_eur_e6).collect::<Vec<_>>(),
            [1_473_100, 1_471_000]
        );
        assert_eq!(
            c.rate_coverage(&a).await.unwrap(),
            vec![("CAD".into(), "2026-12-03".into(), "2026-12-04".into(), 2)]
        );
        let log = c.changes(&a, None, 10).await.unwrap();
        assert_eq!(log.len(), 2, "one row per import");
        assert_eq!(
            log[0].after.as_ref().unwrap()["changes"][0]["beforeE6"],
            1_470_000
        );
        assert_eq!(c.reporting_currency(&a).await.unwrap(), None);
        c.set_reporting_currency(&a, "CAD", "ana").await.unwrap();
        c.set_reporting_currency(&a, "CAD", "bo").await.unwrap();
        let (cur, by, _) = c.reporting_currency(&a).await.unwrap().unwrap();
        assert_eq!(
            (cur.as_str(), by.as_str()),
            ("CAD", "ana"),
            "setting it again changes nothing"
        );
        assert_eq!(c.changes(&a, None, 10).await.unwrap().len(), 3);
    })
    .await;
}

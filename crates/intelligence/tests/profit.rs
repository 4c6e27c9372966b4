//! `INS-PROFIT-01` against the world's truth (issue 68's must-holds): on the demo world and a
//! held-out seed, every settled SKU-month's and merchant-month's P&L lines equal the truth to
//! the cent in the merchant's currency and in the reporting currency (each amount converted on
//! its posted day); the days the transaction list does not show yet are estimated within the
//! tolerance docs/profit.md states, and replaced exactly once the world has moved on; a SKU
//! without a cost is named and its margins are null.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{Duration, NaiveDate};
use pp_intelligence::data::{self, Wh};
use pp_intelligence::engines::profit::{self, Profit};
use pp_intelligence::engines::{ForecastChoices, Input, StateStore};
use pp_intelligence::params::{
    ChangeChoices, Grain, Interval, Measure, MerchantRef, PacingChoices, Period, ProfitChoices,
    SpendBasis,
};
use pp_intelligence::profit::lines::{LINES, Line, Pnl};
use pp_intelligence::scope;
use pp_store::Store;
use pp_warehouse::Limits;
use pp_world::{GroundTruth, MERCHANTS};

struct World {
    wh: Wh,
    truth: GroundTruth,
    store: Store,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

const DEMO_SEED: u64 = 20_261_122;

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
}

/// A world with a tenant whose costs and rates are the world's own (the dev server's seed).
fn generate(seed: u64, scale: pp_world::Scale, today: NaiveDate) -> World {
    let dir = tempfile::tempdir().unwrap();
    let spec = pp_world::WorldSpec::new(seed, scale, today);
    let g = pp_world::generate_sqlite(&spec, &dir.path().join("w")).unwrap();
    let slots = Arc::new(tokio::sync::Semaphore::new(4));
    let engine = pp_warehouse::open(&format!("sqlite:{}", g.warehouse.display()), &slots).unwrap();
    let store = Store::open(&dir.path().join("state")).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tenant = pp_core::TenantId::parse("acme").unwrap();
    rt.block_on(async {
        store
            .tenants()
            .create(&tenant, "Acme", "sqlite:unused.sqlite")
            .await
            .unwrap();
        pp_profit::seed::from_world(&store, &tenant, &dir.path().join("w"))
            .await
            .unwrap();
    });
    World {
        wh: Wh::new(engine, &Limits::default()),
        truth: g.truth,
        store,
        rt,
        _dir: dir,
    }
}

fn input(w: &World, seller: i64, period: Option<Period>, choices: ProfitChoices) -> Input {
    let m = MERCHANTS.iter().find(|m| m.id == seller).unwrap();
    let r = MerchantRef {
        seller_id: Some(m.token.into()),
        marketplace_id: Some(m.marketplace_id.into()),
        brand: None,
    };
    let scope = w.rt.block_on(scope::resolve(&w.wh, &r)).unwrap();
    let table = data::retail_source(&scope).table;
    let data =
        w.rt.block_on(data::data_range(&w.wh, &scope, table))
            .unwrap()
            .unwrap();
    Input {
        scope,
        period,
        compare_period: None,
        month: None,
        grain: Grain::Campaign,
        top: 500,
        data,
        forecast: ForecastChoices {
            scope_key: None,
            measure: Measure::Revenue,
            spend_basis: SpendBasis::AdsOnly,
            horizon: 12,
        },
        state: StateStore {
            store: w.store.clone(),
            tenant: pp_core::TenantId::parse("acme").unwrap(),
        },
        change: ChangeChoices::default(),
        pacing: PacingChoices::default(),
        caller: None,
        profit: choices,
    }
}

/// The truth's name of a line.
fn truth_field(l: Line) -> &'static str {
    match l {
        Line::Sales => "sales",
        Line::Promotions => "promotions",
        Line::Refunds => "refunds",
        Line::ReferralFees => "referral_fees",
        Line::FulfillmentFees => "fulfillment_fees",
        Line::StorageFees => "storage_fees",
        Line::OtherFees => "other_fees",
        Line::Reimbursements => "reimbursements",
        Line::AdvertisingSp => "advertising_sp",
        Line::AdvertisingSb => "advertising_sb",
        Line::AdvertisingSd => "advertising_sd",
        Line::AdvertisingDsp => "advertising_dsp",
        Line::CostOfGoods => "cost_of_goods",
        Line::Inbound => "inbound",
        Line::Unclassified => "unclassified",
    }
}

/// Every P&L row of seller `seller` over the whole data, by SKU and month.
fn book(w: &World, seller: i64) -> BTreeMap<(Option<String>, String), Pnl> {
    let i = input(w, seller, None, ProfitChoices::default());
    let all = i.data;
    let (b, reporting) = w.rt.block_on(profit::books(&w.wh, &i, all)).unwrap();
    assert_eq!(reporting, "USD");
    assert!(
        b.uncosted.is_empty(),
        "the world's costs cover every sale: {:?}",
        b.uncosted.keys().take(3).collect::<Vec<_>>()
    );
    assert!(
        b.missing_rates.is_empty(),
        "{:?}",
        b.missing_rates.iter().take(3).collect::<Vec<_>>()
    );
    assert!(b.unclassified.is_empty(), "{:?}", b.unclassified);
    b.rows
}

/// Checks every settled month of the truth for the sellers; how many SKU-months it checked.
fn settled_months_equal_the_truth(w: &World) -> usize {
    let mut checked = 0;
    for seller in [1, 2, 3] {
        let rows = book(w, seller);
        for m in w
            .truth
            .economics
            .months
            .iter()
            .filter(|m| m.seller_id == seller && m.settled)
        {
            let key = (m.sku.clone(), m.month.clone());
            let got = rows.get(&key).copied().unwrap_or_default();
            let lines = serde_json::to_value(m.lines).unwrap();
            let reporting = serde_json::to_value(m.reporting).unwrap();
            for l in LINES.iter().filter(|l| **l != Line::Unclassified) {
                let c = &got.cells[l.index()];
                let f = truth_field(*l);
                assert_eq!(
                    (c.total(), c.reporting),
                    (lines[f].as_i64().unwrap(), reporting[f].as_i64()),
                    "seller {seller} {key:?} {f}"
                );
                assert_eq!(
                    c.by_origin[2], 0,
                    "a settled month has no estimate: {key:?} {f}"
                );
            }
            checked += usize::from(m.sku.is_some());
        }
    }
    checked
}

#[test]
fn every_settled_sku_month_of_the_demo_world_is_its_truth_to_the_cent_in_both_currencies() {
    let w = generate(DEMO_SEED, pp_world::Scale::Small, today());
    let checked = settled_months_equal_the_truth(&w);
    assert!(checked > 500, "{checked}");
}

#[test]
fn every_settled_sku_month_of_a_held_out_seed_is_its_truth_to_the_cent() {
    let w = generate(4_711, pp_world::Scale::Tiny, today());
    let checked = settled_months_equal_the_truth(&w);
    assert!(checked > 50, "{checked}");
}

/// The merchant's total of `line` over the days `p`, by origin.
fn lines_of(w: &World, seller: i64, p: Period) -> Pnl {
    let i = input(
        w,
        seller,
        Some(p),
        ProfitChoices {
            interval: Interval::Day,
            ..Default::default()
        },
    );
    let (b, _) = w.rt.block_on(profit::books(&w.wh, &i, p)).unwrap();
    let mut total = Pnl::default();
    for ((sku, _), row) in &b.rows {
        if sku.is_some() {
            total.merge(row);
        }
    }
    total
}

#[test]
fn days_not_listed_yet_are_estimated_within_the_tolerance_and_replaced_exactly_once_posted() {
    let later_today = today() + Duration::days(20);
    let after = generate(DEMO_SEED, pp_world::Scale::Small, later_today);
    // the world on two earlier days, against the later one
    for earlier in [today(), today() - Duration::days(9)] {
        estimates_hold(
            &generate(DEMO_SEED, pp_world::Scale::Small, earlier),
            &after,
            earlier,
        );
    }
    replaced_exactly(&after);
}

/// The last two days before `today` of `before` (not in its transaction list yet) against
/// what `after` posted for them.
fn estimates_hold(before: &World, after: &World, today: NaiveDate) {
    let lag = Period {
        start: today - Duration::days(2),
        end: today - Duration::days(1),
    };
    for seller in [1, 2, 3] {
        let est = lines_of(before, seller, lag);
        let real = lines_of(after, seller, lag);
        for l in [Line::Sales, Line::ReferralFees, Line::FulfillmentFees] {
            let c = &est.cells[l.index()];
            assert_eq!(
                c.by_origin[..2],
                [0, 0],
                "seller {seller} {l:?}: only estimated"
            );
            assert_ne!(c.by_origin[2], 0, "seller {seller} {l:?}");
        }
        for l in [
            Line::Sales,
            Line::ReferralFees,
            Line::FulfillmentFees,
            Line::CostOfGoods,
            Line::Inbound,
        ] {
            assert_eq!(
                real.cells[l.index()].by_origin[2],
                0,
                "posted by then: {l:?}"
            );
        }
        // (the units returned to stock on those days are in the returns report already)
        assert_ne!(est.cells[Line::CostOfGoods.index()].by_origin[2], 0);
        // the estimator against what the earlier world itself posts for those days (its truth
        // for the month, less what the list already showed), within 3% per line summed over
        // the merchant's days; and against what posts once the world has moved on, the last
        // days' ordered sales restating meanwhile, within 10% (docs/profit.md)
        let own = own_truth(before, seller, lag);
        let paid = |p: &Pnl| p.get(Line::Sales) + p.get(Line::Promotions) + p.get(Line::Refunds);
        let within = |e: i64, r: i64, share: f64, what: &str| {
            assert!(
                ((e - r).abs() as f64) <= share * r.abs() as f64,
                "seller {seller} {what}: estimated {e}, posted {r} (within {share})"
            );
        };
        let est_paid = est.cells[Line::Sales.index()].by_origin[2]
            + est.cells[Line::Refunds.index()].by_origin[2];
        within(est_paid, own[0], 0.03, "net sales, against the same world");
        within(paid(&est), paid(&real), 0.10, "net sales, once posted");
        for (k, l) in [
            Line::ReferralFees,
            Line::FulfillmentFees,
            Line::CostOfGoods,
            Line::Inbound,
        ]
        .into_iter()
        .enumerate()
        {
            let e = est.cells[l.index()].by_origin[2];
            within(
                e,
                own[k + 1],
                0.03,
                &format!("{l:?}, against the same world"),
            );
            within(
                est.get(l),
                real.get(l),
                0.10,
                &format!("{l:?}, once posted"),
            );
        }
    }
}

/// What the world's truth says its SKUs posted on the days `lag` (the month's truth less what
/// the product read as posted for the rest of the month): net sales, referral and fulfillment
/// fees, cost of goods and inbound, for the units sold (returns to stock left out).
fn own_truth(w: &World, seller: i64, lag: Period) -> [i64; 5] {
    let month = lag.start.format("%Y-%m").to_string();
    let first = NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").unwrap();
    let i = input(w, seller, None, ProfitChoices::default());
    let p = Period {
        start: first,
        end: lag.end,
    };
    let (b, _) = w.rt.block_on(profit::books(&w.wh, &i, p)).unwrap();
    let mut posted = Pnl::default();
    for ((sku, _), row) in &b.rows {
        if sku.is_some() {
            posted.merge(row);
        }
    }
    let mut truth = [0_i64; 5];
    for m in w
        .truth
        .economics
        .months
        .iter()
        .filter(|m| m.seller_id == seller && m.month == month && m.sku.is_some())
    {
        let l = &m.lines;
        truth[0] += l.sales + l.promotions + l.refunds;
        truth[1] += l.referral_fees;
        truth[2] += l.fulfillment_fees;
        truth[3] += l.cost_of_goods;
        truth[4] += l.inbound;
    }
    let seen = |line: Line| {
        let c = &posted.cells[line.index()];
        c.by_origin[0] + c.by_origin[1]
    };
    [
        truth[0] - seen(Line::Sales) - seen(Line::Promotions) - seen(Line::Refunds),
        truth[1] - seen(Line::ReferralFees),
        truth[2] - seen(Line::FulfillmentFees),
        truth[3] - seen(Line::CostOfGoods),
        truth[4] - seen(Line::Inbound),
    ]
}

/// Replaced exactly: the later world's month of those days is its truth, line by line.
fn replaced_exactly(after: &World) {
    let month = today().format("%Y-%m").to_string();
    for seller in [1, 2, 3] {
        let rows = book(after, seller);
        for m in after
            .truth
            .economics
            .months
            .iter()
            .filter(|m| m.seller_id == seller && m.month == month && m.sku.is_some())
        {
            let got = rows
                .get(&(m.sku.clone(), month.clone()))
                .copied()
                .unwrap_or_default();
            let lines = serde_json::to_value(m.lines).unwrap();
            for l in LINES.iter().filter(|l| **l != Line::Unclassified) {
                assert_eq!(
                    got.get(*l),
                    lines[truth_field(*l)].as_i64().unwrap(),
                    "seller {seller} {:?} {l:?}",
                    m.sku
                );
                assert_eq!(got.cells[l.index()].by_origin[2], 0);
            }
        }
    }
}

#[test]
fn a_sku_without_a_cost_is_named_and_its_margins_are_null_not_computed_on_zero() {
    let w = generate(4_711, pp_world::Scale::Tiny, today());
    let tenant = pp_core::TenantId::parse("acme").unwrap();
    let m = MERCHANTS.iter().find(|m| m.id == 1).unwrap();
    let periods =
        w.rt.block_on(
            w.store
                .costs()
                .periods(&tenant, Some((m.token, m.marketplace_id)), None),
        )
        .unwrap();
    let sku = periods[0].key.sku.clone();
    let remove: Vec<_> = periods
        .iter()
        .filter(|p| p.key.sku == sku)
        .map(|p| p.key.clone())
        .collect();
    w.rt.block_on(w.store.costs().write(&tenant, vec![], remove, "test", None))
        .unwrap();
    let p = Period {
        start: NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
        end: NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
    };
    let i = input(&w, 1, Some(p), ProfitChoices::default());
    let a = w.rt.block_on(profit::run(&w.wh, &i)).unwrap();
    let r: &Profit = &a.result;
    assert_eq!(
        r.missing_costs
            .iter()
            .map(|m| m.sku.as_str())
            .collect::<Vec<_>>(),
        [sku.as_str()]
    );
    assert!(r.missing_costs[0].units > 0);
    let item = r
        .items
        .iter()
        .find(|x| x.sku == sku)
        .expect("the SKU's row");
    assert!(item.cost_missing);
    for level in [
        &item.statement.cm1,
        &item.statement.cm2,
        &item.statement.cm3,
    ] {
        assert!(
            level.amount.is_none() && level.margin_pct.is_none(),
            "{level:?}"
        );
    }
    assert!(
        r.total.cm1.amount.is_none(),
        "a total it is part of is unknown too"
    );
    assert!(
        r.items
            .iter()
            .any(|x| !x.cost_missing && x.statement.cm3.amount.is_some())
    );
    let cogs = item
        .statement
        .lines
        .iter()
        .find(|l| l.line == Line::CostOfGoods)
        .unwrap();
    assert_eq!(cogs.amount, 0.0, "no cost was made up");
    assert!(
        a.limitations.iter().any(|l| l.contains("no cost covers")),
        "{:?}",
        a.limitations
    );
    let json = serde_json::to_value(r).unwrap();
    assert!(
        json["total"]["cm3"]["amount"].is_null(),
        "{}",
        json["total"]
    );
}

#[test]
fn every_settlement_of_the_demo_world_reconciles_to_its_deposit_to_the_cent() {
    use pp_intelligence::engines::payout;
    let w = generate(DEMO_SEED, pp_world::Scale::Small, today());
    let cents = |m: f64| (m * 100.0).round() as i64;
    let mut checked = 0;
    for seller in [1, 2, 3] {
        for s in w
            .truth
            .economics
            .settlements
            .iter()
            .filter(|s| s.seller_id == seller)
        {
            let choices = ProfitChoices {
                settlement_id: Some(s.id.clone()),
                ..Default::default()
            };
            let i = input(&w, seller, None, choices);
            let r = w.rt.block_on(payout::run(&w.wh, &i)).unwrap().result;
            assert!(r.reconciles, "{}: {:?}", s.id, r.steps);
            assert_eq!(
                (
                    cents(r.deposit),
                    cents(r.earlier_orders),
                    cents(r.advertising),
                    cents(r.reserve_released),
                    cents(r.reserve_held)
                ),
                (
                    s.deposit,
                    s.earlier_orders,
                    s.advertising,
                    s.reserve_released,
                    s.reserve_held
                ),
                "settlement {}",
                s.id
            );
            let truth = serde_json::to_value(s.lines).unwrap();
            for l in &r.lines {
                assert_eq!(
                    cents(l.amount),
                    truth[truth_field(l.line)].as_i64().unwrap_or(0),
                    "{} {:?}",
                    s.id,
                    l.line
                );
            }
            assert_eq!(
                cents(r.steps.last().unwrap().running),
                s.deposit,
                "the steps walk to the deposit"
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
    // without an id: the latest, and the list of the seller's settlements
    let r =
        w.rt.block_on(payout::run(
            &w.wh,
            &input(&w, 1, None, ProfitChoices::default()),
        ))
        .unwrap()
        .result;
    assert_eq!(r.settlement.settlement_id, r.settlements[0].settlement_id);
    let e =
        w.rt.block_on(payout::run(
            &w.wh,
            &input(
                &w,
                1,
                None,
                ProfitChoices {
                    settlement_id: Some("nope".into()),
                    ..Default::default()
                },
            ),
        ))
        .unwrap_err();
    assert_eq!(e.kind, pp_core::Kind::NotFound);
}

fn bridge(
    w: &World,
    seller: i64,
    period: Period,
    compare: Period,
) -> pp_intelligence::engines::profit_bridge::ProfitBridge {
    let mut i = input(w, seller, Some(period), ProfitChoices::default());
    i.compare_period = Some(compare);
    i.top = 5;
    w.rt.block_on(pp_intelligence::engines::profit_bridge::run(&w.wh, &i))
        .unwrap()
        .result
}

fn c(m: f64) -> i64 {
    (m * 100.0).round() as i64
}

#[test]
fn every_profit_bridges_parts_sum_to_its_change_to_the_cent() {
    let w = generate(DEMO_SEED, pp_world::Scale::Small, today());
    let d = |s: &str| s.parse::<NaiveDate>().unwrap();
    let pairs = [
        (("2026-10-01", "2026-10-31"), ("2026-09-01", "2026-09-30")),
        (("2026-07-01", "2026-09-30"), ("2026-04-01", "2026-06-30")),
        (("2025-12-01", "2025-12-31"), ("2024-12-01", "2024-12-31")),
        (("2026-11-01", "2026-11-21"), ("2026-10-11", "2026-10-31")),
    ];
    for seller in [1, 2, 3] {
        for ((a0, a1), (b0, b1)) in pairs {
            let (p, q) = (
                Period {
                    start: d(a0),
                    end: d(a1),
                },
                Period {
                    start: d(b0),
                    end: d(b1),
                },
            );
            let r = bridge(&w, seller, p, q);
            let label = format!("seller {seller} {a0}..{a1} against {b0}..{b1}");
            let reporting: i64 = r.parts.iter().map(|x| c(x.amount.unwrap())).sum();
            assert_eq!(
                reporting,
                c(r.change.reporting.unwrap()),
                "{label}: {:?}",
                r.parts
            );
            let local: i64 = r.parts.iter().filter_map(|x| x.local).map(c).sum();
            assert_eq!(local, c(r.change.local), "{label}");
            assert_eq!(
                c(r.after.local) - c(r.before.local),
                c(r.change.local),
                "{label}"
            );
            let mut items_change = 0;
            for it in r.items.iter().chain(&r.other_items) {
                let parts = [
                    it.volume,
                    it.mix,
                    it.price,
                    it.fee_rates,
                    it.cost_of_goods,
                    it.refunds,
                ];
                assert_eq!(
                    parts.iter().map(|v| c(*v)).sum::<i64>(),
                    c(it.change),
                    "{label} {}",
                    it.sku
                );
                items_change += c(it.change);
            }
            let account: i64 = r
                .parts
                .iter()
                .filter(|x| x.part == "advertising")
                .map(|x| c(x.local.unwrap()))
                .sum();
            assert!(items_change != 0 && account != 0, "{label}");
            if seller == 2 {
                let fx = r.parts.iter().find(|x| x.part == "exchangeRate").unwrap();
                assert_ne!(fx.amount, Some(0.0), "{label}: CAD moves against USD");
            }
            assert!(r.left_out.is_empty());
        }
    }
}

#[test]
fn a_cost_change_on_a_known_date_shows_in_the_cost_of_goods_part_and_not_in_price_or_volume() {
    let w = generate(4_711, pp_world::Scale::Tiny, today());
    let tenant = pp_core::TenantId::parse("acme").unwrap();
    let (p, q) = (
        Period {
            start: NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
            end: NaiveDate::from_ymd_opt(2026, 10, 31).unwrap(),
        },
        Period {
            start: NaiveDate::from_ymd_opt(2026, 9, 1).unwrap(),
            end: NaiveDate::from_ymd_opt(2026, 9, 30).unwrap(),
        },
    );
    let before = bridge(&w, 1, p, q);
    // every SKU of the seller costs 10% more from 1 October
    let m = MERCHANTS.iter().find(|m| m.id == 1).unwrap();
    let held =
        w.rt.block_on(
            w.store
                .costs()
                .periods(&tenant, Some((m.token, m.marketplace_id)), None),
        )
        .unwrap();
    let mut raised = Vec::new();
    for r in &held {
        let in_force = held
            .iter()
            .rfind(|x| x.key.sku == r.key.sku && x.key.valid_from.as_str() <= "2026-10-01");
        if in_force.map(|x| &x.key) == Some(&r.key) {
            let mut key = r.key.clone();
            key.valid_from = "2026-10-01".into();
            let mut cost = r.cost.clone();
            cost.unit_cents = cost.unit_cents * 11 / 10;
            raised.push((key, cost));
        }
    }
    assert!(!raised.is_empty());
    w.rt.block_on(w.store.costs().write(
        &tenant,
        raised,
        vec![],
        "test",
        Some("supplier +10%".into()),
    ))
    .unwrap();
    let after = bridge(&w, 1, p, q);
    let part = |r: &pp_intelligence::engines::profit_bridge::ProfitBridge, name: &str| {
        c(r.parts
            .iter()
            .find(|x| x.part == name)
            .unwrap()
            .local
            .unwrap())
    };
    for name in [
        "volume",
        "mix",
        "price",
        "feeRates",
        "refunds",
        "advertising",
    ] {
        assert_eq!(
            part(&before, name),
            part(&after, name),
            "{name} did not move"
        );
    }
    let moved = part(&after, "costOfGoods") - part(&before, "costOfGoods");
    assert!(moved < 0, "the cost part carries the rise: {moved}");
    assert_eq!(
        moved,
        c(after.change.local) - c(before.change.local),
        "and all of it"
    );
    assert!(
        after
            .happened
            .iter()
            .any(|h| h.kind == "cost_change" && h.part == "costOfGoods"),
        "{:?}",
        after.happened
    );
}

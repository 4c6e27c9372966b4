//! The engines on the small demo world, checked against its ground truth: the bridges' effects
//! sum to the observed change to the cent for every merchant and brand over random period
//! pairs (a property test), and every injected event is seen for what it is — a price test's
//! item carries the account's largest price effect, a seasonal peak is a traffic effect, a
//! promotion cuts price and lifts traffic, and every stock-out is found, with the units it
//! cost close to the truth. The forecaster sees the Q4 peak as a season: every merchant's
//! baseline is seasonal and peaks in December.

use std::sync::{Arc, OnceLock};

use chrono::{Duration, NaiveDate};
use pp_intelligence::data::Wh;
use pp_intelligence::engines::{ads_bridge, lost_sales, ops_bridge};
use pp_intelligence::params::{Grain, MerchantRef, Period};
use pp_intelligence::scope::{self, Scope};
use pp_warehouse::params::{Params, Scalar};
use pp_warehouse::row::Row;
use pp_warehouse::{Limits, QueryRequest};
use pp_world::{Event, GroundTruth, MERCHANTS};
use proptest::prelude::*;

struct World {
    wh: Wh,
    truth: GroundTruth,
    rt: tokio::runtime::Runtime,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let spec = pp_world::WorldSpec::new(
            20_261_122,
            pp_world::Scale::Small,
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        );
        let g = pp_world::generate_sqlite(&spec, &dir).unwrap();
        let slots = Arc::new(tokio::sync::Semaphore::new(4));
        let engine =
            pp_warehouse::open(&format!("sqlite:{}", g.warehouse.display()), &slots).unwrap();
        World {
            wh: Wh::new(engine, &Limits::default()),
            truth: g.truth,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
        }
    })
}

fn merchant(seller_id: i64) -> MerchantRef {
    let m = MERCHANTS.iter().find(|m| m.id == seller_id).unwrap();
    MerchantRef {
        seller_id: Some(m.token.into()),
        marketplace_id: Some(m.marketplace_id.into()),
        brand: None,
    }
}

/// Every merchant, and every brand in each marketplace it sells in.
fn scopes(w: &World) -> Vec<Scope> {
    let mut refs: Vec<MerchantRef> = MERCHANTS.iter().map(|m| merchant(m.id)).collect();
    for m in MERCHANTS {
        for b in m.brands {
            refs.push(MerchantRef {
                seller_id: None,
                marketplace_id: Some(m.marketplace_id.into()),
                brand: Some((*b).into()),
            });
        }
    }
    // a brand in one marketplace only resolves without one
    refs.push(MerchantRef {
        seller_id: None,
        marketplace_id: None,
        brand: Some("trailhead".into()),
    });
    refs.into_iter().map(|r| resolve(w, r)).collect()
}

/// Sums a money column in cents with SQL of the test's own.
fn observed(
    w: &World,
    scope: &Scope,
    table: &str,
    column: &str,
    brand_join: &str,
    p: Period,
) -> i64 {
    let ids: Vec<String> = scope.sellers.iter().map(|s| s.id.to_string()).collect();
    let brand = scope.brand.as_ref().map(|b| b.name.replace('\'', "''"));
    let join = match (&brand, brand_join) {
        (Some(b), "retail") => format!(
            " AND {} IN (SELECT ASIN FROM catalog_item c WHERE c.SellerID = t.SellerID AND c.Brand = '{b}')",
            if scope.vendor {
                "t.ASIN"
            } else {
                "t.ChildASIN"
            }
        ),
        (Some(b), "ads") => format!(
            " AND t.CampaignID IN (SELECT CampaignID FROM ads_campaign WHERE Brand = '{b}')"
        ),
        _ => String::new(),
    };
    let sql = format!(
        "SELECT SUM(CAST(ROUND({column} * 100) AS INTEGER)) AS c FROM {table} t WHERE t.SellerID IN ({}) AND t.Date >= '{}' AND t.Date <= '{}'{join}",
        ids.join(","),
        p.start,
        p.end
    );
    let req = QueryRequest {
        sql,
        params: Params::Positional(Vec::<Scalar>::new()),
        timeout_ms: 30_000,
    };
    let r = w.rt.block_on(w.wh.engine.query(req, &w.wh.limits)).unwrap();
    r.rows[0].count("c").unwrap()
}

fn day(w: &World, n: i64) -> NaiveDate {
    w.truth.first_day + Duration::days(n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 50, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bridges_sum_to_the_observed_change_to_the_cent(
        a in 0i64..1000, a_len in 1i64..120, b in 0i64..1000, b_len in 1i64..120,
    ) {
        let w = world();
        let last = (w.truth.last_day - w.truth.first_day).num_days();
        let compare = Period { start: day(w, a), end: day(w, (a + a_len - 1).min(last)) };
        let period = Period { start: day(w, b), end: day(w, (b + b_len - 1).min(last)) };
        for s in scopes(w) {
            let br = w.rt.block_on(ops_bridge::read(&w.wh, &s, compare, period)).unwrap();
            let (table, col) = if s.vendor { ("vendor_sales_and_traffic", "OrderedRevenue") } else { ("spapi_sales_and_traffic_by_asin", "OrderedProductSales") };
            let change = observed(w, &s, table, col, "retail", period) - observed(w, &s, table, col, "retail", compare);
            prop_assert_eq!(br.change(), change, "observed change of {:?}", s.brand);
            prop_assert_eq!(br.effects.iter().sum::<i64>(), change);
            prop_assert_eq!(br.items.iter().map(|i| i.effects.iter().sum::<i64>()).sum::<i64>(), change);
            for it in &br.items {
                prop_assert_eq!(it.effects.iter().sum::<i64>(), it.change(), "item {:?}", it.key);
            }
            for g in [Grain::Campaign, Grain::Target, Grain::SearchTerm, Grain::Asin] {
                let ab = w.rt.block_on(ads_bridge::read(&w.wh, &s, g, compare, period)).unwrap();
                let table = match g {
                    Grain::Campaign => "ads_campaign_daily",
                    Grain::Target => "ads_targeting_daily",
                    Grain::SearchTerm => "ads_search_term_daily",
                    _ => "ads_advertised_product_daily",
                };
                let sales = observed(w, &s, table, "Sales7d", "ads", period) - observed(w, &s, table, "Sales7d", "ads", compare);
                let spend = observed(w, &s, table, "Cost", "ads", period) - observed(w, &s, table, "Cost", "ads", compare);
                prop_assert_eq!(ab.sales.iter().sum::<i64>(), sales, "{:?} sales", g);
                prop_assert_eq!(ab.spend.iter().sum::<i64>(), spend, "{:?} spend", g);
                if let Some(a) = &ab.acos {
                    prop_assert_eq!(a.effects.iter().sum::<i64>(), a.after - a.before);
                }
            }
        }
    }
}

/// Whether `p` touches any of `windows`.
fn touches(p: Period, windows: &[(NaiveDate, NaiveDate)]) -> bool {
    windows.iter().any(|(s, e)| p.start <= *e && *s <= p.end)
}

/// The nearest same-length window before `p` that no other event of the seller touches.
fn clean_before(w: &World, p: Period, seller: i64, own: (NaiveDate, NaiveDate)) -> Period {
    let busy: Vec<(NaiveDate, NaiveDate)> = w
        .truth
        .events
        .iter()
        .filter_map(|e| match e {
            Event::SeasonalPeak { start, end, .. } => Some((*start, *end)),
            Event::Promotion {
                seller_id,
                start,
                end,
                ..
            } if *seller_id == seller => Some((*start, *end)),
            _ => None,
        })
        .filter(|x| *x != own)
        .collect();
    let mut c = p.previous();
    while touches(c, &busy) || touches(c, &[own]) {
        c = Period {
            start: c.start - Duration::days(7),
            end: c.end - Duration::days(7),
        };
    }
    c
}

fn resolve(w: &World, r: MerchantRef) -> Scope {
    w.rt.block_on(scope::resolve(&w.wh, &r)).unwrap()
}

#[test]
fn a_price_test_is_the_accounts_largest_price_effect() {
    let w = world();
    let mut seen = 0;
    for e in &w.truth.events {
        let Event::PriceTest {
            seller_id,
            asin,
            start,
            end,
            list_price,
            test_price,
            ..
        } = e
        else {
            continue;
        };
        let s = resolve(w, merchant(*seller_id));
        let p = Period {
            start: *start,
            end: *end,
        };
        let b =
            w.rt.block_on(ops_bridge::read(&w.wh, &s, p.previous(), p))
                .unwrap();
        let top = b.items.iter().max_by_key(|i| i.effects[3].abs()).unwrap();
        assert_eq!(
            &top.key.1, asin,
            "seller {seller_id}: the largest price effect is the tested item's"
        );
        assert_eq!(
            top.effects[3] > 0,
            test_price > list_price,
            "the price effect has the test's direction"
        );
        seen += 1;
    }
    assert!(seen >= 3, "every seller runs a price test");
}

#[test]
fn a_seasonal_peak_is_a_traffic_effect() {
    let w = world();
    let mut seen = 0;
    for e in &w.truth.events {
        let Event::SeasonalPeak {
            name, start, end, ..
        } = e
        else {
            continue;
        };
        if *end > w.truth.last_day {
            continue; // under way at the world's today: only its first days are in the data
        }
        for m in MERCHANTS {
            let s = resolve(w, merchant(m.id));
            let p = Period {
                start: *start,
                end: *end,
            };
            let b =
                w.rt.block_on(ops_bridge::read(&w.wh, &s, p.previous(), p))
                    .unwrap();
            assert_eq!(
                b.largest(),
                "traffic",
                "{name} for {}: {:?}",
                m.name,
                b.effects
            );
            assert!(b.effects[0] > 0, "{name} for {}: traffic rose", m.name);
            seen += 1;
        }
    }
    assert!(seen >= 16);
}

#[test]
fn a_promotion_cuts_price_and_lifts_traffic() {
    let w = world();
    let mut seen = 0;
    for e in &w.truth.events {
        let Event::Promotion {
            seller_id,
            brand,
            start,
            end,
            ..
        } = e
        else {
            continue;
        };
        let m = MERCHANTS.iter().find(|m| m.id == *seller_id).unwrap();
        let s = resolve(
            w,
            MerchantRef {
                seller_id: None,
                marketplace_id: Some(m.marketplace_id.into()),
                brand: Some(brand.clone()),
            },
        );
        let p = Period {
            start: *start,
            end: *end,
        };
        let c = clean_before(w, p, *seller_id, (*start, *end));
        let b = w.rt.block_on(ops_bridge::read(&w.wh, &s, c, p)).unwrap();
        assert!(
            b.effects[3] < 0,
            "{brand} {start}: price effect {:?}",
            b.effects
        );
        assert!(
            b.effects[0] > 0,
            "{brand} {start}: traffic effect {:?}",
            b.effects
        );
        seen += 1;
    }
    assert!(seen >= 12);
}

#[test]
fn every_stock_out_is_found_and_its_loss_is_close_to_the_truth() {
    let w = world();
    let all = Period {
        start: w.truth.first_day,
        end: w.truth.last_day,
    };
    let (mut truth_total, mut found_total, mut close, mut n) = (0i64, 0i64, 0, 0);
    for m in MERCHANTS.iter().filter(|m| !m.vendor) {
        let s = resolve(w, merchant(m.id));
        let found =
            w.rt.block_on(lost_sales::stock_outs(&w.wh, &s, all))
                .unwrap();
        for e in &w.truth.events {
            let Event::StockOut {
                seller_id,
                asin,
                start,
                end,
                lost_units,
            } = e
            else {
                continue;
            };
            if *seller_id != m.id {
                continue;
            }
            let hit = found
                .iter()
                .find(|f| &f.asin == asin && f.start <= *end && *start <= f.end)
                .unwrap_or_else(|| panic!("stock-out of {asin} {start}..{end} not found"));
            let est = hit.lost_units.expect("measured");
            truth_total += lost_units;
            found_total += est;
            n += 1;
            if (est - lost_units).abs() as f64 <= 0.25 * *lost_units as f64 {
                close += 1;
            }
        }
    }
    eprintln!(
        "lost units: estimated {found_total}, truth {truth_total}; {close} of {n} within 25%"
    );
    assert!(n >= 9, "three stock-outs per seller");
    let err = (found_total - truth_total).abs() as f64 / truth_total as f64;
    assert!(
        err <= 0.10,
        "total lost units {found_total} against the truth's {truth_total}"
    );
    assert!(close as f64 >= 0.8 * n as f64, "{close} of {n} within 25%");
}

#[test]
fn the_q4_peak_is_forecast_as_seasonal() {
    use pp_intelligence::forecasting::{baseline, history, readiness};
    use pp_intelligence::params::{Measure, SpendBasis};
    let w = world();
    let peak = w.truth.events.iter().find_map(|e| match e {
        Event::SeasonalPeak { name, start, .. } if name.contains("Q4") => Some(*start),
        _ => None,
    });
    assert!(peak.is_some(), "the world seeds a Q4 peak");
    for m in MERCHANTS {
        let s = resolve(w, merchant(m.id));
        let table = pp_intelligence::data::retail_source(&s).table;
        let data =
            w.rt.block_on(pp_intelligence::data::data_range(&w.wh, &s, table))
                .unwrap()
                .unwrap();
        let h = w.rt.block_on(history::read(&w.wh, &s, None, data)).unwrap();
        let r = readiness::assess(&h);
        let b = baseline::compute(
            &h,
            &r,
            Measure::Revenue,
            12,
            SpendBasis::AdsOnly,
            &Default::default(),
        )
        .unwrap();
        // the copy as it is served and published
        let b = serde_json::to_value(b).unwrap();
        assert_eq!(b["model"]["seasonal"], true, "{}: {}", m.name, b["model"]);
        let at = |k: &str| b["months"][k]["expected"].as_f64().unwrap();
        let months = b["months"].as_object().unwrap();
        let top = months
            .iter()
            .max_by(|a, b| {
                a.1["expected"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b.1["expected"].as_f64().unwrap())
            })
            .unwrap()
            .0;
        assert_eq!(
            top, "2026-12",
            "{}: the peak month of the year ahead",
            m.name
        );
        assert!(
            at("2026-12") > 1.2 * at("2027-02"),
            "{}: December {} vs February {}",
            m.name,
            at("2026-12"),
            at("2027-02")
        );
    }
}

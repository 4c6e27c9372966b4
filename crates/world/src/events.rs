//! Injected events and their ground truth: stock-outs, price tests, promotions, seasonal
//! peaks, ad budget changes and launches. The plan is drawn before the simulation; the
//! simulation fills in what only it knows (the units a stock-out cost).

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use serde::Serialize;

use crate::model::Model;
use crate::rng::Rng;
use crate::spec::{DAYS, WorldSpec};

/// One event, as recorded in the ground truth.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The item had no sellable stock from `start` to `end` (inclusive).
    StockOut {
        seller_id: i64,
        asin: String,
        start: NaiveDate,
        end: NaiveDate,
        lost_units: i64,
    },
    /// The price moved to `test_price` for the window; conversion followed `(price/list)^elasticity`.
    PriceTest {
        seller_id: i64,
        asin: String,
        start: NaiveDate,
        end: NaiveDate,
        list_price: f64,
        test_price: f64,
        elasticity: f64,
    },
    /// A brand-wide promotion: prices cut by `discount_pct`, sessions lifted by `traffic_lift`.
    Promotion {
        seller_id: i64,
        brand: String,
        promotion_type: String,
        start: NaiveDate,
        end: NaiveDate,
        discount_pct: i64,
        traffic_lift: f64,
    },
    /// A demand peak for every item: sessions multiplied by `multiplier`.
    SeasonalPeak {
        name: String,
        start: NaiveDate,
        end: NaiveDate,
        multiplier: f64,
    },
    /// A campaign's daily budget changed from `date` on.
    AdBudgetChange {
        seller_id: i64,
        campaign_id: i64,
        date: NaiveDate,
        old_budget: f64,
        new_budget: f64,
    },
    /// The item went on sale on `date` (nothing before; demand ramps over 60 days).
    Launch {
        seller_id: i64,
        asin: String,
        date: NaiveDate,
    },
}

/// The plan in day indexes, for the simulation.
#[derive(Default)]
pub struct Plan {
    pub events: Vec<Event>,
    /// (item, first day, last day, index into `events`).
    pub stock_outs: Vec<(usize, i64, i64, usize)>,
    /// (item, first day, last day, price multiplier).
    pub price_tests: Vec<(usize, i64, i64, f64)>,
    /// (merchant, brand, first day, last day, price multiplier, traffic lift, a coupon: taken
    /// off at checkout rather than off the shelf price).
    pub promotions: Vec<(usize, &'static str, i64, i64, f64, f64, bool)>,
    /// (first day, last day, multiplier).
    pub peaks: Vec<(i64, i64, f64)>,
    /// (campaign, from day, new budget cents).
    pub budget_changes: Vec<(usize, i64, i64)>,
}

fn day(spec: &WorldSpec, d: i64) -> NaiveDate {
    spec.first_day() + Duration::days(d)
}

fn index(spec: &WorldSpec, date: NaiveDate) -> i64 {
    (date - spec.first_day()).num_days()
}

fn peaks(spec: &WorldSpec, plan: &mut Plan) {
    for year in spec.first_day().year()..=spec.last_day().year() {
        // The July event: the second Tuesday of July and the day after.
        let mut d = NaiveDate::from_ymd_opt(year, 7, 1).expect("date");
        while d.weekday() != Weekday::Tue {
            d += Duration::days(1);
        }
        d += Duration::days(7);
        let q4 = (
            NaiveDate::from_ymd_opt(year, 11, 20).expect("date"),
            NaiveDate::from_ymd_opt(year, 12, 24).expect("date"),
        );
        for (name, start, end, mult) in [
            ("July event", d, d + Duration::days(1), 2.2),
            ("Q4 holiday peak", q4.0, q4.1, 1.5),
        ] {
            let (s, e) = (index(spec, start), index(spec, end));
            // a peak under way at today is known (its calendar is), and its days so far count
            if s >= 0 && s < spec.days() {
                plan.peaks.push((s, e, mult));
                plan.events.push(Event::SeasonalPeak {
                    name: format!("{name} {year}"),
                    start,
                    end,
                    multiplier: mult,
                });
            }
        }
    }
}

/// Draws the events of a world.
pub fn plan(spec: &WorldSpec, model: &Model, rng: &mut Rng) -> Plan {
    let mut plan = Plan::default();
    peaks(spec, &mut plan);
    for (mi, m) in spec.merchants().iter().enumerate() {
        let items: Vec<usize> = (0..model.items.len())
            .filter(|&i| model.items[i].merchant == mi && model.items[i].launch_day == 0)
            .collect();
        for (i, it) in model
            .items
            .iter()
            .enumerate()
            .filter(|(_, it)| it.merchant == mi && it.launch_day > 0)
        {
            plan.events.push(Event::Launch {
                seller_id: m.id,
                asin: it.asin.clone(),
                date: day(spec, it.launch_day),
            });
            let _ = i;
        }
        if m.vendor {
            continue;
        }
        // One stock-out a year, on a different item each time, away from the peaks' edges.
        for year in 0..3_i64 {
            let item = items[(year as usize * 2 + 1) % items.len()];
            let start = year * 365 + rng.range(30, 300);
            let end = start + rng.range(9, 20);
            plan.stock_outs.push((item, start, end, plan.events.len()));
            plan.events.push(Event::StockOut {
                seller_id: m.id,
                asin: model.items[item].asin.clone(),
                start: day(spec, start),
                end: day(spec, end),
                lost_units: 0,
            });
        }
        // A 28-day price test in the last year on an item that never stocks out.
        let item = items[0];
        let up = rng.unit() < 0.5;
        let mult = if up { 1.10 } else { 0.90 };
        let start = DAYS - 200 + rng.range(0, 60);
        let it = &model.items[item];
        plan.price_tests.push((item, start, start + 27, mult));
        plan.events.push(Event::PriceTest {
            seller_id: m.id,
            asin: it.asin.clone(),
            start: day(spec, start),
            end: day(spec, start + 27),
            list_price: it.list_cents as f64 / 100.0,
            test_price: (it.list_cents as f64 * mult).round() / 100.0,
            elasticity: (it.elasticity * 1000.0).round() / 1000.0,
        });
        // Two week-long promotions a year per brand.
        for &brand in m.brands {
            for year in 0..3_i64 {
                for half in 0..2_i64 {
                    let start = year * 365 + half * 182 + rng.range(20, 150);
                    let pct = rng.range(15, 25);
                    let (kind, lift) = if half == 0 {
                        ("DEAL", 1.3)
                    } else {
                        ("PRICE_DISCOUNT", 1.1)
                    };
                    plan.promotions.push((
                        mi,
                        brand,
                        start,
                        start + 6,
                        1.0 - pct as f64 / 100.0,
                        lift,
                        kind == "PRICE_DISCOUNT",
                    ));
                    plan.events.push(Event::Promotion {
                        seller_id: m.id,
                        brand: brand.to_owned(),
                        promotion_type: kind.to_owned(),
                        start: day(spec, start),
                        end: day(spec, start + 6),
                        discount_pct: pct,
                        traffic_lift: lift,
                    });
                }
            }
        }
        // A budget change on the merchant's first campaign, from a day in the second year on.
        if let Some((ci, c)) = model
            .campaigns
            .iter()
            .enumerate()
            .find(|(_, c)| c.merchant == mi)
        {
            let from = 365 + rng.range(30, 300);
            let new = if rng.unit() < 0.5 {
                c.budget_cents / 2
            } else {
                c.budget_cents * 9 / 5
            };
            plan.budget_changes.push((ci, from, new));
            plan.events.push(Event::AdBudgetChange {
                seller_id: m.id,
                campaign_id: c.id,
                date: day(spec, from),
                old_budget: c.budget_cents as f64 / 100.0,
                new_budget: new as f64 / 100.0,
            });
        }
    }
    plan
}

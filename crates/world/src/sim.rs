//! The daily simulation and its demand model (documented in `docs/warehouse.md`):
//!
//! - organic sessions = base × weekday × trend × seasonal peak × promotion lift × launch ramp × noise;
//! - ads: each keyword or target asks for impressions (base × season × noise) and clicks
//!   (impressions × CTR); cost = clicks × CPC; a campaign whose demand costs more than its
//!   daily budget is scaled down to the budget; clicks go to the ad group's in-stock items;
//! - sessions = organic + ad clicks; conversion = base × (price / list)^elasticity;
//!   units = sessions × conversion × noise (at least the ad-attributed purchases);
//! - a stocked-out item sells nothing and serves no ads while its organic traffic continues;
//!   the units it would have sold are kept in the ground truth.
//!
//! Money is integer cents throughout so every rollup equals the sum of its parts exactly.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

use crate::arrival::{Arrival, CellKey};
use crate::economics::{Economics, SoldDay, truth};
use crate::events::{Event, Plan};
use crate::load::Loader;
use crate::model::{Model, brand_name, profile_id};
use crate::rng::Rng;
use crate::spec::{DAYS, MERCHANTS, WorldSpec};
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::{Table, table};

type Res = Result<(), String>;

/// Rounds `x` down or up at random in proportion to its fraction, so many small expected
/// counts add up to their expected total instead of rounding to zero.
fn stochastic_round(x: f64, rng: &mut Rng) -> i64 {
    let floor = x.floor();
    floor as i64 + i64::from(rng.unit() < x - floor)
}

/// Splits `total` by `weights` into integers that add up to `total`.
pub fn split(total: i64, weights: &[f64]) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    if weights.is_empty() || sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let mut out: Vec<i64> = weights
        .iter()
        .map(|w| ((total as f64) * w / sum).floor() as i64)
        .collect();
    let mut rest = total - out.iter().sum::<i64>();
    let (mut i, n) = (0, out.len());
    while rest > 0 {
        out[i % n] += 1;
        rest -= 1;
        i += 1;
    }
    out
}

#[derive(Default, Clone, Copy)]
struct Perf {
    impressions: i64,
    clicks: i64,
    cost: i64,
    purchases: i64,
    sales: i64,
}

impl Perf {
    fn add(&mut self, o: &Perf) {
        self.impressions += o.impressions;
        self.clicks += o.clicks;
        self.cost += o.cost;
        self.purchases += o.purchases;
        self.sales += o.sales;
    }
    /// Writes one row: the row's key cells, then these measures and the currency.
    fn insert(
        &self,
        out: &mut dyn Loader,
        table: &'static Table,
        mut row: Vec<Cell>,
        currency: &str,
    ) -> Res {
        row.extend(self.cells(currency));
        out.insert(table, &row)
    }

    fn cells(&self, currency: &str) -> [Cell; 6] {
        [
            Cell::Int(self.impressions),
            Cell::Int(self.clicks),
            Cell::Cents(self.cost),
            Cell::Int(self.purchases),
            Cell::Cents(self.sales),
            currency.into(),
        ]
    }
}

/// A seller's day, summed over its ASIN rows.
#[derive(Default, Clone)]
struct DayTotals {
    rows: i64,
    sales: i64,
    units: i64,
    orders: i64,
    sessions: i64,
    page_views: i64,
    buy_box_weighted: f64,
}

#[derive(Clone)]
struct ItemDay {
    active: bool,
    oos: bool,
    price: i64,
    /// The shelf price: `price` before a coupon.
    shelf: i64,
    cvr: f64,
    organic: f64,
    paid_clicks: i64,
    paid_purchases: i64,
}

struct Stock {
    fulfillable: i64,
    inbound: i64,
    arrives: i64,
    recent: [i64; 28],
}

struct Tables {
    sales: &'static Table,
    by_date: &'static Table,
    vendor: &'static Table,
    inventory: &'static Table,
    campaign: &'static Table,
    ad_group: &'static Table,
    targeting: &'static Table,
    search_term: &'static Table,
    product: &'static Table,
    sqp: &'static Table,
    dsp: &'static Table,
}

/// Runs the simulation, writing every daily fact through `out`; fills in the stock-outs' lost
/// units in `plan.events`, and returns the economics' truth.
pub fn run(
    spec: &WorldSpec,
    model: &Model,
    plan: &mut Plan,
    rng: &mut Rng,
    out: &mut dyn Loader,
) -> Result<truth::Economics, String> {
    let t = Tables {
        sales: table("spapi_sales_and_traffic_by_asin"),
        by_date: table("spapi_sales_and_traffic_by_date"),
        vendor: table("vendor_sales_and_traffic"),
        inventory: table("spapi_fba_inventory"),
        campaign: table("ads_campaign_daily"),
        ad_group: table("ads_ad_group_daily"),
        targeting: table("ads_targeting_daily"),
        search_term: table("ads_search_term_daily"),
        product: table("ads_advertised_product_daily"),
        sqp: table("spapi_brand_analytics_sqp"),
        dsp: table("dsp_daily"),
    };
    let mut stock: Vec<Stock> = model
        .items
        .iter()
        .map(|it| {
            let daily = it.base_sessions * it.base_cvr;
            Stock {
                fulfillable: (daily * 45.0).round() as i64 + 10,
                inbound: 0,
                arrives: -1,
                recent: [daily.round() as i64; 28],
            }
        })
        .collect();
    let mut budgets: Vec<i64> = model.campaigns.iter().map(|c| c.budget_cents).collect();
    let mut week = vec![(0_i64, 0_i64); model.items.len()];
    let deals = plan
        .promotions
        .iter()
        .filter(|p| !p.6)
        .map(|p| (p.0, p.2))
        .collect();
    let mut econ = Economics::new(spec, model, deals);
    // Units per item since the settlement period began.
    let mut period = vec![0_i64; model.items.len()];
    for d in 0..spec.days() {
        let date = spec.first_day() + Duration::days(d);
        let ds = date.to_string();
        econ.start_of_day(model, d);
        let mut days: Vec<ItemDay> = model
            .items
            .iter()
            .enumerate()
            .map(|(i, _)| item_day(model, plan, rng, i, d, date))
            .collect();
        for &(ci, from, new) in &plan.budget_changes {
            if d == from {
                budgets[ci] = new;
            }
        }
        let reported = spec.attributed_share(date);
        let mut arrival = if reported < 1.0 {
            // the first pass, over copies and the same draws: the day's final purchases
            let (mut copy, mut draws) = (days.clone(), rng.clone());
            let mut seen = Arrival::Record(Vec::new());
            for (ci, c) in model.campaigns.iter().enumerate() {
                let mut day = AdsDay {
                    budget: budgets[ci],
                    arrival: &mut seen,
                    ds: &ds,
                };
                ads_day(&t, model, c, &mut day, &mut copy, &mut draws, &mut Discard)?;
            }
            seen.drawn(d, reported)
        } else {
            Arrival::All
        };
        for (ci, c) in model.campaigns.iter().enumerate() {
            let mut day = AdsDay {
                budget: budgets[ci],
                arrival: &mut arrival,
                ds: &ds,
            };
            let spend = ads_day(&t, model, c, &mut day, &mut days, rng, out)?;
            econ.ad_spend(model, c.merchant, c.ad_product, d, spend);
        }
        let mut seller_day = vec![DayTotals::default(); spec.merchants().len()];
        for i in 0..model.items.len() {
            let merchant = model.items[i].merchant;
            let (units, sessions) = retail_day(
                &t,
                model,
                plan,
                rng,
                i,
                &days[i],
                &mut stock[i],
                d,
                &ds,
                out,
                &mut seller_day[merchant],
            )?;
            week[i].0 += units;
            week[i].1 += sessions;
            period[i] += units;
            let sold = SoldDay {
                units,
                price: days[i].price,
                shelf: days[i].shelf,
            };
            econ.sale(model, i, d, &sold);
            if days[i].active && !spec.merchants()[merchant].vendor {
                let s = &stock[i];
                let avg = s.recent.iter().sum::<i64>() as f64 / 28.0;
                econ.stock(d, i, s.fulfillable, avg);
            }
        }
        for (mi, m) in spec.merchants().iter().enumerate() {
            let tot = &seller_day[mi];
            if !m.vendor && tot.rows > 0 {
                let bb = if tot.sessions > 0 {
                    (tot.buy_box_weighted / tot.sessions as f64 * 100.0).round() / 100.0
                } else {
                    0.0
                };
                let row = [
                    m.id.into(),
                    m.token.into(),
                    ds.as_str().into(),
                    Cell::Cents(tot.sales),
                    tot.units.into(),
                    tot.orders.into(),
                    tot.sessions.into(),
                    tot.page_views.into(),
                    Cell::Real(bb),
                    m.currency.into(),
                ];
                out.insert(t.by_date, &row)?;
            }
        }
        if date.weekday() == Weekday::Sat && d >= 6 {
            sqp_week(&t, model, &week, date, rng, out)?;
            week.iter_mut().for_each(|w| *w = (0, 0));
        }
        if (d + 1) % 14 == 0 {
            for (i, it) in model.items.iter().enumerate() {
                let units = std::mem::take(&mut period[i]);
                if !spec.merchants()[it.merchant].vendor && it.sku.is_some() && units > 0 {
                    keep_the_streams_draws(rng);
                }
            }
        }
        econ.end_of_day(model, d, out)?;
        dsp_day(&t, (&ds, d, reported), plan, rng, out)?;
    }
    econ.write_transactions(model, spec.days(), out)?;
    let truth = econ.finish(model, spec.days());
    let tables = (table("cost_period"), table("exchange_rate"));
    crate::economics::tenant::write(&truth, spec.merchants(), tables, out)?;
    Ok(truth)
}

/// The world's settlements once drew three numbers from the world's stream for each SKU with
/// sales at each period's close; the economics draw from their own stream now, and these draws
/// are kept so that every other fact of a seed stays what it was.
fn keep_the_streams_draws(rng: &mut Rng) {
    rng.range(0, 12);
    rng.range(0, 59);
    rng.range(0, 9_999_999);
}

fn in_window(d: i64, s: i64, e: i64) -> bool {
    d >= s && d <= e
}

fn item_day(
    model: &Model,
    plan: &Plan,
    rng: &mut Rng,
    i: usize,
    d: i64,
    date: NaiveDate,
) -> ItemDay {
    let it = &model.items[i];
    let active = d >= it.launch_day;
    let mut price_mult = 1.0;
    // the price multiplier without coupons: the shelf price's
    let mut shelf_mult = 1.0;
    let mut lift = 1.0;
    for &(mi, brand, s, e, pm, l, coupon) in &plan.promotions {
        if mi == it.merchant && brand == it.brand && in_window(d, s, e) {
            price_mult *= pm;
            if !coupon {
                shelf_mult *= pm;
            }
            lift *= l;
        }
    }
    for &(item, s, e, pm) in &plan.price_tests {
        if item == i && in_window(d, s, e) {
            price_mult *= pm;
            shelf_mult *= pm;
        }
    }
    let peak = plan
        .peaks
        .iter()
        .filter(|p| in_window(d, p.0, p.1))
        .map(|p| p.2)
        .fold(1.0, f64::max);
    let weekday = match date.weekday() {
        Weekday::Sat | Weekday::Sun => 1.12,
        _ => 0.95,
    };
    // counted from the origin, so a world moved forward keeps growing the same way
    let trend = 1.0 + 0.3 * d as f64 / DAYS as f64;
    let ramp = if it.launch_day > 0 {
        ((d - it.launch_day + 1) as f64 / 60.0).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let noise = 0.85 + 0.3 * rng.unit();
    ItemDay {
        active,
        oos: plan
            .stock_outs
            .iter()
            .any(|&(item, s, e, _)| item == i && in_window(d, s, e)),
        price: (it.list_cents as f64 * price_mult).round() as i64,
        shelf: (it.list_cents as f64 * shelf_mult).round() as i64,
        cvr: it.base_cvr * price_mult.powf(it.elasticity),
        organic: if active {
            it.base_sessions * weekday * trend * peak * lift * ramp * noise
        } else {
            0.0
        },
        paid_clicks: 0,
        paid_purchases: 0,
    }
}

/// A campaign's day: its budget in force, the purchases the provider reports as of today
/// ([`Arrival`]), and the date.
struct AdsDay<'a> {
    budget: i64,
    arrival: &'a mut Arrival,
    ds: &'a str,
}

/// A loader that keeps nothing: the first pass of a day inside the attribution window.
struct Discard;

impl Loader for Discard {
    fn insert(&mut self, _: &'static Table, _: &[Cell]) -> Result<(), String> {
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), String> {
        Ok(())
    }
}

/// One campaign's day of advertising: demand, the budget's cap, and every row from targets up
/// to the campaign. Attributed purchases and sales are those that have arrived
/// (`day.arrival`), taken at the finest grain (a target's clicks on one item) so every rollup
/// is still the sum of its parts; the retail side sells the final ones.
fn ads_day(
    t: &Tables,
    model: &Model,
    c: &crate::model::Campaign,
    day: &mut AdsDay<'_>,
    days: &mut [ItemDay],
    rng: &mut Rng,
    out: &mut dyn Loader,
) -> Result<i64, String> {
    let (budget, ds) = (day.budget, day.ds);
    let m = &model.merchants[c.merchant];
    let pid = profile_id(m);
    // Demand per target: (impressions, clicks, cpc cents), zero when no item of its ad group can serve.
    let mut demand: Vec<Vec<(i64, i64, i64)>> = Vec::new();
    for g in &c.ad_groups {
        let serving = g.items.iter().any(|&i| days[i].active && !days[i].oos);
        let season = g
            .items
            .iter()
            .map(|&i| days[i].organic / model.items[i].base_sessions.max(1.0))
            .sum::<f64>()
            / g.items.len().max(1) as f64;
        demand.push(
            g.targets
                .iter()
                .map(|tg| {
                    let impressions = if serving {
                        (tg.base_impressions * season * (0.8 + 0.4 * rng.unit())).round() as i64
                    } else {
                        0
                    };
                    let clicks =
                        (impressions as f64 * tg.ctr * (0.7 + 0.6 * rng.unit())).round() as i64;
                    let cpc = (tg.bid_cents as f64 * (0.55 + 0.35 * rng.unit())).round() as i64;
                    (impressions, clicks, cpc)
                })
                .collect(),
        );
    }
    let wanted: i64 = demand.iter().flatten().map(|(_, c, cpc)| c * cpc).sum();
    let scale = if wanted > budget && wanted > 0 {
        budget as f64 / wanted as f64
    } else {
        1.0
    };
    let mut campaign = Perf::default();
    for (g, targets) in c.ad_groups.iter().zip(&demand) {
        let serving: Vec<usize> = g
            .items
            .iter()
            .copied()
            .filter(|&i| days[i].active && !days[i].oos)
            .collect();
        let weights: Vec<f64> = serving
            .iter()
            .map(|&i| model.items[i].base_sessions)
            .collect();
        let mut group = Perf::default();
        let mut per_item = vec![Perf::default(); serving.len()];
        for (tg, &(imp, clk, cpc)) in g.targets.iter().zip(targets) {
            let impressions = (imp as f64 * scale).round() as i64;
            let clicks = ((clk as f64 * scale).round() as i64).min(impressions);
            let mut perf = Perf {
                impressions,
                clicks,
                cost: clicks * cpc,
                ..Perf::default()
            };
            let clicks_by_item = split(clicks, &weights);
            let imps_by_item = split(impressions, &weights);
            for (k, &i) in serving.iter().enumerate() {
                let ck = clicks_by_item[k];
                let purchases = stochastic_round(ck as f64 * days[i].cvr, rng);
                days[i].paid_purchases += purchases;
                let cell = CellKey {
                    campaign: c.id,
                    ad_group: g.id,
                    target: tg.id,
                    item: i,
                };
                let purchases = day
                    .arrival
                    .reported(c.merchant, cell, purchases, days[i].price);
                let share = Perf {
                    impressions: imps_by_item[k],
                    clicks: ck,
                    cost: ck * cpc,
                    purchases,
                    sales: purchases * days[i].price,
                };
                perf.purchases += purchases;
                perf.sales += share.sales;
                per_item[k].add(&share);
                days[i].paid_clicks += ck;
            }
            if perf.impressions > 0 {
                targeting_rows(t, c, g.id, tg, &perf, m, pid, ds, out)?;
            }
            group.add(&perf);
        }
        if c.ad_product == "SPONSORED_PRODUCTS" {
            for (k, &i) in serving.iter().enumerate() {
                let p = &per_item[k];
                if p.impressions > 0 {
                    let it = &model.items[i];
                    p.insert(
                        out,
                        t.product,
                        vec![
                            m.id.into(),
                            m.token.into(),
                            pid.into(),
                            ds.into(),
                            c.id.into(),
                            g.id.into(),
                            it.asin.as_str().into(),
                            it.sku.clone().into(),
                        ],
                        m.currency,
                    )?;
                }
            }
        }
        if group.impressions > 0 {
            group.insert(
                out,
                t.ad_group,
                vec![
                    m.id.into(),
                    m.token.into(),
                    pid.into(),
                    ds.into(),
                    c.ad_product.into(),
                    c.id.into(),
                    g.id.into(),
                ],
                m.currency,
            )?;
        }
        campaign.add(&group);
    }
    if campaign.impressions > 0 {
        campaign.insert(
            out,
            t.campaign,
            vec![
                m.id.into(),
                m.token.into(),
                pid.into(),
                ds.into(),
                c.ad_product.into(),
                c.id.into(),
                c.name.as_str().into(),
                Cell::Cents(budget),
            ],
            m.currency,
        )?;
    }
    Ok(campaign.cost)
}

#[allow(clippy::too_many_arguments)]
fn targeting_rows(
    t: &Tables,
    c: &crate::model::Campaign,
    ag: i64,
    tg: &crate::model::Target,
    perf: &Perf,
    m: &crate::spec::MerchantDef,
    pid: i64,
    ds: &str,
    out: &mut dyn Loader,
) -> Res {
    perf.insert(
        out,
        t.targeting,
        vec![
            m.id.into(),
            m.token.into(),
            pid.into(),
            ds.into(),
            c.ad_product.into(),
            c.id.into(),
            ag.into(),
            tg.id.into(),
            tg.text.as_str().into(),
            tg.match_type.into(),
        ],
        m.currency,
    )?;
    if c.ad_product != "SPONSORED_PRODUCTS" {
        return Ok(());
    }
    // Two customer search terms per keyword: the keyword itself and a longer variant.
    let w = [0.6, 0.4];
    let parts: Vec<Vec<i64>> = [
        perf.impressions,
        perf.clicks,
        perf.cost,
        perf.purchases,
        perf.sales,
    ]
    .iter()
    .map(|&v| split(v, &w))
    .collect();
    for (k, term) in [
        tg.text.clone(),
        format!(
            "{} for {}",
            tg.text,
            ["gift", "travel"][(tg.id % 2) as usize]
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if parts[0][k] == 0 {
            continue;
        }
        let p = Perf {
            impressions: parts[0][k],
            clicks: parts[1][k],
            cost: parts[2][k],
            purchases: parts[3][k],
            sales: parts[4][k],
        };
        p.insert(
            out,
            t.search_term,
            vec![
                m.id.into(),
                m.token.into(),
                pid.into(),
                ds.into(),
                c.id.into(),
                ag.into(),
                tg.id.into(),
                tg.text.as_str().into(),
                tg.match_type.into(),
                term.into(),
            ],
            m.currency,
        )?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn retail_day(
    t: &Tables,
    model: &Model,
    plan: &mut Plan,
    rng: &mut Rng,
    i: usize,
    day: &ItemDay,
    stock: &mut Stock,
    d: i64,
    ds: &str,
    out: &mut dyn Loader,
    totals: &mut DayTotals,
) -> Result<(i64, i64), String> {
    if !day.active {
        return Ok((0, 0));
    }
    let it = &model.items[i];
    let m = &model.merchants[it.merchant];
    let sessions = day.organic.round() as i64 + day.paid_clicks;
    let noise = 0.9 + 0.2 * rng.unit();
    let mut units = ((sessions as f64 * day.cvr * noise).round() as i64).max(day.paid_purchases);
    if day.oos {
        let would = (sessions as f64 * day.cvr).round() as i64;
        for &(item, s, e, ev) in &plan.stock_outs {
            if item == i
                && d >= s
                && d <= e
                && let Event::StockOut { lost_units, .. } = &mut plan.events[ev]
            {
                *lost_units += would;
            }
        }
        units = 0;
    }
    if m.vendor {
        let revenue = units * day.price;
        let shipped = (units as f64 * 0.97).round() as i64;
        let row = [
            m.id.into(),
            m.token.into(),
            ds.into(),
            it.asin.as_str().into(),
            Cell::Cents(revenue),
            units.into(),
            Cell::Cents(shipped * day.price),
            shipped.into(),
            (((sessions as f64) * 1.4).round() as i64).into(),
            m.currency.into(),
        ];
        out.insert(t.vendor, &row)?;
        return Ok((units, sessions));
    }
    // Inventory: arrivals, sales, replenishment; stock-outs keep the shelf empty.
    if stock.arrives == d {
        stock.fulfillable += stock.inbound;
        stock.inbound = 0;
        stock.arrives = -1;
    }
    let expected_daily = (it.base_sessions * it.base_cvr).max(0.5);
    if day.oos {
        stock.fulfillable = 0;
        if stock.arrives < 0 {
            stock.inbound = (expected_daily * 60.0).round() as i64;
            let end = plan
                .stock_outs
                .iter()
                .filter(|s| s.0 == i && d >= s.1 && d <= s.2)
                .map(|s| s.2)
                .max()
                .unwrap_or(d);
            stock.arrives = end + 1;
        }
    } else {
        if stock.fulfillable < units {
            stock.fulfillable += (expected_daily * 30.0).round() as i64 + units;
        }
        stock.fulfillable -= units;
        let dos = stock.fulfillable as f64 / expected_daily;
        if dos < 30.0 && stock.arrives < 0 {
            stock.inbound = (expected_daily * 60.0).round() as i64;
            stock.arrives = d + 12;
        }
    }
    stock.recent[(d % 28) as usize] = units;
    let avg = stock.recent.iter().sum::<i64>() as f64 / 28.0;
    let dos = if avg > 0.0 {
        Cell::Real((stock.fulfillable as f64 / avg * 10.0).round() / 10.0)
    } else {
        Cell::Null
    };
    let sku = it.sku.clone();
    let inv = [
        m.id.into(),
        m.token.into(),
        ds.into(),
        it.asin.as_str().into(),
        sku.clone().into(),
        stock.fulfillable.into(),
        stock.inbound.into(),
        (stock.fulfillable * 3 / 100).into(),
        dos,
    ];
    out.insert(t.inventory, &inv)?;
    let order_items = units - units / 12;
    let buy_box = if day.oos {
        0.0
    } else {
        ((92.0 + 8.0 * rng.unit()) * 100.0).round() / 100.0
    };
    let page_views = ((sessions as f64) * 1.3).round() as i64;
    totals.rows += 1;
    totals.sales += units * day.price;
    totals.units += units;
    totals.orders += order_items;
    totals.sessions += sessions;
    totals.page_views += page_views;
    totals.buy_box_weighted += buy_box * sessions as f64;
    let row = [
        m.id.into(),
        m.token.into(),
        ds.into(),
        it.parent.as_str().into(),
        it.asin.as_str().into(),
        sku.into(),
        Cell::Cents(day.price),
        Cell::Cents(units * day.price),
        units.into(),
        order_items.into(),
        sessions.into(),
        page_views.into(),
        Cell::Real(buy_box),
        m.currency.into(),
    ];
    out.insert(t.sales, &row)?;
    Ok((units, sessions))
}

fn sqp_week(
    t: &Tables,
    model: &Model,
    week: &[(i64, i64)],
    saturday: NaiveDate,
    rng: &mut Rng,
    out: &mut dyn Loader,
) -> Res {
    let sunday = saturday - Duration::days(6);
    for (mi, m) in model.merchants.iter().enumerate() {
        if !m.brand_analytics {
            continue;
        }
        for &brand in m.brands {
            let (units, sessions) = model
                .items
                .iter()
                .enumerate()
                .filter(|(_, it)| it.merchant == mi && it.brand == brand)
                .fold((0, 0), |a, (i, _)| (a.0 + week[i].0, a.1 + week[i].1));
            let nouns = crate::spec::BRANDS
                .iter()
                .find(|b| b.0 == brand)
                .map_or(&[][..], |b| b.2);
            let queries: Vec<String> = std::iter::once(brand_name(brand).to_lowercase())
                .chain(nouns.iter().map(|n| (*n).to_owned()))
                .collect();
            let unit_parts = split(units * 35 / 100, &vec![1.0; queries.len()]);
            let session_parts = split(sessions * 30 / 100, &vec![1.0; queries.len()]);
            for (q, query) in queries.iter().enumerate() {
                let brand_purchases = unit_parts[q];
                let brand_clicks = session_parts[q];
                let share = if q == 0 {
                    0.55 + 0.2 * rng.unit()
                } else {
                    0.06 + 0.12 * rng.unit()
                };
                let purchases_total = (brand_purchases as f64 / share).ceil() as i64;
                let clicks_total = (brand_clicks as f64 / share).ceil() as i64;
                let cart_brand = (brand_purchases as f64 * 2.1).round() as i64;
                let cart_total = (purchases_total as f64 * 2.1).round() as i64;
                let imp_brand = brand_clicks * 22;
                let imp_total = clicks_total * 18 + imp_brand;
                let volume = (imp_total as f64 / 9.0).round() as i64;
                let row = [
                    m.id.into(),
                    m.token.into(),
                    sunday.to_string().into(),
                    saturday.to_string().into(),
                    query.as_str().into(),
                    volume.into(),
                    imp_total.into(),
                    imp_brand.into(),
                    clicks_total.into(),
                    brand_clicks.into(),
                    cart_total.into(),
                    cart_brand.into(),
                    purchases_total.into(),
                    brand_purchases.into(),
                ];
                out.insert(t.sqp, &row)?;
            }
        }
    }
    Ok(())
}

/// DSP for the vendor: two line items with daily budgets; halo above promoted. Of each line
/// item's purchases, the `reported` share has arrived, rounded up to whole purchases.
fn dsp_day(
    t: &Tables,
    (ds, d, reported): (&str, i64, f64),
    plan: &Plan,
    rng: &mut Rng,
    out: &mut dyn Loader,
) -> Res {
    // the vendor is one of the fixed merchants (a fleet has none)
    let Some(m) = MERCHANTS.iter().find(|m| m.vendor) else {
        return Ok(());
    };
    let peak = plan
        .peaks
        .iter()
        .filter(|p| in_window(d, p.0, p.1))
        .map(|p| p.2)
        .fold(1.0, f64::max);
    for (k, name) in ["Acme Kitchen retargeting", "Acme Kitchen prospecting"]
        .iter()
        .enumerate()
    {
        let impressions =
            ((20_000.0 + 15_000.0 * k as f64) * peak * (0.8 + 0.4 * rng.unit())).round() as i64;
        let clicks = impressions * (3 + k as i64) / 1_000;
        let cost = impressions * (450 + 150 * k as i64) / 1_000;
        let promoted = clicks * (6 - 2 * k as i64) / 100;
        let halo = promoted + promoted / 2 + rng.range(0, 3);
        // whole purchases: of each kind, the reported share rounded up, halo above promoted
        let arrived = |n: i64| ((n as f64 * reported).ceil() as i64).min(n);
        let (promoted, halo) = (
            arrived(promoted),
            arrived(promoted) + arrived(halo - promoted),
        );
        let row = [
            m.id.into(),
            m.token.into(),
            DSP_ADVERTISER_ID.into(),
            ds.into(),
            (DSP_ADVERTISER_ID * 10 + 1).into(),
            (DSP_ADVERTISER_ID * 100 + k as i64).into(),
            (*name).into(),
            impressions.into(),
            clicks.into(),
            Cell::Cents(cost),
            halo.into(),
            Cell::Cents(halo * 3_499),
            promoted.into(),
            Cell::Cents(promoted * 3_499),
            m.currency.into(),
        ];
        out.insert(t.dsp, &row)?;
    }
    Ok(())
}

/// The vendor's DSP advertiser id (the seat id is a different, refused value).
pub const DSP_ADVERTISER_ID: i64 = 590_000_000_000_001;
/// The vendor's DSP seat id.
pub const DSP_SEAT_ID: &str = "ENTITYSEAT7DEMO42";

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_adds_up() {
        assert_eq!(split(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(split(7, &[3.0, 1.0]).iter().sum::<i64>(), 7);
        assert_eq!(split(5, &[]), Vec::<i64>::new());
        assert_eq!(split(5, &[0.0]), vec![0]);
    }
}

//! The world's economics: what each sale earned after the marketplace's fees, refunds,
//! promotions, storage and reimbursements, what the goods cost, and how it all became each
//! settlement's deposit (documented in `docs/warehouse.md`, "The demo world's economics").
//!
//! The simulation tells it each seller SKU's day (units, the price paid, the shelf price, a
//! coupon) and stock, and each campaign's spend; it posts the amounts, closes a settlement
//! every 14 days into `spapi_settlement`, and keeps the truth (`truth::Economics`). It draws
//! from streams of its own, so the world's other facts are the same with or without it.
//!
//! One order line per SKU and day: the day's units at the day's price (posted that day).
//! Refunds post 4–30 days after their sale; of refunded units 65 % return to stock (their cost
//! comes back), 25 % are damaged by the customer (lost), 10 % are reimbursed three weeks later.

mod costs;
mod estimate;
mod fees;
mod ledger;
mod lines;
pub mod rates;
mod returns;
pub mod tenant;
mod transactions;
pub mod truth;

use std::collections::BTreeMap;

use chrono::{Datelike, Duration, NaiveDate};

use crate::load::Loader;
use crate::model::Model;
use crate::rng::Rng;
use crate::spec::WorldSpec;
use costs::Costs;
pub use estimate::{FeeEstimate, Fees};
use fees::{Money, Schedule, Tier};
use ledger::{Close, Posting, Terms};
use lines::{merchant_fee, reimbursement, sku_fee};
use pp_warehouse::schema::{Table, table};
use rates::Rates;
use truth::{Line, Months};

/// A SKU's day as the simulation sold it.
pub struct SoldDay {
    pub units: i64,
    /// What a unit was paid (a coupon taken off).
    pub price: i64,
    /// The shelf price (before a coupon).
    pub shelf: i64,
}

/// A cost the P&L carries that the marketplace never posts (goods and inbound).
struct Atom {
    item: usize,
    line: Line,
    amount: i64,
}

/// Amounts due on a later day.
#[derive(Default)]
struct Due {
    postings: Vec<(usize, Posting)>,
    atoms: Vec<Atom>,
    returns: Vec<returns::Return>,
}

/// A sale a refund is about: its item, day, order, the price paid, the shelf price and the
/// referral fee a unit paid.
struct Sold {
    item: usize,
    day: i64,
    order: String,
    price: i64,
    shelf: i64,
    referral: i64,
}

/// A SKU's month of stock, for storage.
#[derive(Default, Clone, Copy)]
struct StockMonth {
    unit_days: i64,
    days: i64,
    aged: i64,
}

/// The economics of one world's run.
pub struct Economics {
    origin: NaiveDate,
    rng: Rng,
    schedule: Schedule,
    costs: Costs,
    rates: Rates,
    terms: Vec<Terms>,
    /// (merchant, first day) of each deal.
    deals: Vec<(usize, i64)>,
    due: BTreeMap<i64, Due>,
    open: Vec<Vec<Posting>>,
    ad_spend: Vec<i64>,
    reserve: Vec<i64>,
    stock: Vec<StockMonth>,
    months: Months,
    settlements: Vec<truth::Settlement>,
    /// Postings the provider's transaction list may still show at the end of the run.
    listed: Vec<transactions::Listed>,
    /// The first day whose postings the list may show.
    listed_from: NaiveDate,
    table: &'static Table,
    returns: &'static Table,
}

impl Economics {
    /// The economics of `model`, with `deals` as (merchant, first day).
    pub fn new(spec: &WorldSpec, model: &Model, deals: Vec<(usize, i64)>) -> Economics {
        let mut rng = stream(spec);
        let schedule = Schedule::draw(spec.first_day(), &mut rng);
        let costs = Costs::draw(model, spec.first_day(), &mut rng);
        let rates = Rates::draw(
            spec.first_day(),
            spec.days(),
            &mut Rng::new(spec.seed ^ 0x0FF1_CE00_0000_0ECB),
        );
        let n = model.merchants.len();
        Economics {
            origin: spec.first_day(),
            rng,
            schedule,
            costs,
            rates,
            terms: model.merchants.iter().map(Terms::of).collect(),
            deals,
            due: BTreeMap::new(),
            open: vec![Vec::new(); n],
            ad_spend: vec![0; n],
            reserve: vec![0; n],
            stock: vec![StockMonth::default(); model.items.len()],
            months: Months::default(),
            settlements: Vec::new(),
            listed: Vec::new(),
            listed_from: spec.today - Duration::days(transactions::WINDOW_DAYS),
            table: table("spapi_settlement"),
            returns: table("spapi_fba_returns"),
        }
    }

    fn date(&self, d: i64) -> NaiveDate {
        self.origin + Duration::days(d)
    }

    fn at(&mut self, d: i64) -> chrono::NaiveDateTime {
        let (h, m) = (self.rng.range(8, 19), self.rng.range(0, 59));
        self.date(d)
            .and_hms_opt(h as u32, m as u32, 0)
            .expect("time")
    }

    /// A campaign's spend on day `d`.
    pub fn ad_spend(
        &mut self,
        model: &Model,
        merchant: usize,
        product: &'static str,
        d: i64,
        cents: i64,
    ) {
        if cents == 0 || model.merchants[merchant].vendor {
            return;
        }
        self.ad_spend[merchant] += cents;
        let date = self.date(d);
        self.atom_month(
            model,
            merchant,
            None,
            date,
            Line::Advertising(product),
            -cents,
        );
    }

    /// One SKU's day of sales: the order line, its refunds to come and the goods' cost.
    pub fn sale(&mut self, model: &Model, i: usize, d: i64, day: &SoldDay) {
        let it = &model.items[i];
        let m = &model.merchants[it.merchant];
        let (Some(sku), false, true) = (it.sku.as_deref(), m.vendor, day.units > 0) else {
            return;
        };
        let money = Money::of(m);
        let cat = fees::category(it.brand);
        let date = self.date(d);
        let units = day.units;
        let referral = fees::referral(cat, &money, day.price);
        let fba = money.local(self.schedule.usd_cents(Tier::of(it.noun), date));
        let posted = self.at(d);
        let order = format!("1{:02}-{:07}-{:07}", m.id, d, self.rng.range(0, 9_999_999));
        let postings = lines::order(&lines::Sale {
            posted,
            order: &order,
            sku,
            units,
            shelf: day.shelf,
            price: day.price,
            referral,
            fba,
            coupon_fee: money.local(fees::COUPON_FEE_USD_CENTS),
        });
        let cost = *self.costs.on(i, date).expect("a seller item has a cost");
        let atoms = [
            Atom {
                item: i,
                line: Line::CostOfGoods,
                amount: -units * cost.unit,
            },
            Atom {
                item: i,
                line: Line::Inbound,
                amount: -units * cost.inbound(),
            },
        ];
        self.post(model, it.merchant, postings);
        for a in atoms {
            self.atom(model, date, a);
        }
        // refunds to come, each unit's fate drawn now
        let refunded = stochastic(
            units as f64 * cat.refund_bp as f64 / 10_000.0,
            &mut self.rng,
        );
        if refunded > 0 {
            let sold = Sold {
                item: i,
                day: d,
                order,
                price: day.price,
                shelf: day.shelf,
                referral,
            };
            self.refund(model, &sold, refunded);
        }
    }

    /// A sale's refund of `refunded` units, 4–30 days on: the refund's lines, each unit's
    /// return (to stock, damaged by the buyer, or damaged on the way and reimbursed), and the
    /// landed cost of the units back in stock.
    fn refund(&mut self, model: &Model, s: &Sold, refunded: i64) {
        let it = &model.items[s.item];
        let m = &model.merchants[it.merchant];
        let sku = it.sku.as_deref().expect("a seller's item");
        let money = Money::of(m);
        let r = s.day + self.rng.range(4, 30);
        let mut fates = [0_i64; 3];
        for _ in 0..refunded {
            let u = self.rng.unit();
            fates[usize::from(u >= 0.65) + usize::from(u >= 0.90)] += 1;
        }
        let [restocked, _, reimbursed] = fates;
        let at = self.at(r);
        let due = lines::refund(&lines::Refund {
            posted: at,
            order: &s.order,
            order_day: s.day,
            sku,
            units: refunded,
            shelf: s.shelf,
            price: s.price,
            referral: s.referral,
            refund_commission: fees::refund_commission(&money, s.referral),
        });
        let back = *self.costs.on(s.item, self.date(r)).expect("a cost");
        let entry = self.due.entry(r).or_default();
        entry
            .postings
            .extend(due.into_iter().map(|p| (it.merchant, p)));
        for (k, units) in fates.into_iter().enumerate().filter(|(_, n)| *n > 0) {
            entry.returns.push(returns::Return {
                item: s.item,
                at,
                order: s.order.clone(),
                units,
                disposition: returns::DISPOSITIONS[k],
            });
        }
        if restocked > 0 {
            entry.atoms.push(Atom {
                item: s.item,
                line: Line::CostOfGoods,
                amount: restocked * back.unit,
            });
            entry.atoms.push(Atom {
                item: s.item,
                line: Line::Inbound,
                amount: restocked * back.inbound(),
            });
        }
        if reimbursed > 0 {
            let when = r + 21;
            let posted = self.at(when);
            let amount = reimbursed * (it.list_cents / 2);
            let p = reimbursement(posted, sku, reimbursed, "CUSTOMER_RETURN", amount);
            self.due
                .entry(when)
                .or_default()
                .postings
                .push((it.merchant, p));
        }
    }

    /// One SKU's stock at the end of day `d`: its fulfillable units and the trailing 28-day
    /// average of units sold.
    pub fn stock(&mut self, d: i64, i: usize, fulfillable: i64, avg_daily: f64) {
        let date = self.date(d);
        let s = &mut self.stock[i];
        s.unit_days += fulfillable;
        s.days += 1;
        if (date + Duration::days(1)).day() == 1 {
            s.aged = (fulfillable as f64 - 180.0 * avg_daily).max(0.0).floor() as i64;
        }
    }

    /// The start of day `d`: on a month's first day, the selling plan is charged and last
    /// month's storage made due.
    pub fn start_of_day(&mut self, model: &Model, d: i64) {
        let date = self.date(d);
        if date.day() != 1 {
            return;
        }
        for (mi, m) in model
            .merchants
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.vendor)
        {
            let posted = date.and_hms_opt(0, 5, 0).expect("time");
            let fee = merchant_fee(posted, "Subscription Fee", -fees::subscription(m));
            self.post(model, mi, vec![fee]);
        }
        if d > 0 {
            self.charge_storage(model, d);
        }
    }

    /// The end of day `d`: what falls due today is posted, a deal's fee, a warehouse's losses
    /// reimbursed, and a closing period settled.
    pub fn end_of_day(
        &mut self,
        model: &Model,
        d: i64,
        out: &mut dyn Loader,
    ) -> Result<(), String> {
        let date = self.date(d);
        for k in 0..self.deals.len() {
            let (mi, start) = self.deals[k];
            if start == d {
                let fee = Money::of(&model.merchants[mi]).local(fees::DEAL_FEE_USD_CENTS);
                let posted = self.at(d);
                self.post(model, mi, vec![merchant_fee(posted, "DealFee", -fee)]);
            }
        }
        if date.day() == 15 {
            self.warehouse_losses(model, d);
        }
        if let Some(due) = self.due.remove(&d) {
            for (mi, p) in due.postings {
                self.post(model, mi, vec![p]);
            }
            for a in due.atoms {
                self.atom(model, date, a);
            }
            for r in &due.returns {
                r.write(model, self.returns, out)?;
            }
        }
        if (d + 1) % ledger::PERIOD_DAYS == 0 {
            self.close(model, d, out)?;
        }
        Ok(())
    }

    /// Last month's storage, charged on the 7th for each SKU that had stock (`d` is the
    /// month's first day).
    fn charge_storage(&mut self, model: &Model, d: i64) {
        let month = (self.date(d) - Duration::days(1)).month();
        for i in 0..model.items.len() {
            let s = std::mem::take(&mut self.stock[i]);
            let it = &model.items[i];
            let m = &model.merchants[it.merchant];
            let Some(sku) = it.sku.as_deref().filter(|_| !m.vendor && s.days > 0) else {
                continue;
            };
            let money = Money::of(m);
            let mcf = Tier::of(it.noun).milli_cubic_feet();
            let rate = money.local(fees::storage_rate_usd_cents(month));
            let fee = (s.unit_days * mcf * rate + s.days * 500) / (s.days * 1_000);
            let aged = (s.aged * mcf * money.local(fees::AGED_RATE_USD_CENTS) + 500) / 1_000;
            let posted = self.at(d + 6);
            let e = self.due.entry(d + 6).or_default();
            for (adesc, amount) in [("Storage Fee", fee), ("StorageRenewalBilling", aged)] {
                if amount > 0 {
                    e.postings
                        .push((it.merchant, sku_fee(posted, sku, adesc, -amount)));
                }
            }
        }
    }

    /// Now and then a warehouse loses or damages units in stock, and reimburses them.
    fn warehouse_losses(&mut self, model: &Model, d: i64) {
        for it in &model.items {
            let Some(sku) = it.sku.as_deref() else {
                continue;
            };
            if model.merchants[it.merchant].vendor || self.rng.unit() >= 0.04 {
                continue;
            }
            let lost = self.rng.range(1, 3);
            let posted = self.at(d);
            let p = reimbursement(
                posted,
                sku,
                lost,
                "WAREHOUSE_DAMAGE",
                lost * (it.list_cents / 2),
            );
            self.post(model, it.merchant, vec![p]);
        }
    }

    fn close(&mut self, model: &Model, d: i64, out: &mut dyn Loader) -> Result<(), String> {
        let (p, start, end) = ledger::period(self.origin, d);
        for (mi, m) in model
            .merchants
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.vendor)
        {
            let c = Close {
                m,
                p,
                start,
                end,
                terms: &self.terms[mi],
                ad_spend: std::mem::take(&mut self.ad_spend[mi]),
                reserve_before: self.reserve[mi],
                first_day: p * ledger::PERIOD_DAYS,
            };
            let postings = std::mem::take(&mut self.open[mi]);
            let s = ledger::close(&c, postings, self.table, out)?;
            self.reserve[mi] = -s.reserve_held;
            self.settlements.push(s);
        }
        Ok(())
    }

    fn post(&mut self, model: &Model, mi: usize, postings: Vec<Posting>) {
        let m = &model.merchants[mi];
        for p in postings {
            if let Some(line) = p.line {
                let rate = self.rates.on(p.posted.date());
                let usd = rates::convert(p.amount, m.currency, truth::REPORTING, rate);
                self.months.add(
                    m.id,
                    p.sku.as_deref(),
                    p.posted.date(),
                    m.currency,
                    line,
                    p.amount,
                    usd,
                );
                if p.posted.date() >= self.listed_from {
                    self.listed.push(transactions::Listed {
                        merchant: mi,
                        posting: p.clone(),
                    });
                }
            }
            self.open[mi].push(p);
        }
    }

    fn atom(&mut self, model: &Model, date: NaiveDate, a: Atom) {
        let it = &model.items[a.item];
        self.atom_month(
            model,
            it.merchant,
            it.sku.as_deref(),
            date,
            a.line,
            a.amount,
        );
    }

    fn atom_month(
        &mut self,
        model: &Model,
        mi: usize,
        sku: Option<&str>,
        date: NaiveDate,
        line: Line,
        cents: i64,
    ) {
        let m = &model.merchants[mi];
        let usd = rates::convert(cents, m.currency, truth::REPORTING, self.rates.on(date));
        self.months
            .add(m.id, sku, date, m.currency, line, cents, usd);
    }

    /// Writes what the provider's transaction list shows at the end of the run (`days` days
    /// from the origin).
    pub fn write_transactions(
        &self,
        model: &Model,
        days: i64,
        out: &mut dyn Loader,
    ) -> Result<(), String> {
        let today = self.date(days);
        let t = table("spapi_finance_transaction");
        transactions::write(&self.listed, model.merchants, self.origin, today, t, out)
    }

    /// The truth, at the end of the run (`days` days from the origin).
    pub fn finish(self, model: &Model, days: i64) -> truth::Economics {
        let open_from = ledger::period(self.origin, days).1;
        let last = self.date(days - 1);
        let mut costs = Vec::new();
        for (i, it) in model.items.iter().enumerate() {
            let m = &model.merchants[it.merchant];
            let Some(sku) = &it.sku else { continue };
            for l in self.costs.periods(i, last) {
                costs.push(truth::CostPeriod {
                    seller_id: m.id,
                    sku: sku.clone(),
                    from: l.from,
                    currency: m.currency,
                    unit_cost: l.unit,
                    freight: l.freight,
                    duties: l.duties,
                });
            }
        }
        let fee_changes = model.merchants.iter().filter(|m| !m.vendor).fold(
            Vec::<fees::FeeChange>::new(),
            |mut all, m| {
                if !all.iter().any(|c| c.currency == m.currency) {
                    all.extend(self.schedule.changes(m, last));
                }
                all
            },
        );
        truth::Economics {
            reporting_currency: truth::REPORTING,
            months: self.months.finish(open_from),
            settlements: self.settlements,
            costs,
            fee_changes,
            cost_changes: self
                .costs
                .changes
                .into_iter()
                .filter(|c| c.date <= last)
                .collect(),
            rates: self.rates.published().cloned().collect(),
        }
    }
}

/// The economics' own stream: the fee schedule first, then the costs, then each day's draws.
fn stream(spec: &WorldSpec) -> Rng {
    Rng::new(spec.seed ^ 0x0EC0_0000_F1AA_5E7D)
}

fn stochastic(x: f64, rng: &mut Rng) -> i64 {
    let floor = x.floor();
    floor as i64 + i64::from(rng.unit() < x - floor)
}

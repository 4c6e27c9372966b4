//! `INS-PROFIT-BRIDGE-01`: why contribution (CM3, docs/profit.md) moved between two periods,
//! split into volume, mix, price, fee rates, cost of goods, refunds, advertising and exchange
//! rate, SKU by SKU and in total, the parts summing to the change to the cent.
//!
//! Each SKU's contribution before advertising is `units × share × (price + fees + cost) +
//! refunds`: the scope's units sold, the SKU's share of them, and per unit what buyers paid,
//! the marketplace's fees and credits, and the landed cost. Its change splits as a profit
//! variance does: volume (the scope's units) and mix (the SKU's share) at the earlier period's
//! margin per unit, price, fee rates and cost of goods (each per-unit change) at the later
//! period's units — so a new cost from a known day moves the cost part and nothing else —
//! and its refunds' change; charges that do not come per unit (a SKU's storage in a period it
//! sold nothing) are fee rates. The parts are rounded to cents that sum to the SKU's change
//! (`shapley::round_exact`: each rounded down, the cents left over to the largest remainders). The account's own lines
//! are the advertising part (advertising) and fee rates (the selling plan, deal fees). In the
//! reporting currency, the merchant-currency parts are taken at the earlier period's average
//! rate and the rest of the change is the exchange-rate part. A SKU without a cost in either
//! period is left out and named. The audited writes, cost changes and timeline stakes inside
//! the periods are listed beside the part each most touches.

use std::collections::{BTreeMap, BTreeSet};

use chrono::Duration;
use pp_core::Result;
use pp_store::ads_writes::{ANSWERED, AuditFilter};
use pp_store::brand::TimelineQuery;
use schemars::JsonSchema;
use serde::Serialize;

use super::profit::books;
use super::{Answer, Input, Money, money, settle};
use crate::data::Wh;
use crate::params::Period;
use crate::profit::book::Book;
use crate::profit::lines::{Line, Pnl};
use crate::shapley::round_exact;

/// The parts, in order.
pub const PARTS: [&str; 8] = [
    "volume",
    "mix",
    "price",
    "feeRates",
    "costOfGoods",
    "refunds",
    "advertising",
    "exchangeRate",
];

/// One part of the change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitBridgePart")]
pub struct Part {
    pub part: &'static str,
    /// In the reporting currency (null when a rate is missing).
    pub amount: Option<Money>,
    /// In the merchant's currency (null for the exchange-rate part).
    pub local: Option<Money>,
}

/// One SKU's bridge, in the merchant's currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitBridgeItem")]
pub struct Item {
    pub sku: String,
    pub before: Money,
    pub after: Money,
    pub change: Money,
    pub units_before: i64,
    pub units_after: i64,
    pub volume: Money,
    pub mix: Money,
    pub price: Money,
    pub fee_rates: Money,
    pub cost_of_goods: Money,
    pub refunds: Money,
}

/// Something that happened inside the periods, beside the part it most touches.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitBridgeHappened")]
pub struct Happened {
    pub part: &'static str,
    /// `audited_write`, `cost_change` or `stake`.
    pub kind: &'static str,
    pub id: String,
    /// A day or an instant (RFC 3339).
    pub at: String,
    pub what: String,
}

/// Contribution in both currencies.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitBridgeTotal")]
pub struct Total {
    pub local: Money,
    pub reporting: Option<Money>,
}

/// `INS-PROFIT-BRIDGE-01`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfitBridge {
    pub currency: String,
    pub reporting_currency: String,
    pub period: Period,
    pub compare_period: Period,
    /// CM3 of the compared SKUs and the account's lines, each period.
    pub before: Total,
    pub after: Total,
    pub change: Total,
    /// They sum to `change` (each column to its own).
    pub parts: Vec<Part>,
    /// SKUs by the size of their change, at most `top`.
    pub items: Vec<Item>,
    /// The SKUs not listed, summed.
    pub other_items: Option<Item>,
    /// SKUs sold without a cost in either period: left out of every figure.
    pub left_out: Vec<String>,
    pub missing_rates: Vec<String>,
    pub happened: Vec<Happened>,
}

/// A period's facts of one SKU, in cents of the merchant's currency.
#[derive(Debug, Clone, Copy, Default)]
struct Facts {
    units: i64,
    paid: i64,
    fees: i64,
    cost: i64,
    refunds: i64,
}

impl Facts {
    fn of(p: &Pnl, units: i64) -> Self {
        let fees = p.sum(Line::marketplace).0;
        Facts {
            units,
            paid: p.get(Line::Sales) + p.get(Line::Promotions),
            fees,
            cost: p.get(Line::CostOfGoods) + p.get(Line::Inbound),
            refunds: p.get(Line::Refunds),
        }
    }

    fn contribution(&self) -> i64 {
        self.paid + self.fees + self.cost + self.refunds
    }

    /// Per unit: paid, fees, cost (none without units).
    fn per_unit(&self) -> Option<[f64; 3]> {
        (self.units > 0).then(|| {
            let u = self.units as f64;
            [
                self.paid as f64 / u,
                self.fees as f64 / u,
                self.cost as f64 / u,
            ]
        })
    }
}

/// A period's book by SKU (with its totals in both currencies) and the account's lines.
struct Side {
    skus: BTreeMap<String, Facts>,
    ads: i64,
    account_fees: i64,
    /// CM3 in the reporting currency (none when a rate is missing).
    reporting: Option<i64>,
}

fn side(b: &Book, keep: &dyn Fn(&str) -> bool) -> Side {
    let mut per: BTreeMap<String, Pnl> = BTreeMap::new();
    let mut account = Pnl::default();
    for ((sku, _), p) in &b.rows {
        match sku {
            Some(s) if keep(s) => per.entry(s.clone()).or_default().merge(p),
            Some(_) => {}
            None => account.merge(p),
        }
    }
    let mut reporting = account.sum(|_| true).1;
    let skus = per
        .iter()
        .map(|(s, p)| {
            reporting = reporting.zip(p.sum(|_| true).1).map(|(a, b)| a + b);
            (
                s.clone(),
                Facts::of(p, b.units.get(s).copied().unwrap_or(0)),
            )
        })
        .collect();
    let is_ad = |l: Line| {
        matches!(
            l,
            Line::AdvertisingSp | Line::AdvertisingSb | Line::AdvertisingSd | Line::AdvertisingDsp
        )
    };
    Side {
        skus,
        ads: account.sum(is_ad).0,
        account_fees: account.sum(|l| !is_ad(l)).0,
        reporting,
    }
}

/// One SKU's parts in cents: volume, mix, price, fee rates, cost of goods, refunds. Volume
/// and mix are taken at the earlier period's margin per unit, the per-unit changes at the
/// later period's units, so a change of one rate (a new cost from a known day) moves its own
/// part and no other.
fn item_parts(b: Facts, a: Facts, total_b: i64, total_a: i64) -> [i64; 6] {
    let (pb, pa) = (b.per_unit(), a.per_unit());
    let pick = |k: usize| settle(pb.map(|v| v[k]), pa.map(|v| v[k]));
    let (paid, fees, cost) = (pick(0), pick(1), pick(2));
    let margin_b = paid.0 + fees.0 + cost.0;
    let share = |f: &Facts, total: i64| {
        if total > 0 {
            f.units as f64 / total as f64
        } else {
            0.0
        }
    };
    let (sb, sa) = (share(&b, total_b), share(&a, total_a));
    let ua = a.units as f64;
    // what the factors do not carry: charges of a period without units (fee rates)
    let carried = |f: &Facts, per: f64| f.units as f64 * per;
    let residual = |f: &Facts, per: (f64, f64, f64)| {
        (f.paid + f.fees + f.cost) as f64 - carried(f, per.0 + per.1 + per.2)
    };
    let shares = [
        (total_a - total_b) as f64 * sb * margin_b,
        total_a as f64 * (sa - sb) * margin_b,
        ua * (paid.1 - paid.0),
        ua * (fees.1 - fees.0) + residual(&a, (paid.1, fees.1, cost.1))
            - residual(&b, (paid.0, fees.0, cost.0)),
        ua * (cost.1 - cost.0),
        (a.refunds - b.refunds) as f64,
    ];
    let cents = round_exact(a.contribution() - b.contribution(), &shares);
    [cents[0], cents[1], cents[2], cents[3], cents[4], cents[5]]
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<ProfitBridge>> {
    let period = input
        .period
        .unwrap_or_else(|| super::profit::default_period(input.data));
    let compare = input.compare_period.unwrap_or_else(|| period.previous());
    let (after_book, reporting) = books(wh, input, period).await?;
    let (before_book, _) = books(wh, input, compare).await?;
    let left_out: BTreeSet<String> = after_book
        .uncosted
        .keys()
        .chain(before_book.uncosted.keys())
        .cloned()
        .collect();
    let keep = |s: &str| !left_out.contains(s);
    let (b, a) = (side(&before_book, &keep), side(&after_book, &keep));
    let units = |s: &Side| s.skus.values().map(|f| f.units).sum::<i64>();
    let (ub, ua) = (units(&b), units(&a));
    let all: BTreeSet<&String> = b.skus.keys().chain(a.skus.keys()).collect();
    let mut items = Vec::new();
    let mut sums = [0_i64; 6];
    for sku in all {
        let (fb, fa) = (
            b.skus.get(sku).copied().unwrap_or_default(),
            a.skus.get(sku).copied().unwrap_or_default(),
        );
        let p = item_parts(fb, fa, ub, ua);
        for (s, v) in sums.iter_mut().zip(p) {
            *s += v;
        }
        items.push(item(sku, fb, fa, p));
    }
    items.sort_by(|x, y| {
        y.change
            .abs()
            .total_cmp(&x.change.abs())
            .then(x.sku.cmp(&y.sku))
    });
    let other_items = (items.len() > input.top).then(|| summed(&items[input.top..]));
    items.truncate(input.top);
    let cm =
        |s: &Side| s.skus.values().map(Facts::contribution).sum::<i64>() + s.ads + s.account_fees;
    let (cb, ca) = (cm(&b), cm(&a));
    let local = [
        sums[0],
        sums[1],
        sums[2],
        sums[3] + a.account_fees - b.account_fees,
        sums[4],
        sums[5],
        a.ads - b.ads,
    ];
    debug_assert_eq!(local.iter().sum::<i64>(), ca - cb);
    let currency = input.scope.currency.clone();
    // in the reporting currency: the local parts at the earlier period's average rate, the
    // rest of the change the exchange rate's
    let (reporting_parts, rb, ra) = match (b.reporting, a.reporting) {
        (Some(rb), Some(ra)) => {
            let rate = if currency == reporting {
                1.0
            } else {
                average_rate(input, &currency, &reporting, compare).await?
            };
            let mut shares: Vec<f64> = local.iter().map(|v| *v as f64 * rate).collect();
            shares.push(((ra - rb) as f64) - (ca - cb) as f64 * rate);
            if currency == reporting {
                *shares.last_mut().expect("eight") = 0.0;
            }
            (Some(round_exact(ra - rb, &shares)), Some(rb), Some(ra))
        }
        _ => (None, None, None),
    };
    let parts = PARTS
        .iter()
        .enumerate()
        .map(|(k, name)| Part {
            part: name,
            amount: reporting_parts.as_ref().map(|r| money(r[k])),
            local: local.get(k).map(|v| money(*v)),
        })
        .collect();
    let happened = happened(input, compare, period).await?;
    let mut limitations = Vec::new();
    if !left_out.is_empty() {
        limitations.push(format!(
            "{} SKU(s) sold without a cost in a period are left out of every figure (enter costs: POST /api/costs)",
            left_out.len()
        ));
    }
    let missing_rates: BTreeSet<String> = after_book
        .missing_rates
        .iter()
        .chain(&before_book.missing_rates)
        .map(|m| format!("{} {}", m.currency, m.date))
        .collect();
    if reporting_parts.is_none() {
        limitations.push("an amount has no exchange rate on its day: the parts are in the merchant's currency only".into());
    }
    if after_book.estimated.is_some() || before_book.estimated.is_some() {
        limitations.push("part of a period is estimated (INS-PROFIT-01 says which days); the bridge moves when it posts".into());
    }
    Ok(Answer {
        result: ProfitBridge {
            currency,
            reporting_currency: reporting,
            period,
            compare_period: compare,
            before: Total {
                local: money(cb),
                reporting: rb.map(money),
            },
            after: Total {
                local: money(ca),
                reporting: ra.map(money),
            },
            change: Total {
                local: money(ca - cb),
                reporting: rb.zip(ra).map(|(b, a)| money(a - b)),
            },
            parts,
            items,
            other_items,
            left_out: left_out.into_iter().collect(),
            missing_rates: missing_rates.into_iter().collect(),
            happened,
        },
        limitations,
        evidence: Vec::new(),
    })
}

fn item(sku: &str, b: Facts, a: Facts, p: [i64; 6]) -> Item {
    Item {
        sku: sku.to_owned(),
        before: money(b.contribution()),
        after: money(a.contribution()),
        change: money(a.contribution() - b.contribution()),
        units_before: b.units,
        units_after: a.units,
        volume: money(p[0]),
        mix: money(p[1]),
        price: money(p[2]),
        fee_rates: money(p[3]),
        cost_of_goods: money(p[4]),
        refunds: money(p[5]),
    }
}

/// The items not listed, summed (cents added, so the sums stay exact).
fn summed(rest: &[Item]) -> Item {
    let c = |f: fn(&Item) -> Money| money(rest.iter().map(|i| (f(i) * 100.0).round() as i64).sum());
    Item {
        sku: format!("{} other SKUs", rest.len()),
        before: c(|i| i.before),
        after: c(|i| i.after),
        change: c(|i| i.change),
        units_before: rest.iter().map(|i| i.units_before).sum(),
        units_after: rest.iter().map(|i| i.units_after).sum(),
        volume: c(|i| i.volume),
        mix: c(|i| i.mix),
        price: c(|i| i.price),
        fee_rates: c(|i| i.fee_rates),
        cost_of_goods: c(|i| i.cost_of_goods),
        refunds: c(|i| i.refunds),
    }
}

/// The average over `p`'s days of what one unit of `from` is in `to`.
async fn average_rate(input: &Input, from: &str, to: &str, p: Period) -> Result<f64> {
    let book = pp_profit::Profit::rate_book(
        &input.state.store,
        &input.state.tenant,
        &[from, to],
        p.start,
        p.end,
    )
    .await?;
    let (mut sum, mut n) = (0.0, 0);
    let mut d = p.start;
    while d <= p.end {
        if let (Some(f), Some(t)) = (book.per_eur(from, d), book.per_eur(to, d)) {
            sum += t as f64 / f as f64;
            n += 1;
        }
        d += Duration::days(1);
    }
    Ok(if n == 0 { 1.0 } else { sum / n as f64 })
}

fn day_ms(d: chrono::NaiveDate) -> i64 {
    d.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default()
}

/// The part a timeline stake's category most touches.
fn stake_part(category: &str) -> &'static str {
    match category {
        c if c.contains("price") || c.contains("promo") || c.contains("coupon") => "price",
        c if c.contains("launch") || c.contains("migration") => "mix",
        c if c.contains("budget") || c.contains("media") || c.contains("campaign") => "advertising",
        c if c.contains("cost") || c.contains("supplier") => "costOfGoods",
        c if c.contains("fee") => "feeRates",
        _ => "volume",
    }
}

/// The audited writes, cost changes and stakes of the merchant inside either period.
async fn happened(input: &Input, compare: Period, period: Period) -> Result<Vec<Happened>> {
    let st = &input.state;
    let (from, to) = (compare.start.min(period.start), compare.end.max(period.end));
    let tokens: Vec<&str> = input
        .scope
        .sellers
        .iter()
        .map(|s| s.token.as_str())
        .collect();
    let mut out = Vec::new();
    let writes = st
        .store
        .ads_writes()
        .list(
            &st.tenant,
            &AuditFilter {
                since_ms: Some(day_ms(from)),
                until_ms: Some(day_ms(to + Duration::days(1))),
                limit: 200,
                ..AuditFilter::default()
            },
        )
        .await?;
    for w in writes
        .iter()
        .filter(|w| w.status == ANSWERED && tokens.contains(&w.merchant.as_str()))
    {
        let part = if w.operation.starts_with("listings") {
            "price"
        } else {
            "advertising"
        };
        out.push(Happened {
            part,
            kind: "audited_write",
            id: w.id.clone(),
            at: pp_store::rfc3339_ms(w.created_ms),
            what: format!("{} by {}", w.operation, w.actor),
        });
    }
    let changes = st.store.costs().changes(&st.tenant, None, 500).await?;
    let (lo, hi) = (from.to_string(), to.to_string());
    for c in changes.iter().filter(|c| c.what == "cost") {
        let Some(day) = c.subject.rsplit('@').next() else {
            continue;
        };
        // a cost change's subject is `seller/marketplace/sku@day`
        let mine = input.scope.sellers.iter().any(|s| {
            c.subject
                .starts_with(&format!("{}/{}/", s.token, s.marketplace_id))
        });
        if mine && day >= lo.as_str() && day <= hi.as_str() {
            out.push(Happened {
                part: "costOfGoods",
                kind: "cost_change",
                id: c.id.to_string(),
                at: day.to_owned(),
                what: format!("{} by {}", c.subject, c.actor),
            });
        }
    }
    let stakes = st
        .store
        .brand()
        .timeline(
            st.tenant.as_str(),
            &TimelineQuery {
                today: chrono::Utc::now().date_naive().to_string(),
                kind: Some("stake".into()),
                overlaps: Some((lo.clone(), hi.clone())),
                limit: 200,
                ..TimelineQuery::default()
            },
        )
        .await?;
    let ids = input.scope.seller_ids();
    for s in stakes.iter().filter(|s| {
        s.payload["seller_id"]
            .as_i64()
            .is_none_or(|id| ids.contains(&id))
    }) {
        let category = s.category.clone().unwrap_or_default();
        out.push(Happened {
            part: stake_part(&category),
            kind: "stake",
            id: s.id.to_string(),
            at: s.starts_on.clone().unwrap_or_else(|| s.occurred_on.clone()),
            what: format!(
                "{} on {}: {}",
                category.replace('_', " "),
                s.brand,
                s.interpretation.clone().unwrap_or_default()
            ),
        });
    }
    out.sort_by(|a, b| {
        a.at.cmp(&b.at)
            .then(a.what.cmp(&b.what))
            .then(a.id.cmp(&b.id))
    });
    Ok(out)
}

//! `GET /v1/profit` (docs/v1.md): an account's P&L as a daily series on the data plane —
//! each day's net sales, marketplace fees and credits, advertising, cost of goods (with
//! inbound) and the three contribution levels, its status (settled, posted, estimated), and
//! the window's totals — read from the same book as `INS-PROFIT-01`, in the account's currency
//! with the currency on every money field. A day whose cost is missing has null levels, and the
//! SKUs are named.

use chrono::NaiveDate;
use pp_core::{Principal, Result, Scope as Grant};
use pp_store::Store;
use pp_warehouse::Warehouses;
use pp_warehouse::directory;
use pp_warehouse::v1::{self, Args, Ctx};
use serde_json::{Value, json};

use super::lines::{self, Line, Pnl};
use crate::data::Wh;
use crate::engines::StateStore;
use crate::engines::profit::books_of;
use crate::params::{Interval, Period, ProfitChoices};
use crate::scope::Scope;

const ARGS: &[&str] = &["account_id", "start_date", "end_date"];

/// The `/v1/profit` read: cheap to clone.
#[derive(Clone)]
pub struct ProfitDaily {
    store: Store,
    warehouses: Warehouses,
}

fn level(p: &Pnl, pick: fn(Line) -> bool, complete: bool, currency: &str) -> Value {
    if complete {
        v1::money_field(p.sum(pick).0 as f64 / 100.0, currency)
    } else {
        Value::Null
    }
}

fn day_json(p: &Pnl, complete: bool, currency: &str) -> Value {
    let m = |cents: i64| v1::money_field(cents as f64 / 100.0, currency);
    let ads = p.sum(|l| {
        matches!(
            l,
            Line::AdvertisingSp | Line::AdvertisingSb | Line::AdvertisingSd | Line::AdvertisingDsp
        )
    });
    json!({
        "net_sales": m(p.sum(lines::net_sales).0),
        "marketplace_fees": m(p.sum(Line::marketplace).0),
        "advertising": m(ads.0),
        "cost_of_goods": if complete { m(p.get(Line::CostOfGoods) + p.get(Line::Inbound)) } else { Value::Null },
        "cm1": level(p, lines::cm1, complete, currency),
        "cm2": level(p, lines::cm2, complete, currency),
        "cm3": level(p, lines::cm3, complete, currency),
    })
}

impl ProfitDaily {
    pub fn new(store: Store, warehouses: Warehouses) -> Self {
        Self { store, warehouses }
    }

    pub async fn read(
        &self,
        p: &Principal,
        args: &Args,
        cursors: &pp_core::cursor::Cursors,
    ) -> Result<Value> {
        p.require(&[Grant::RetailRead])?;
        let engine = self.warehouses.of(p).await?;
        let ctx = Ctx {
            engine: engine.as_ref(),
            limits: &self.warehouses.limits,
            tenant: p.tenant.as_str(),
            cursors,
        };
        let (a, w) =
            match v1::account_window(&ctx, args, ARGS, "spapi_sales_and_traffic_by_asin", 30)
                .await?
            {
                Ok(x) => x,
                Err(no_data) => return Ok(no_data),
            };
        if a.vendor {
            return Ok(json!({
                "account_id": a.id,
                "availability": { "status": "no_data", "domain": "profit", "reason": "a vendor sells to the retailer: its P&L is not the seller's" },
            }));
        }
        let wh = Wh::new(engine.clone(), &self.warehouses.limits);
        let sellers = directory::sellers(engine.as_ref(), &self.warehouses.limits).await?;
        let seller = sellers
            .into_iter()
            .filter(|s| s.id == a.seller_id)
            .collect::<Vec<_>>();
        let scope = Scope {
            sellers: seller,
            brand: None,
            currency: a.currency.clone(),
            vendor: a.vendor,
        };
        let state = StateStore {
            store: self.store.clone(),
            tenant: p.tenant.clone(),
        };
        let choices = ProfitChoices {
            interval: Interval::Day,
            ..ProfitChoices::default()
        };
        let period = Period {
            start: w.start,
            end: w.end,
        };
        let (book, reporting) = books_of(&wh, &scope, &state, &choices, period).await?;
        let uncosted = |day: NaiveDate| {
            book.uncosted
                .values()
                .any(|u| u.first <= day && day <= u.last)
        };
        let mut days: std::collections::BTreeMap<&str, Pnl> = Default::default();
        for ((_, d), row) in &book.rows {
            days.entry(d).or_default().merge(row);
        }
        let open_from = book.reach.and_then(|r| r.open_from);
        let mut total = Pnl::default();
        let mut series = Vec::new();
        for (d, row) in &days {
            let day: NaiveDate = d.parse().map_err(pp_core::Error::internal_from)?;
            total.merge(row);
            let estimated = row.cells.iter().any(|c| c.by_origin[2] != 0);
            let status = match open_from {
                _ if estimated => "estimated",
                Some(o) if day < o => "settled",
                _ => "posted",
            };
            let mut v = json!({ "date": d, "status": status });
            let fields = day_json(row, !uncosted(day), &a.currency);
            v.as_object_mut()
                .expect("an object")
                .extend(fields.as_object().cloned().unwrap_or_default());
            series.push(v);
        }
        let missing: Vec<Value> = book
            .uncosted
            .iter()
            .map(|(sku, u)| json!({ "sku": sku, "units": u.units, "first_day": u.first.to_string(), "last_day": u.last.to_string() }))
            .collect();
        Ok(json!({
            "account_id": a.id,
            "currency": a.currency,
            "reporting_currency": reporting,
            "window": w.json(),
            "series": series,
            "totals": day_json(&total, book.uncosted.is_empty(), &a.currency),
            "missing_costs": missing,
            "availability": { "status": "available" },
        }))
    }
}

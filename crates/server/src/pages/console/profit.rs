//! Profit in the console (every tenant member): a selling merchant's month — its P&L line by
//! line with each line's status, the contribution levels, the bridge from the month before as
//! a waterfall (`waterfall.rs`), and the SKUs sold without a cost (entered on the Costs page).
//! The figures are `INS-PROFIT-01` and `INS-PROFIT-BRIDGE-01`, run through the intelligence
//! service as the signed-in person (docs/profit.md).

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{Datelike, Duration, NaiveDate};
use pp_core::{Principal, Scope};
use pp_intelligence::{RunBody, RunRequest};
use serde_json::{Value, json};

use super::waterfall;
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

/// A merchant to pick.
pub struct Pick {
    pub label: String,
    pub href: String,
    pub here: bool,
}

pub struct LineRow {
    pub label: String,
    pub amount: String,
    pub status: String,
}

pub struct LevelRow {
    pub label: &'static str,
    pub amount: String,
    pub margin: String,
}

pub struct Missing {
    pub sku: String,
    pub units: i64,
    pub days: String,
}

#[derive(Template)]
#[template(path = "console/profit.html")]
struct Page {
    nav: Option<Nav>,
    picks: Vec<Pick>,
    merchant: String,
    month: String,
    previous: String,
    currency: String,
    lines: Vec<LineRow>,
    levels: Vec<LevelRow>,
    chart: Option<String>,
    missing: Vec<Missing>,
    error: Option<String>,
}

fn principal(s: &pp_store::SessionRow) -> pp_core::Result<Principal> {
    pp_auth::sessions::console_principal(s, &[Scope::IntelligenceRead, Scope::RetailRead])
}

fn money(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "unknown".into(), |x| format!("{x:.2}"))
}

/// Runs intelligence request `id` as `p`; its result.
pub async fn run(
    app: &SharedState,
    p: &Principal,
    id: &str,
    params: Value,
) -> pp_core::Result<Value> {
    let req = RunRequest::read(RunBody {
        id: id.into(),
        params,
        evidence: false,
        run_async: false,
    })?;
    let view = app.intelligence.run(p, req).await?;
    Ok(view.answer.get("result").cloned().unwrap_or(Value::Null))
}

fn month_period(first: NaiveDate) -> Value {
    let last = first
        .checked_add_months(chrono::Months::new(1))
        .map(|d| d - Duration::days(1))
        .unwrap_or(first);
    json!({ "start": first.to_string(), "end": last.to_string() })
}

/// A merchant's key in a page's query (`TOKEN:MARKETPLACE`).
pub fn key(m: &pp_warehouse::directory::Seller) -> String {
    format!("{}:{}", m.token, m.marketplace_id)
}

/// The merchants to pick on the page at `path`, and the one `want` names (the first without
/// it, or when it names none).
pub fn picks<'a>(
    merchants: &'a [pp_warehouse::directory::Seller],
    want: Option<String>,
    path: &str,
) -> (Vec<Pick>, Option<&'a pp_warehouse::directory::Seller>) {
    let chosen = merchants
        .iter()
        .find(|m| Some(key(m)) == want)
        .or(merchants.first());
    let picks = merchants
        .iter()
        .map(|m| Pick {
            label: m.name.clone(),
            href: format!(
                "{path}?merchant={}",
                form_urlencoded::byte_serialize(key(m).as_bytes()).collect::<String>()
            ),
            here: chosen.is_some_and(|c| c.id == m.id),
        })
        .collect();
    (picks, chosen)
}

/// The page's query: `merchant` (`TOKEN:MARKETPLACE`) and `month` (`YYYY-MM`).
fn query(req: &Request) -> (Option<String>, Option<String>) {
    let mut out = (None, None);
    for (k, v) in form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes()) {
        match &*k {
            "merchant" => out.0 = Some(v.into_owned()),
            "month" if !v.is_empty() => out.1 = Some(v.into_owned()),
            _ => {}
        }
    }
    out
}

pub async fn show(State(app): State<SharedState>, req: Request) -> Response {
    let (want, month) = query(&req);
    let (parts, _) = req.into_parts();
    let s = match web::signed_in(&app, &parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let p = match principal(&s) {
        Ok(p) => p,
        Err(e) => return web::failed(&e),
    };
    let merchants = match app.profit.merchants(&p).await {
        Ok(m) => m,
        Err(e) => return web::failed(&e),
    };
    let (picks, chosen) = picks(&merchants, want, "/console/profit");
    let mut page = Page {
        nav: Nav::of(&s, "profit"),
        picks,
        merchant: chosen.map(key).unwrap_or_default(),
        month: String::new(),
        previous: String::new(),
        currency: chosen.map(|m| m.currency.clone()).unwrap_or_default(),
        lines: Vec::new(),
        levels: Vec::new(),
        chart: None,
        missing: Vec::new(),
        error: None,
    };
    if let Some(m) = chosen {
        let filled = fill(&app, &p, m, month.as_deref(), &mut page).await;
        if let Err(e) = filled {
            page.error = Some(e.message().to_owned());
        }
    }
    let status = if page.error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(status, &page)
}

/// Runs the month's P&L and its bridge, and lays them out.
async fn fill(
    app: &SharedState,
    p: &Principal,
    m: &pp_warehouse::directory::Seller,
    month: Option<&str>,
    page: &mut Page,
) -> pp_core::Result<()> {
    let merchant = json!({ "sellerId": m.token, "marketplaceId": m.marketplace_id, "top": 500 });
    let mut params = merchant.clone();
    if let Some(month) = month {
        let first =
            NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").map_err(|_| {
                pp_core::Error::new(
                    pp_core::Kind::BadParams,
                    format!("month '{month}' is not YYYY-MM"),
                )
            })?;
        params["period"] = month_period(first);
    }
    let pnl = run(app, p, "INS-PROFIT-01", params).await?;
    let start: NaiveDate = pnl["period"]["start"]
        .as_str()
        .unwrap_or_default()
        .parse()
        .map_err(pp_core::Error::internal_from)?;
    let first = NaiveDate::from_ymd_opt(start.year(), start.month(), 1).unwrap_or(start);
    let before = first
        .checked_sub_months(chrono::Months::new(1))
        .unwrap_or(first);
    page.month = first.format("%Y-%m").to_string();
    page.previous = before.format("%Y-%m").to_string();
    for l in pnl["total"]["lines"].as_array().into_iter().flatten() {
        page.lines.push(LineRow {
            label: line_label(l["line"].as_str().unwrap_or("")),
            amount: money(&l["amount"]),
            status: l["status"].as_str().unwrap_or("").to_owned(),
        });
    }
    for (label, k) in [
        ("Net sales", "netSales"),
        ("CM1 (after cost of goods)", "cm1"),
        ("CM2 (after the marketplace)", "cm2"),
        ("CM3 (after advertising)", "cm3"),
    ] {
        let level = &pnl["total"][k];
        page.levels.push(LevelRow {
            label,
            amount: money(&level["amount"]),
            margin: level["marginPct"]
                .as_f64()
                .map_or_else(|| "—".into(), |x| format!("{x:.1}%")),
        });
    }
    for x in pnl["missingCosts"].as_array().into_iter().flatten() {
        page.missing.push(Missing {
            sku: x["sku"].as_str().unwrap_or("").to_owned(),
            units: x["units"].as_i64().unwrap_or(0),
            days: format!(
                "{} to {}",
                x["firstDay"].as_str().unwrap_or(""),
                x["lastDay"].as_str().unwrap_or("")
            ),
        });
    }
    let mut params = merchant;
    params["period"] = pnl["period"].clone();
    params["comparePeriod"] = month_period(before);
    params["top"] = json!(1);
    // a bridge needs the month before in the data; without it the page shows the P&L alone
    let Ok(bridge) = run(app, p, "INS-PROFIT-BRIDGE-01", params).await else {
        return Ok(());
    };
    let local = |v: &Value| v["local"].as_f64().unwrap_or(0.0);
    let mut bars = vec![waterfall::Bar {
        label: page.previous.clone(),
        amount: local(&bridge["before"]),
        total: true,
    }];
    for part in bridge["parts"].as_array().into_iter().flatten() {
        if part["part"] == "exchangeRate" {
            continue;
        }
        bars.push(waterfall::Bar {
            label: part_label(part["part"].as_str().unwrap_or("")).into(),
            amount: local(part),
            total: false,
        });
    }
    bars.push(waterfall::Bar {
        label: page.month.clone(),
        amount: local(&bridge["after"]),
        total: true,
    });
    page.chart = waterfall::svg(&bars)
        .map_err(|e| tracing::warn!(error = %e, "the profit page's waterfall could not be drawn"))
        .ok();
    Ok(())
}

fn line_label(line: &str) -> String {
    let mut out = String::new();
    for (i, c) in line.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else if i == 0 {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out.replace("Advertising sp", "Advertising: Sponsored Products")
        .replace("Advertising sb", "Advertising: Sponsored Brands")
        .replace("Advertising sd", "Advertising: Sponsored Display")
        .replace("Advertising dsp", "Advertising: DSP")
}

fn part_label(part: &str) -> &'static str {
    match part {
        "volume" => "volume",
        "mix" => "mix",
        "price" => "price",
        "feeRates" => "fee rates",
        "costOfGoods" => "cost of goods",
        "refunds" => "refunds",
        "advertising" => "advertising",
        _ => "other",
    }
}

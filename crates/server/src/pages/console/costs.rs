//! Costs in the console (every tenant member reads; admins change): for each selling merchant,
//! the SKUs sold in the last 90 days on a day no cost period covers — their margin cannot be
//! known — with a form to enter a SKU's cost; the reporting currency; the exchange rates held;
//! and the latest changes of the audit log. Every read and write goes through the profit
//! service as the signed-in person, like `GET /api/costs/missing` and `POST /api/costs`.

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::{Principal, Scope};
use pp_profit::costs::{CostInput, MissingSku};
use pp_profit::{ChangesQuery, CostsWrite, MissingQuery, RatesQuery, SettingsWrite};
use serde_json::Value;

use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

/// One merchant's uncosted SKUs.
pub struct Merchant {
    pub label: String,
    pub seller_id: String,
    pub marketplace_id: String,
    pub currency: String,
    pub sold: usize,
    pub missing: Vec<MissingSku>,
}

pub struct Change {
    at: String,
    actor: String,
    what: String,
    subject: String,
    after: String,
}

#[derive(Template)]
#[template(path = "console/costs.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    admin: bool,
    merchants: Vec<Merchant>,
    reporting: String,
    reporting_set: bool,
    /// Each currency's rates held: (currency, from, through, days).
    rates: Vec<(String, String, String, i64)>,
    changes: Vec<Change>,
    notice: Option<String>,
    error: Option<String>,
}

fn reader(s: &pp_store::SessionRow) -> pp_core::Result<Principal> {
    pp_auth::sessions::console_principal(s, &[Scope::RetailRead])
}

fn writer(s: &pp_store::SessionRow) -> pp_core::Result<Principal> {
    pp_auth::sessions::console_principal(s, &[Scope::CostsWrite, Scope::RetailRead])
}

fn brief(v: &Option<Value>) -> String {
    match v {
        None => "—".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

async fn read(
    app: &SharedState,
    p: &Principal,
) -> pp_core::Result<(
    Vec<Merchant>,
    pp_profit::ProfitSettings,
    pp_profit::RatesAnswer,
    pp_profit::ChangesAnswer,
)> {
    let profit = &app.profit;
    let mut merchants = Vec::new();
    for m in profit.merchants(p).await? {
        let q = MissingQuery {
            seller_id: m.token.clone(),
            marketplace_id: m.marketplace_id.clone(),
            from: None,
            to: None,
        };
        let a = profit.missing(p, q).await?;
        merchants.push(Merchant {
            label: format!("{} {} ({})", m.name, m.marketplace, m.token),
            seller_id: m.token,
            marketplace_id: m.marketplace_id,
            currency: m.currency,
            sold: a.skus_sold,
            missing: a.missing,
        });
    }
    let settings = profit.settings(p).await?;
    let rates = profit.rates(p, RatesQuery::default()).await?;
    let changes = ChangesQuery {
        before: None,
        limit: Some("20".into()),
    };
    let changes = profit.changes(p, changes).await?;
    Ok((merchants, settings, rates, changes))
}

async fn page(
    app: &SharedState,
    s: &pp_store::SessionRow,
    notice: Option<String>,
    error: Option<String>,
) -> Response {
    let p = match reader(s) {
        Ok(p) => p,
        Err(e) => return web::failed(&e),
    };
    let (merchants, settings, rates, changes) = match read(app, &p).await {
        Ok(x) => x,
        Err(e) => return web::failed(&e),
    };
    let status = if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        status,
        &Page {
            nav: Nav::of(s, "costs"),
            csrf: s.csrf.clone(),
            admin: s.person.role == "admin",
            merchants,
            reporting: settings.reporting_currency,
            reporting_set: settings.set,
            rates: rates
                .coverage
                .into_iter()
                .map(|c| (c.currency, c.from, c.through, c.days))
                .collect(),
            changes: changes
                .changes
                .into_iter()
                .map(|c| Change {
                    at: c.at.chars().take(16).collect::<String>().replace('T', " "),
                    actor: c.actor,
                    what: c.what,
                    subject: c.subject,
                    after: brief(&c.after),
                })
                .collect(),
            notice,
            error,
        },
    )
}

pub async fn show(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    match web::signed_in(&app, &parts).await {
        Ok(s) => page(&app, &s, None, None).await,
        Err(r) => r,
    }
}

fn field(form: &web::Form, name: &str) -> String {
    form.get(name).unwrap_or_default().trim().to_owned()
}

/// Sets one SKU's cost from a day on (a tenant admin's form).
pub async fn add(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, _) = match super::admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let money = |name: &str| Value::String(field(&form, name));
    let period = CostInput {
        seller_id: field(&form, "sellerId"),
        marketplace_id: field(&form, "marketplaceId"),
        sku: field(&form, "sku"),
        valid_from: field(&form, "validFrom"),
        currency: field(&form, "currency"),
        unit_cost: money("unitCost"),
        freight: money("freight"),
        duties: money("duties"),
    };
    let sku = period.sku.clone();
    let reason = Some(field(&form, "reason")).filter(|r| !r.is_empty());
    let written = async {
        let req = CostsWrite {
            periods: vec![period],
            remove: Vec::new(),
            reason,
        };
        app.profit.write_costs(&writer(&s)?, req).await
    };
    match written.await {
        Ok(_) => page(&app, &s, Some(format!("Saved the cost of {sku}.")), None).await,
        Err(e) => {
            let error = format!("{} Nothing was changed.", e.message());
            page(&app, &s, None, Some(error)).await
        }
    }
}

/// Sets the reporting currency (a tenant admin's form).
pub async fn currency(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, _) = match super::admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let set = async {
        let req = SettingsWrite {
            reporting_currency: field(&form, "reportingCurrency"),
        };
        app.profit.set_settings(&writer(&s)?, req).await
    };
    match set.await {
        Ok(x) => {
            let notice = format!("Profit is reported in {}.", x.reporting_currency);
            page(&app, &s, Some(notice), None).await
        }
        Err(e) => {
            let error = format!("{} Nothing was changed.", e.message());
            page(&app, &s, None, Some(error)).await
        }
    }
}

//! Hours in the console (every tenant member): a selling merchant's campaigns by hour of the
//! week — `INS-DAYPART-01` over the last four weeks of the Marketing Stream's hours, run
//! through the intelligence service as the signed-in person (the merchants listed as the
//! Profit page lists them: `retail:read` too) — each campaign's week drawn as a
//! heatmap (`heatmap.rs`) with its best hours of the day named (docs/intelligence.md).

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::{Principal, Scope};
use serde_json::{Value, json};

use super::heatmap;
use super::profit::{self, Pick};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

/// The campaigns drawn, busiest first.
const SHOWN: usize = 6;

/// One campaign's week.
pub struct CampaignWeek {
    pub id: String,
    pub ad_product: String,
    pub clicks: i64,
    pub conversion: String,
    /// `14:00–18:00, 1.62× the day's rate`, or why there is none.
    pub best: String,
    pub chart: Option<String>,
}

#[derive(Template)]
#[template(path = "console/hours.html")]
struct Page {
    nav: Option<Nav>,
    picks: Vec<Pick>,
    period: String,
    days: i64,
    campaigns: Vec<CampaignWeek>,
    error: Option<String>,
}

fn principal(s: &pp_store::SessionRow) -> pp_core::Result<Principal> {
    pp_auth::sessions::console_principal(
        s,
        &[Scope::IntelligenceRead, Scope::AdsRead, Scope::RetailRead],
    )
}

/// The page's query: `merchant` (`TOKEN:MARKETPLACE`).
fn wanted(req: &Request) -> Option<String> {
    form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "merchant")
        .map(|(_, v)| v.into_owned())
}

pub async fn show(State(app): State<SharedState>, req: Request) -> Response {
    let want = wanted(&req);
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
    let (picks, chosen) = profit::picks(&merchants, want, "/console/hours");
    let mut page = Page {
        nav: Nav::of(&s, "hours"),
        picks,
        period: String::new(),
        days: 0,
        campaigns: Vec::new(),
        error: None,
    };
    if let Some(m) = chosen {
        let params = json!({ "sellerId": m.token, "marketplaceId": m.marketplace_id });
        match profit::run(&app, &p, "INS-DAYPART-01", params).await {
            Ok(result) => fill(&result, &mut page),
            Err(e) => page.error = Some(e.message().to_owned()),
        }
    }
    let status = if page.error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(status, &page)
}

/// Lays out the answer: the busiest campaigns, each drawn.
fn fill(result: &Value, page: &mut Page) {
    page.period = format!(
        "{} to {}",
        result["period"]["start"].as_str().unwrap_or(""),
        result["period"]["end"].as_str().unwrap_or("")
    );
    page.days = result["daysWithHours"].as_i64().unwrap_or(0);
    for c in result["campaigns"]
        .as_array()
        .into_iter()
        .flatten()
        .take(SHOWN)
    {
        let cells: Vec<heatmap::Cell> = c["week"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, w)| heatmap::Cell {
                day: (i / 24) as u32,
                hour: w["hour"].as_u64().unwrap_or(0) as u32,
                index: w["index"].as_f64(),
                own: w["basis"] == "cell",
            })
            .collect();
        let b = &c["bestHours"];
        let best = b["startHour"]
            .as_u64()
            .zip(b["endHour"].as_u64())
            .map(|(s, e)| (s as u32, e as u32));
        let chart = heatmap::svg(&cells, best)
            .map_err(|e| tracing::warn!(error = %e, "the hours page's heatmap could not be drawn"))
            .ok();
        page.campaigns.push(CampaignWeek {
            id: c["campaignId"].as_str().unwrap_or("").to_owned(),
            ad_product: c["adProduct"].as_str().unwrap_or("").to_owned(),
            clicks: c["totals"]["clicks"].as_i64().unwrap_or(0),
            conversion: c["totals"]["conversion"]
                .as_f64()
                .map_or_else(|| "—".into(), |x| format!("{:.1}%", x * 100.0)),
            best: match best {
                Some((s, e)) => format!(
                    "{s:02}:00–{e:02}:00, {} the day's rate",
                    b["index"]
                        .as_f64()
                        .map_or("—".into(), |i| format!("{i:.2}×"))
                ),
                None => "not enough clicks in every hour yet".into(),
            },
            chart,
        });
    }
}

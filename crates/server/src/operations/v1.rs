//! The `/v1` data plane (docs/v1.md): who the token is, the accounts with the state of their
//! grants, and the windowed, paged reads of the caller's own warehouse. Failures use the
//! `/v1` envelope.

use axum::extract::{Extension, State};
use pp_core::{Principal, Scope};
use pp_warehouse::v1::{self, Args, Ctx};
use serde_json::Value;

use super::Endpoint;
use super::schema::{any_object, array, date, int, nullable, number, object, one_of, string};
use crate::http::error::V1Error;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

async fn me(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, V1Error> {
    let name = app.verifier.tenant_name(&p.tenant).await?;
    let scopes: Vec<&str> = p.scopes.iter().map(|s| s.as_str()).collect();
    Ok(render::v1(Me {
        tenant_id: p.tenant.as_str(),
        tenant_name: name.as_deref(),
        person_label: p.actor.as_str(),
        credential_id: &p.credential_id,
        scopes,
    })?)
}

/// `GET /v1/me`.
#[derive(serde::Serialize)]
struct Me<'a> {
    tenant_id: &'a str,
    tenant_name: Option<&'a str>,
    person_label: &'a str,
    credential_id: &'a str,
    scopes: Vec<&'a str>,
}

async fn accounts(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(args): Query<Args>,
) -> Result<render::Rendered, V1Error> {
    Ok(render::v1(
        app.market.calls().accounts(&p, &args, &app.cursors).await?,
    )?)
}

/// A data-plane read: the caller's own warehouse, its limits and the cursor signer.
macro_rules! read {
    ($name:ident, $call:path) => {
        async fn $name(
            State(app): State<SharedState>,
            Extension(p): Extension<Principal>,
            Query(args): Query<Args>,
        ) -> Result<render::Rendered, V1Error> {
            let engine = app.warehouses.of(&p).await?;
            let ctx = Ctx {
                engine: engine.as_ref(),
                limits: &app.warehouses.limits,
                tenant: p.tenant.as_str(),
                cursors: &app.cursors,
            };
            Ok(render::v1($call(&ctx, &args).await?)?)
        }
    };
}

read!(account_summary, v1::account_summary);
read!(account_pacing, v1::account_pacing);
read!(campaign_performance, v1::campaign_performance);
read!(search_terms, v1::search_terms);
read!(asin_performance, v1::asin_performance);
read!(sales, v1::sales);
read!(traffic, v1::traffic);
read!(inventory, v1::inventory);
read!(inventory_history, v1::inventory_history);
read!(search_query_performance, v1::search_query_performance);

async fn profit(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(args): Query<Args>,
) -> Result<render::Rendered, V1Error> {
    let daily = app.intelligence.profit_daily();
    Ok(render::v1(daily.read(&p, &args, &app.cursors).await?)?)
}

/// Every data answer names its account; windowed ones carry the window and availability.
fn data() -> Value {
    object(
        &[
            ("account_id", string()),
            ("currency", string()),
            (
                "window",
                object(
                    &[
                        ("start_date", date()),
                        ("end_date", date()),
                        ("days", int()),
                        ("data_from", date()),
                        ("data_through", date()),
                    ],
                    &[
                        "start_date",
                        "end_date",
                        "days",
                        "data_from",
                        "data_through",
                    ],
                ),
            ),
            (
                "availability",
                object(
                    &[("status", one_of(&["available", "no_data"]))],
                    &["status"],
                ),
            ),
            ("next_cursor", nullable(string())),
        ],
        &["account_id", "availability"],
    )
}

pub fn endpoints() -> Vec<Endpoint> {
    let account = |e: Endpoint| {
        e.query(
            "account_id",
            true,
            string(),
            "Account id from GET /v1/accounts",
        )
    };
    let window = |e: Endpoint| {
        e.query(
            "start_date",
            false,
            date(),
            "First day (default: 30 days before end_date; 84 for brand analytics)",
        )
        .query(
            "end_date",
            false,
            date(),
            "Last day (default and upper bound: the latest complete data day)",
        )
    };
    let paged = |e: Endpoint| {
        e.query("limit", false, int(), "Page size, 1-500 (default 100)")
            .query(
                "cursor",
                false,
                string(),
                "next_cursor of the previous page, with the same filters",
            )
    };
    let asin = |e: Endpoint| e.query("asin", false, string(), "Only this child ASIN");
    let grant = one_of(&["active", "lapsed", "not_activated", "not_connected"]);
    vec![
        Endpoint::get("/v1/me", "Who the token belongs to: tenant, person label, credential and scopes", me)
            .needs(&[Scope::AccountRead])
            .answers(200, object(&[("tenant_id", string()), ("tenant_name", nullable(string())), ("person_label", string()), ("credential_id", string()), ("scopes", array(string()))], &["tenant_id", "person_label", "credential_id", "scopes"])),
        Endpoint::get("/v1/accounts", "Every account with the state of its retail and ads grants, currency, brands and data_through", accounts)
            .needs(&[Scope::AccountRead])
            .answers(200, object(&[("accounts", array(object(&[
                ("account_id", string()), ("name", string()), ("type", one_of(&["seller", "vendor"])), ("seller_id", string()),
                ("legacy_seller_id", int()), ("marketplace", string()), ("marketplace_id", string()), ("currency", string()),
                ("brands", array(string())), ("auth", object(&[("retail", grant.clone()), ("ads", grant)], &["retail", "ads"])),
                ("data_through", any_object()),
            ], &["account_id", "type", "seller_id", "legacy_seller_id", "auth"])))], &["accounts"])),
        window(account(Endpoint::get("/v1/ads/account-summary", "Sponsored ads totals and per ad product for a window", account_summary)))
            .needs(&[Scope::AdsRead]).answers(200, data()),
        account(Endpoint::get("/v1/ads/account-pacing", "Month-to-date spend against budget", account_pacing))
            .query("month", false, string(), "YYYY-MM (default: the month of the latest complete day)")
            .needs(&[Scope::AdsRead]).answers(200, data()),
        paged(window(account(Endpoint::get("/v1/ads/campaign-performance", "Per-campaign aggregates, by campaign id", campaign_performance))))
            .query("ad_product", false, one_of(&["SPONSORED_PRODUCTS", "SPONSORED_BRANDS", "SPONSORED_DISPLAY"]), "Only this ad product")
            .needs(&[Scope::AdsRead]).answers(200, data()),
        paged(window(account(Endpoint::get("/v1/ads/search-terms", "Per search term and keyword aggregates", search_terms))))
            .query("campaign_id", false, int(), "Only this campaign")
            .needs(&[Scope::AdsRead]).answers(200, data()),
        paged(window(account(Endpoint::get("/v1/ads/asin-performance", "Per advertised ASIN aggregates", asin_performance))))
            .needs(&[Scope::AdsRead]).answers(200, data()),
        asin(window(account(Endpoint::get("/v1/retail/sales", "Daily ordered sales, units and orders with window totals", sales))))
            .needs(&[Scope::RetailRead]).answers(200, data()),
        asin(window(account(Endpoint::get("/v1/retail/traffic", "Daily sessions, page views, buy-box and unit-session percentages with window totals", traffic))))
            .needs(&[Scope::RetailRead]).answers(200, data()),
        paged(account(Endpoint::get("/v1/retail/inventory", "FBA inventory snapshot per SKU with health alert", inventory)))
            .query("at_risk_only", false, super::schema::boolean(), "Only out_of_stock and low_stock")
            .query("days_of_supply_lte", false, number(), "Only SKUs with at most this many days of supply")
            .needs(&[Scope::RetailRead]).answers(200, data()),
        asin(window(account(Endpoint::get("/v1/retail/inventory-history", "Daily on-hand series", inventory_history))))
            .needs(&[Scope::RetailRead]).answers(200, data()),
        window(account(Endpoint::get("/v1/profit", "Daily P&L: net sales, marketplace fees, advertising, cost of goods and CM1-CM3, each day settled, posted or estimated, with window totals (docs/profit.md)", profit)))
            .needs(&[Scope::RetailRead]).answers(200, data()),
        paged(window(account(Endpoint::get("/v1/brand-analytics/search-query-performance", "Weekly search query performance with shares", search_query_performance))))
            .query("search_query", false, string(), "Only this query")
            .needs(&[Scope::BrandAnalyticsRead]).answers(200, data()),
    ]
}

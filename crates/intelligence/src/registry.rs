//! The catalog: every request as data and code — id, version, content revision, service,
//! purpose, the parameters it takes and their schema, the data its periods are checked
//! against, whether the size rule applies, and the engine that runs it. The REST entries, the
//! MCP tools and the job type all read this one table, so adding a request is one engine
//! module and one entry here. Ids are append-only: a request never changes meaning; a new
//! capability is a new id (`FCT-*` requests join the same table).

use std::future::Future;
use std::pin::Pin;

use pp_core::{Error, Kind, Result};
use serde::Serialize;
use serde_json::{Value, json};

use crate::data::{self, Wh};
use crate::engines::{
    Answer, Input, Schemas, ads_bridge, change_outcome, daypart, duo, lost_sales, monthly,
    ops_bridge, payout, profit, profit_bridge,
};
use crate::{forecasting, plan};

/// Which service a request belongs to (its id prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    /// `INS-*`.
    Attribution,
    /// `FCT-*`.
    Forecasting,
    /// `PLN-*`: answers with a dry-run plan that only the existing commit sends.
    Plan,
}

/// The catalog's services with their id prefixes, as `/health` and the catalog list them.
pub const SERVICES: &[ServiceEntry] = &[
    ServiceEntry {
        service: Service::Attribution,
        prefix: "INS-",
        answers: "why numbers moved, and whether a change worked",
    },
    ServiceEntry {
        service: Service::Forecasting,
        prefix: "FCT-",
        answers: "forecasts, their readiness and their tracking",
    },
    ServiceEntry {
        service: Service::Plan,
        prefix: "PLN-",
        answers: "proposed writes, as dry-run plans the existing commit and approval send",
    },
];

/// A service of the catalog.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ServiceEntry {
    pub service: Service,
    pub prefix: &'static str,
    pub answers: &'static str,
}

/// Which table a request's periods must fall inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The scope's daily sales and traffic (seller or vendor table).
    Retail,
    /// The campaign report.
    Ads,
    /// The inventory snapshots.
    Inventory,
    /// The Marketing Stream's hours (the campaign report where the warehouse has none).
    Hours,
}

/// An engine's entry point: its answer, the result already JSON.
pub type RunFn = for<'a> fn(
    &'a Wh,
    &'a Input,
) -> Pin<Box<dyn Future<Output = Result<Answer<Value>>> + Send + 'a>>;

/// An engine: its entry point and the JSON Schema of its result, both from the engine's one
/// result type (see [`engine!`]).
pub struct Engine {
    pub run: RunFn,
    pub result: fn(&mut Schemas) -> Value,
}

/// The [`Engine`] of `run`, whose answer carries a `$result`: the result is serialized here,
/// once, and its schema derived from the same type, so the two cannot drift apart.
macro_rules! engine {
    ($run:path => $result:ty) => {
        Engine {
            run: |wh, i| {
                Box::pin(async move {
                    let answer: Answer<$result> = $run(wh, i).await?;
                    answer.into_json()
                })
            },
            result: Schemas::of::<$result>,
        }
    };
}

/// One request of the catalog.
pub struct Request {
    pub id: &'static str,
    pub version: &'static str,
    pub content_revision: u32,
    pub service: Service,
    pub purpose: &'static str,
    /// Parameters besides the merchant (`sellerId`, `marketplaceId`, `brand`).
    pub accepts: &'static [&'static str],
    pub required: &'static [&'static str],
    pub source: Source,
    /// Reads the retail tables item by item: large accounts must run it asynchronously.
    pub retail: bool,
    pub engine: Engine,
}

/// Each request's result schema by id (a `$ref`), and the named types they refer to (the
/// OpenAPI document's `components/schemas`).
pub fn result_schemas() -> (Vec<(&'static str, Value)>, serde_json::Map<String, Value>) {
    let mut schemas = Schemas::default();
    let each = REQUESTS
        .iter()
        .map(|r| (r.id, (r.engine.result)(&mut schemas)))
        .collect();
    (each, schemas.definitions())
}

/// The table of a request's source for a scope.
pub fn source_table(source: Source, scope: &crate::scope::Scope) -> &'static str {
    match source {
        Source::Retail => data::retail_source(scope).table,
        Source::Ads => data::ADS_TABLE,
        Source::Inventory => data::INVENTORY_TABLE,
        Source::Hours => crate::engines::daypart::TRAFFIC,
    }
}

const BRIDGE: &[&str] = &["period", "comparePeriod", "top"];

/// Every request the service serves.
pub static REQUESTS: &[Request] = &[
    Request {
        id: "INS-OPS-BRIDGE-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Why ordered sales moved between two periods, item by item (traffic, conversion, price, mix), bridged exactly to the total",
        accepts: BRIDGE,
        required: &["period"],
        source: Source::Retail,
        retail: true,
        engine: engine!(ops_bridge::run => ops_bridge::OpsBridge),
    },
    Request {
        id: "INS-ADS-BRIDGE-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Why advertising sales, spend and ACOS moved, at campaign, ad group, keyword or target, search term or ASIN grain (impressions, CTR, CVR, CPC, AOV)",
        accepts: &["period", "comparePeriod", "grain", "top"],
        required: &["period"],
        source: Source::Ads,
        retail: false,
        engine: engine!(ads_bridge::run => ads_bridge::AdsBridge),
    },
    Request {
        id: "INS-DUO-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Both bridges on one period pair joined: TACOS, attributed share, paid pressure, ad AOV against the average selling price",
        accepts: BRIDGE,
        required: &["period"],
        source: Source::Retail,
        retail: true,
        engine: engine!(duo::run => duo::Duo),
    },
    Request {
        id: "INS-LOSTSALES-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Sales lost to stock-outs (units and money, from the item's demand around each gap), sellable inventory, weeks of cover",
        accepts: &["period", "top"],
        required: &[],
        source: Source::Inventory,
        retail: true,
        engine: engine!(lost_sales::run => lost_sales::LostSales),
    },
    Request {
        id: "INS-MONTHLY-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Monthly read: month over month and year over year, retail and advertising, with the sales bridge of each",
        accepts: &["month"],
        required: &["month"],
        source: Source::Retail,
        retail: true,
        engine: engine!(monthly::run => monthly::Monthly),
    },
    Request {
        id: "INS-CHANGE-OUTCOME-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Did a change work: for an audited write, a timeline stake, or a day with the campaigns or items it touched, the weeks after against as many before (same weekdays, restating days left out), each metric's move judged against the entity's own day-to-day variation, bridged to the cent, a price change's elasticity with its range, and what else happened",
        accepts: &[
            "auditId",
            "stakeId",
            "date",
            "campaignIds",
            "asins",
            "windowDays",
        ],
        required: &[],
        source: Source::Retail,
        retail: false,
        engine: engine!(change_outcome::run => change_outcome::ChangeOutcome),
    },
    Request {
        id: "INS-PROFIT-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "The P&L of a seller, a brand or one SKU over a period: sales, promotions, refunds, referral and fulfillment fees, storage and other fees, reimbursements, advertising by product, cost of goods and inbound, each line settled, posted or estimated with its parts, the contribution margins CM1-CM3, in the merchant's and the reporting currency, by day or month and SKU by SKU; a SKU without a cost is named and its margins are null",
        accepts: &["period", "interval", "sku", "top"],
        required: &[],
        source: Source::Retail,
        retail: true,
        engine: engine!(profit::run => profit::Profit),
    },
    Request {
        id: "INS-PROFIT-BRIDGE-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Why contribution (CM3) moved between two periods: volume, mix, price, fee rates, cost of goods, refunds, advertising and exchange rate, SKU by SKU and in total, summing to the change to the cent, with the audited writes, cost changes and timeline stakes inside the periods beside the part each most touches",
        accepts: &["period", "comparePeriod", "sku", "top"],
        required: &[],
        source: Source::Retail,
        retail: true,
        engine: engine!(profit_bridge::run => profit_bridge::ProfitBridge),
    },
    Request {
        id: "INS-PAYOUT-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "A seller's settlement reconciled from its P&L lines to its deposit, to the cent: what was sold in it, its fees and charges, refunds of its own and of earlier periods' orders, advertising taken from the payout, reserves released and held; with the seller's recent settlements",
        accepts: &["settlementId"],
        required: &[],
        source: Source::Retail,
        retail: false,
        engine: engine!(payout::run => payout::Payout),
    },
    Request {
        id: "INS-DAYPART-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Attribution,
        purpose: "Each campaign's performance by hour of the week from the Marketing Stream's hours: every cell's clicks, spend, purchases and conversion, judged on its own clicks or (thin) on its hour of the day or the campaign, each hour of the day against the campaign, and the four hours that convert best",
        accepts: &["period"],
        required: &[],
        source: Source::Hours,
        retail: false,
        engine: engine!(daypart::run => daypart::Daypart),
    },
    Request {
        id: "FCT-READINESS-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Forecasting,
        purpose: "Whether a merchant, brand or sub-brand is forecastable: months of sales and ad spend, trainable overlap against the floors (12 complete months required, 18 recommended), the first month each verdict is read, what would close the gap. Never fits a model",
        accepts: &["scopeKey"],
        required: &[],
        source: Source::Retail,
        retail: false,
        engine: engine!(forecasting::readiness::run => forecasting::readiness::ReadinessAnswer),
    },
    Request {
        id: "FCT-BASELINE-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Forecasting,
        purpose: "The forecast baseline with corrections: model, monthly expectations keyed YYYY-MM with 95% ranges, backtest, readiness, the month rows of forecast state applied, the age of the published copy; revenue or units (the units document); a published copy wins over one computed from the warehouse",
        accepts: &["scopeKey", "measure", "spendBasis", "horizon"],
        required: &[],
        source: Source::Retail,
        retail: false,
        engine: engine!(forecasting::baseline::run => forecasting::baseline::BaselineAnswer),
    },
    Request {
        id: "FCT-TRACK-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Forecasting,
        purpose: "One report month against its forecast: year to date, the month, the months to come, what the forecast stands on; a closed month's forecast as made before close and the current projection, with a beat or miss; forecast_state and spend_basis on every spend figure",
        accepts: &["scopeKey", "measure", "spendBasis", "month"],
        required: &["month"],
        source: Source::Retail,
        retail: false,
        engine: engine!(forecasting::track::run => forecasting::track::Track),
    },
    Request {
        id: "PLN-BUDGET-PACING-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Plan,
        purpose: "Budget pacing: each campaign's daily budget for the rest of the month so the month lands on its ad budget (forecast state's adBudget or a figure given), weighted by recent return and days out of budget, within the write policy; answered as advertising write dry runs that only the existing commit (and approval) sends",
        accepts: &["month", "budget", "lookbackDays"],
        required: &[],
        source: Source::Ads,
        retail: false,
        engine: engine!(plan::budget_pacing::run => plan::budget_pacing::BudgetPacing),
    },
    Request {
        id: "PLN-DAYPART-01",
        version: "1.0.0",
        content_revision: 1,
        service: Service::Plan,
        purpose: "Dayparting: per enabled Sponsored Products campaign, a schedule bid rule raising its bids in the four hours it converts best (INS-DAYPART-01) by their lift, a whole 1–100 percent within the write policy, increase-only, at most 20 rules a campaign; answered as dry runs in two steps — the rules' creation, then (asked again) their association with each campaign — that only the existing commit (and approval) sends",
        accepts: &["period"],
        required: &[],
        source: Source::Hours,
        retail: false,
        engine: engine!(plan::daypart::run => plan::daypart::DaypartPlan),
    },
];

/// The request `id`, or `bad_params` naming the catalog.
pub fn find(id: &str) -> Result<&'static Request> {
    REQUESTS.iter().find(|r| r.id == id).ok_or_else(|| {
        Error::new(
            Kind::BadParams,
            format!(
                "no intelligence request '{id}'; the catalog has {}",
                REQUESTS.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
            ),
        )
        .with_fix("List the catalog with GET /api/intelligence/ids (intelligence_catalog).")
    })
}

fn period_schema(what: &str) -> Value {
    json!({
        "type": "object",
        "description": what,
        "additionalProperties": false,
        "required": ["start", "end"],
        "properties": {
            "start": { "type": "string", "format": "date", "description": "First day, YYYY-MM-DD." },
            "end": { "type": "string", "format": "date", "description": "Last day, YYYY-MM-DD (inclusive; at most 366 days)." }
        }
    })
}

/// The JSON Schema of a request's `params`.
pub fn params_schema(r: &Request) -> Value {
    let mut props = serde_json::Map::new();
    props.insert("sellerId".into(), json!({ "type": "string", "description": "The merchant token (with marketplaceId when it sells in several marketplaces)." }));
    props.insert("marketplaceId".into(), json!({ "type": "string", "description": "The marketplace id; narrows sellerId or brand." }));
    props.insert("brand".into(), json!({ "type": "string", "description": "A brand slug: the brand's seller rows, its items only, summed." }));
    for a in r.accepts {
        let v = match *a {
            "period" => period_schema(if r.id == "INS-LOSTSALES-01" {
                "The days to look for stock-outs in (default: the last 365 days of data)."
            } else {
                "The period explained."
            }),
            "interval" => {
                json!({ "type": "string", "enum": ["day", "month"], "description": "The series' rows (default month)." })
            }
            "settlementId" => {
                json!({ "type": "string", "description": "A closed settlement's id (default: the latest)." })
            }
            "sku" => {
                json!({ "type": "string", "description": "One seller SKU: its P&L alone." })
            }
            "comparePeriod" => period_schema(
                "The period it is compared with (default: the same number of days just before).",
            ),
            "grain" => {
                json!({ "type": "string", "enum": ["campaign", "ad_group", "target", "search_term", "asin"], "description": "Rows of the bridge (default campaign)." })
            }
            "month" if r.service == Service::Plan => {
                json!({ "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "The month paced, YYYY-MM (default: the month of the day after the data's last day)." })
            }
            "month" => {
                json!({ "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "The month read, YYYY-MM." })
            }
            "auditId" => {
                json!({ "type": "string", "description": "An audited advertising write (auditId of a commit): its campaigns, from the day after its commit." })
            }
            "stakeId" => {
                json!({ "type": "integer", "description": "A timeline stake (its event id): from its first day, with the campaign or item it names." })
            }
            "date" => {
                json!({ "type": "string", "format": "date", "description": "The first day the change was in force all day, YYYY-MM-DD (with campaignIds or asins)." })
            }
            "campaignIds" => {
                json!({ "type": "array", "maxItems": crate::params::MAX_ENTITIES, "items": { "type": ["string", "integer"] }, "description": "Campaigns the change touched (with date)." })
            }
            "asins" => {
                json!({ "type": "array", "maxItems": crate::params::MAX_ENTITIES, "items": { "type": "string", "minLength": 10, "maxLength": 10 }, "description": "Items the change touched, such as a price change (with date)." })
            }
            "windowDays" => {
                json!({ "type": "integer", "enum": crate::params::WINDOW_CHOICES, "description": "Days in each window (default 14)." })
            }
            "budget" => {
                json!({ "type": "number", "exclusiveMinimum": 0, "description": "The month's ad budget in the currency's major unit (default: forecast state's adBudget for the month)." })
            }
            "lookbackDays" => {
                json!({ "type": "integer", "minimum": 7, "maximum": crate::params::MAX_LOOKBACK, "description": "Days of recent return and budget constraint the weights read (default 14)." })
            }
            "scopeKey" => {
                json!({ "type": "string", "description": "A sub-brand of the merchant (with sellerId): the key after :scope: in its scopeId (GET /api/app-state/forecasting/scopes)." })
            }
            "measure" => {
                json!({ "type": "string", "enum": ["revenue", "units"], "description": "What is forecast (default revenue); units answer the forecast_bridge.units_document/v1 document." })
            }
            "spendBasis" => {
                json!({ "type": "string", "enum": ["ads_only", "ads_plus_dsp"], "description": "Which spend the spend and budget figures count (default ads_only)." })
            }
            "horizon" => {
                json!({ "type": "integer", "minimum": 1, "maximum": crate::params::MAX_HORIZON, "description": "Months forecast (default 12)." })
            }
            "top" => {
                json!({ "type": "integer", "minimum": 1, "maximum": crate::params::MAX_TOP, "description": "Rows listed one by one (default 25); the rest are summed." })
            }
            other => json!({ "description": other }),
        };
        props.insert((*a).into(), v);
    }
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": props,
        "required": r.required,
        "oneOf": [{ "required": ["sellerId"] }, { "required": ["brand"] }],
    })
}

/// A catalog entry as `GET /api/intelligence/ids` lists it.
pub fn entry(r: &Request) -> Value {
    json!({
        "id": r.id,
        "version": r.version,
        "contentRevision": r.content_revision,
        "service": r.service,
        "purpose": r.purpose,
        "params": params_schema(r),
        "async": if r.service == Service::Plan { "not offered: a plan is answered while you wait" } else if r.retail { "required for large accounts (account_too_large_use_async)" } else { "optional" },
    })
}

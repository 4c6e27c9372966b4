//! Marketplace tools (§4.8: prefixed `marketplace_`): the merchants, both operation catalogs,
//! the advertising profiles, and one catalogued call on each side, over the same functions as
//! `/api/marketplace/*`. Calls reach the provider, so they are open-world; plain calls refuse
//! writes (those go through the audited flow), so every tool here changes nothing.

use pp_core::Scope;
use serde_json::{Value, json};

use super::{Args, Ctx, Fut, Hints, Tool};
use crate::routes::marketplace as market;

const RETAIL: &[Scope] = &[Scope::RetailRead];
const ADS: &[Scope] = &[Scope::AdsRead];

/// Reads the provider's live state: nothing changes, but the answer comes from outside.
const LIVE: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: true,
};

/// Creates a report or query at the provider: not idempotent, never destructive.
const CALL: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};

const CATALOG: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

fn prefix_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "prefix": { "type": "string", "description": "Only operations whose id starts with this, e.g. 'promotions.' or 'sp.'. Omit for all." }
        },
        "additionalProperties": false
    })
}

fn selector() -> Value {
    json!({
        "legacySellerId": { "type": "integer", "minimum": 1, "description": "Preferred: the durable id of one merchant row (wins over sellerId)." },
        "sellerId": { "type": "string", "description": "The provider's merchant token; alone only when it maps to one row." },
        "marketplace": { "type": "string", "description": "Country code (US, CA, MX) narrowing an ambiguous sellerId." },
        "operation": { "type": "string", "description": "An operation id from the catalog tool." },
        "query": { "type": "object", "description": "The operation's parameters by name; a request body goes under 'body'." }
    })
}

fn spapi_input() -> Value {
    json!({ "type": "object", "properties": selector(), "required": ["operation"], "additionalProperties": false })
}

fn ads_input() -> Value {
    let mut props = selector();
    props["profileId"] = json!({ "type": "integer", "description": "Required by profile-scoped operations (see marketplace_ads_profiles)." });
    json!({ "type": "object", "properties": props, "required": ["operation"], "additionalProperties": false })
}

pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "marketplace_list_merchants",
            title: "List the connected merchants",
            description: "One row per account and marketplace: sellerId (the provider's token), \
legacySellerId (our durable id; prefer it in calls) and marketplace. One sellerId can have several \
rows (one token in two marketplaces): name it with legacySellerId, or sellerId plus marketplace.",
            needs: RETAIL,
            input: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            output: None,
            hints: LIVE,
            run: merchants,
        },
        Tool {
            name: "marketplace_spapi_operations",
            title: "Selling-side operation catalog",
            description: "Every callable selling-side operation: id, kind (read; create = makes a \
report or query and is never retried; write = only through the audited flow), parameters and where \
each goes, paging tokens, usage plan, checks and notes with the traps (promotions: exactly one \
marketplace, offset dates, revisionId for items, empty mid-stream pages; inbound: QueryType and a \
status or id list). Also merchantIdentifiers, the selector contract.",
            needs: RETAIL,
            input: prefix_input,
            output: None,
            hints: CATALOG,
            run: spapi_operations,
        },
        Tool {
            name: "marketplace_spapi_call",
            title: "Call a selling-side operation",
            description: "Runs one catalogued selling-side operation for one merchant (legacySellerId, \
or sellerId with marketplace) with its parameters in query. Answers { operation, merchant, status, \
data } where data is the provider's JSON. Paging is yours: pass the token back as the catalog's \
paging says until none comes. Failures carry kind, source and retryable: bad_request is the \
provider refusing your parameters (its code in marketplace_error_code); reauth_required means the \
merchant must connect again; throttled says when to retry. Writes are refused here.",
            needs: RETAIL,
            input: spapi_input,
            output: None,
            hints: CALL,
            run: spapi_call,
        },
        Tool {
            name: "marketplace_ads_profiles",
            title: "List advertising profiles",
            description: "Every advertising login (sellerId, status) with the provider's profiles \
(profileId, country, currency, account). A login that fails on its own (lapsed, not activated) \
carries error on its row; the others are still listed.",
            needs: ADS,
            input: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            output: None,
            hints: LIVE,
            run: profiles,
        },
        Tool {
            name: "marketplace_ads_operations",
            title: "Advertising operation catalog",
            description: "Every advertising operation: id, kind, profileScoped, parameters, \
requiredItemFields and maxItems (200) for writes, checks and notes with the traps (Reporting v1: \
up to 5 accounts, the DSP seat id fails as profile_not_authorized, 207 answers; assets.list_recent \
ignores filters; bid adjustments replace the whole modifier object).",
            needs: ADS,
            input: prefix_input,
            output: None,
            hints: CATALOG,
            run: ads_operations,
        },
        Tool {
            name: "marketplace_ads_call",
            title: "Call an advertising operation",
            description: "Runs one catalogued advertising operation: profile-scoped operations take \
profileId (from marketplace_ads_profiles), the others a merchant selector. Parameters and the \
request body (under body) go in query. Reporting v1 answers 207: a non-empty error array comes back \
as a failure. A 429 on reporting_v1.create_report is a concurrency cap (retryable false): delete a \
report or wait. Writes are refused here.",
            needs: ADS,
            input: ads_input,
            output: None,
            hints: CALL,
            run: ads_call,
        },
    ]
}

fn merchants<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&[])?;
        market::list_merchants(&ctx.app, &ctx.principal).await
    })
}

fn spapi_operations<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["prefix"])?;
        market::spapi_catalog(&ctx.principal, args.str("prefix")?)
    })
}

fn ads_operations<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["prefix"])?;
        market::ads_catalog(&ctx.principal, args.str("prefix")?)
    })
}

fn spapi_call<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move { market::run_spapi(&ctx.app, &ctx.principal, args.map(), None).await })
}

fn ads_call<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move { market::run_ads(&ctx.app, &ctx.principal, args.map(), None).await })
}

fn profiles<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&[])?;
        market::list_profiles(&ctx.app, &ctx.principal).await
    })
}

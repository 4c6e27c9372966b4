//! Timeline tools: `timeline_list` (`timeline:read`), `timeline_add_event` and
//! `timeline_corroborate` (also `timeline:write`). They run the same checks and writes as
//! `GET /v1/timeline`, `POST /v1/timeline/event` and `…/corroborate`; events record `source`
//! and `surface` `mcp`.

use pp_brand::Writer;
use pp_core::{Error, Scope};
use serde_json::{Value, json};

use super::{Args, Ctx, Fut, Hints, READ, Tool};
use crate::routes::brand::{brands, timeline_filter, today};
use crate::routes::v1;

const READS: &[Scope] = &[Scope::TimelineRead];
const WRITES: &[Scope] = &[Scope::TimelineRead, Scope::TimelineWrite];
/// Events a `timeline_list` page holds unless the call asks otherwise.
const DEFAULT_PAGE: u64 = 25;
/// Most events a `timeline_list` page holds.
const MAX_PAGE: u64 = 100;

const APPEND: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: false,
};

fn string(desc: &str) -> Value {
    json!({ "type": "string", "description": desc })
}

fn date(desc: &str) -> Value {
    json!({ "type": "string", "format": "date", "description": desc })
}

fn events_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "events": { "type": "array", "items": { "type": "object" } },
            "next_cursor": { "type": ["string", "null"] }
        },
        "required": ["events"]
    })
}

fn event_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "event": { "type": "object" }, "stake": { "type": "object" } },
        "required": ["event"]
    })
}

pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "timeline_list",
            title: "Read the brand timeline",
            description: "Lists brand timeline events newest first (by occurred_on, then id): stakes \
(a claim that a window of days should be read differently — launch, promotional_window, stockout, \
price_test, media_spike, brand_migration, seasonal_peak, budget_change, listing_change, other), \
comments, action outcomes, corroborations and brand retire/restore events. Read a stake's \
interpretation before judging numbers in its window. Filters: brand, family (native or \
ads_change), kind, start_date/end_date on occurred_on, and for stakes category, source, status \
(proposed, corroborated, closed), affects, tag, overlaps_start+overlaps_end, future. Pages hold \
at most 100 events (default 25): pass next_cursor back as cursor for the next page.",
            needs: READS,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "brand": string("A brand slug."),
                        "family": string("native or ads_change."),
                        "kind": string("stake, comment, action_outcome, corroboration, structural.brand_retired …"),
                        "start_date": date("Earliest occurred_on."),
                        "end_date": date("Latest occurred_on."),
                        "category": string("Stake category."),
                        "source": string("Who recorded it: api, mcp, demo_world, lifecycle …"),
                        "status": string("proposed, corroborated or closed."),
                        "affects": string("Stakes affecting this label."),
                        "tag": string("Stakes carrying this tag."),
                        "overlaps_start": date("With overlaps_end: stakes whose window overlaps this interval."),
                        "overlaps_end": date("With overlaps_start."),
                        "future": { "type": "boolean", "description": "Only stakes starting after today." },
                        "limit": { "type": "integer", "minimum": 1, "maximum": MAX_PAGE, "description": "Events per page (default 25)." },
                        "cursor": string("next_cursor from the previous page.")
                    },
                    "additionalProperties": false
                })
            },
            output: Some(events_schema),
            hints: READ,
            run: list,
        },
        Tool {
            name: "timeline_add_event",
            title: "Add a timeline event",
            description: "Appends a stake, comment or action_outcome to a brand's timeline, \
attributed to this credential (actor fields in the arguments are ignored; on_behalf_of is \
recorded as given). A stake needs category, starts_on and interpretation (plain language, how \
the window's numbers should be read; at most 2,000 characters), and may carry ends_on, affects \
and tags (up to 20 labels each). A comment needs note; an action_outcome needs note and outcome \
(worked, did_not_work, mixed, unknown). knowledge.* and structural.* kinds are reserved and \
refused. Nothing is written when any field is refused.",
            needs: WRITES,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "brand": string("The brand slug."),
                        "kind": { "type": "string", "enum": ["stake", "comment", "action_outcome"] },
                        "category": string("Stakes: the category."),
                        "starts_on": date("Stakes: first day of the window."),
                        "ends_on": date("Stakes: last day (omit for open-ended)."),
                        "interpretation": string("Stakes: how to read the window's numbers."),
                        "note": string("Comments and action outcomes: the text."),
                        "outcome": { "type": "string", "enum": ["worked", "did_not_work", "mixed", "unknown"] },
                        "occurred_on": date("Comments and outcomes: the day it happened (default today)."),
                        "affects": { "type": "array", "items": { "type": "string" } },
                        "tags": { "type": "array", "items": { "type": "string" } },
                        "on_behalf_of": string("The person this is recorded for, as given.")
                    },
                    "required": ["brand", "kind"],
                    "additionalProperties": false
                })
            },
            output: Some(event_schema),
            hints: APPEND,
            run: add_event,
        },
        Tool {
            name: "timeline_corroborate",
            title: "Corroborate a stake",
            description: "Corroborates a stake: appends a corroboration event and makes the stake \
corroborated, with its close date moved to 90 days from today (never earlier). Only stakes can \
be corroborated; an unknown id is not_found.",
            needs: WRITES,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "event_id": { "type": "integer", "description": "The stake's id." },
                        "note": string("Why it holds."),
                        "on_behalf_of": string("The person this is recorded for, as given.")
                    },
                    "required": ["event_id"],
                    "additionalProperties": false
                })
            },
            output: Some(event_schema),
            hints: APPEND,
            run: corroborate,
        },
    ]
}

fn list<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let limit = args.int("limit", 1, MAX_PAGE)?.unwrap_or(DEFAULT_PAGE);
        let mut map = args.map().clone();
        map.insert("limit".into(), limit.into());
        let q = v1::args(&Args::new(map).to_query()?)?;
        let f = timeline_filter(&q)?;
        pp_brand::timeline::list(
            &ctx.app.store,
            ctx.principal.tenant.as_str(),
            &ctx.app.cursors,
            &f,
            today(),
        )
    })
}

fn add_event<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let list = brands(&ctx.app, &ctx.principal).await?;
        pp_brand::timeline::append(
            &ctx.app.store,
            ctx.principal.tenant.as_str(),
            &list,
            &Writer::from(&ctx.principal),
            args.map(),
            today(),
        )
    })
}

fn corroborate<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let id = args
            .map()
            .get("event_id")
            .and_then(Value::as_i64)
            .ok_or_else(|| Error::invalid_request("event_id is required (a stake's id)"))?;
        let mut body = args.map().clone();
        body.remove("event_id");
        pp_brand::timeline::corroborate(
            &ctx.app.store,
            ctx.principal.tenant.as_str(),
            &Writer::from(&ctx.principal),
            id,
            &body,
            today(),
        )
    })
}

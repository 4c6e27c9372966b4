//! Context tools: `context_list_docs` and `context_get_doc` (`context:read`), and
//! `context_set_brand_lifecycle` (also `context:write`), over the same services as
//! `/api/context/manifest`, `/v1/context/doc` and `POST /api/context/lifecycle`.

use pp_brand::Writer;
use pp_core::{Error, Kind, Scope};
use serde_json::json;

use super::{Args, Ctx, Fut, Hints, READ, Tool};
use crate::routes::brand::brands;

const READS: &[Scope] = &[Scope::ContextRead];
const WRITES: &[Scope] = &[Scope::ContextRead, Scope::ContextWrite];

pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "context_list_docs",
            title: "List brands and their context documents",
            description: "Lists the tenant's brands with their lifecycle (state active or retired, \
changed_at, changed_by, surface, reason_code) and their context documents (type, name, revision, \
hash, updated_at). lifecycle=active leaves retired brands out (retired_count still counts them); \
the default, all, lists every brand. Retired brands keep their documents: read them for history, \
but do not plan new work for them.",
            needs: READS,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "lifecycle": { "type": "string", "enum": ["active", "all"], "description": "Default all." }
                    },
                    "additionalProperties": false
                })
            },
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "brands": { "type": "array", "items": { "type": "object" } },
                        "retired_count": { "type": "integer" }
                    },
                    "required": ["brands"]
                })
            }),
            hints: READ,
            run: list_docs,
        },
        Tool {
            name: "context_get_doc",
            title: "Read a context document",
            description: "Reads one brand context document: type is overview, positioning, audience, \
products, competitors, guidelines or corpus (corpus documents also need name). Returns content, \
revision and hash; send the revision back as base_revision when you change the document through \
the REST route. A missing document is not_found.",
            needs: READS,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "brand": { "type": "string", "description": "The brand slug." },
                        "type": { "type": "string", "description": "Document type." },
                        "name": { "type": "string", "description": "Corpus documents only." }
                    },
                    "required": ["brand", "type"],
                    "additionalProperties": false
                })
            },
            output: Some(
                || json!({ "type": "object", "properties": { "content": { "type": "string" } } }),
            ),
            hints: READ,
            run: get_doc,
        },
        Tool {
            name: "context_set_brand_lifecycle",
            title: "Retire or restore a brand",
            description: "Retires or restores a brand (action retire or restore). Retiring hides \
nothing and deletes nothing: documents, revisions and history stay, and the brand reads retired \
in context_list_docs. A real change appends structural.brand_retired or \
structural.brand_restored to the timeline with reason_code (client_left, duplicate, superseded, \
other), note (one line, at most 280) and on_behalf_of; repeating the current state answers \
changed: false and appends nothing. Same checks and result as POST /api/context/lifecycle.",
            needs: WRITES,
            input: || {
                json!({
                    "type": "object",
                    "properties": {
                        "brand_slug": { "type": "string" },
                        "action": { "type": "string", "enum": ["retire", "restore"] },
                        "reason_code": { "type": "string", "enum": ["client_left", "duplicate", "superseded", "other"] },
                        "note": { "type": "string", "maxLength": 280 },
                        "on_behalf_of": { "type": "string", "maxLength": 254 }
                    },
                    "required": ["brand_slug", "action"],
                    "additionalProperties": false
                })
            },
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "ok": { "type": "boolean" },
                        "brand_slug": { "type": "string" },
                        "state": { "type": "string" },
                        "changed": { "type": "boolean" },
                        "at": { "type": ["string", "null"] },
                        "event_id": { "type": "integer" }
                    },
                    "required": ["brand_slug", "state", "changed"]
                })
            }),
            hints: Hints {
                read_only: false,
                destructive: false,
                idempotent: true,
                open_world: false,
            },
            run: set_lifecycle,
        },
    ]
}

fn list_docs<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["lifecycle"])?;
        let active = match args.str("lifecycle")? {
            None | Some("all") => false,
            Some("active") => true,
            Some(_) => {
                return Err(Error::new(
                    Kind::BadParams,
                    "lifecycle must be active or all",
                ));
            }
        };
        let list = brands(&ctx.app, &ctx.principal).await?;
        pp_brand::docs::manifest(&ctx.app.store, ctx.principal.tenant.as_str(), &list, active)
    })
}

fn get_doc<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["brand", "type", "name"])?;
        let list = brands(&ctx.app, &ctx.principal).await?;
        pp_brand::docs::get(
            &ctx.app.store,
            ctx.principal.tenant.as_str(),
            &list,
            args.required("brand")?,
            args.required("type")?,
            args.str("name")?,
        )
    })
}

fn set_lifecycle<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let change = pp_brand::lifecycle::parse(args.map())?;
        let list = brands(&ctx.app, &ctx.principal).await?;
        pp_brand::lifecycle::apply(
            &ctx.app.store,
            ctx.principal.tenant.as_str(),
            &list,
            &Writer::from(&ctx.principal),
            &change,
        )
    })
}

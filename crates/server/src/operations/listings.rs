//! Listing-content change sets (docs/writes.md): the preview goes through `POST
//! /api/marketplace/spapi/call` (and `marketplace_spapi_call`); the commit goes through the
//! same call with `dryRun: false`, or `POST /api/marketplace/listings/commit` and the
//! destructive tool `marketplace_listings_commit`; a change set reads at `GET
//! /api/marketplace/listings/change-sets/{id}` with its commit and image check.

use axum::extract::{Extension, Path, State};
use pp_core::{Principal, Scope};
use pp_marketplace::service::requests::{ChangeSetId, SpapiCall};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::marketplace::{COMMIT, KeyHeader, commit_only, selector, take_key};
use super::schema::{any, any_object, api, closed, object, string, text, with};
use super::{Ctx, Endpoint, Fut, Hints, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::render;
use crate::state::SharedState;

const LISTINGS_WRITE: &[Scope] = &[Scope::RetailRead, Scope::ListingsWrite];
const RETAIL: &[Scope] = &[Scope::RetailRead];

/// Reads what the service keeps (a change set, its commit and image check).
const STORED: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

const COMMIT_KEY: &str = "1 to 255 characters: a repeated commit with the same key gets the first answer and applies nothing, also after a restart";

fn committing(mut req: SpapiCall) -> pp_core::Result<SpapiCall> {
    commit_only(&mut req.dry_run, "a change set")?;
    Ok(req)
}

async fn commit(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<SpapiCall>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.market
            .calls()
            .spapi_call(&p, committing(req)?, key)
            .await?,
    )?)
}

async fn change_set(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    let id = ChangeSetId::parse(&id)?;
    Ok(render::api(
        app.market.listings().change_set(&p, &id).await?,
    )?)
}

fn commit_tool<'a>(ctx: &'a Ctx, mut a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let key = take_key(&mut a)?;
        a.entry("operation")
            .or_insert_with(|| pp_marketplace::writes::listings::OPERATION.into());
        let req = committing(args(a)?)?;
        ctx.app
            .market
            .calls()
            .spapi_call(&ctx.principal, req, key)
            .await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChangeSetArgs {
    change_set_id: ChangeSetId,
}

fn change_set_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: ChangeSetArgs = args(a)?;
        ctx.app
            .market
            .listings()
            .change_set(&ctx.principal, &r.change_set_id)
            .await
    })
}

/// The listing-write fields of a selling-side call (docs/writes.md).
pub fn write_fields() -> Vec<(&'static str, Value)> {
    vec![
        (
            "dryRun",
            json!({ "type": "boolean", "description": "The listing write: absent or true previews (nothing applied); false commits the change set changeSetId and changeSetHash name." }),
        ),
        (
            "changeSetId",
            text(
                "The listing write: the change set to commit, from the preview's changeSet.changeSetId.",
            ),
        ),
        (
            "changeSetHash",
            text("The listing write: its hash, from the preview's changeSet.changeSetHash."),
        ),
    ]
}

fn commit_input(tool: bool) -> Value {
    let mut props = vec![
        (
            "operation",
            text("listings.patch_listings_item (the default here)."),
        ),
        ("changeSetId", text("The preview's changeSet.changeSetId.")),
        (
            "changeSetHash",
            text("The preview's changeSet.changeSetHash."),
        ),
        (
            "query",
            json!({ "type": "object", "description": "Optional: the previewed query again; a different one is refused (approval_mismatch)." }),
        ),
        (
            "dryRun",
            json!({ "type": "boolean", "description": "Leave out (a commit); true is refused." }),
        ),
    ];
    if tool {
        props.push(("idempotencyKey", text(COMMIT_KEY)));
    }
    let required: &[&str] = if tool {
        &["changeSetId", "changeSetHash"]
    } else {
        &["operation", "changeSetId", "changeSetHash"]
    };
    with(closed(&props, required), &selector())
}

fn change_set_schema() -> Value {
    object(
        &[
            ("changeSetId", string()),
            ("status", string()),
            ("changeSetHash", string()),
            ("proposedAt", string()),
            ("expiresAt", string()),
            ("proposedBy", string()),
            ("sellerId", string()),
            ("marketplaceId", string()),
            ("productTypes", any_object()),
            ("items", any()),
            ("commit", any()),
            ("media", any()),
        ],
        &["changeSetId", "status", "changeSetHash", "items"],
    )
}

fn commit_schema() -> Value {
    object(
        &[
            ("operation", string()),
            ("merchant", any_object()),
            ("dryRun", super::schema::boolean()),
            ("commit", any_object()),
            ("items", any()),
        ],
        &["operation", "merchant", "commit", "items"],
    )
}

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/api/marketplace/listings/commit", "Commit a previewed listing change set (the guarded listing write with dryRun false)", commit)
            .needs(LISTINGS_WRITE)
            .param("Idempotency-Key", super::In::Header, false, string(), COMMIT_KEY)
            .json_body(commit_input(false))
            .answers(200, api(commit_schema()))
            .tool(Tool {
                name: "marketplace_listings_commit",
                title: "Commit a previewed listing change set",
                description: "Applies exactly what a listing preview (marketplace_spapi_call with \
listings.patch_listings_item) proposed: pass the merchant, changeSetId and changeSetHash. Refused \
with nothing applied: a wrong hash or a changed query (approval_mismatch), an expired set \
(change_set_expired, 60 minutes), a committed one (change_set_already_committed), a product type \
whose schema moved (schema_drift), every listing moved since the preview (stale_approval). A SKU \
edited elsewhere since the preview fails closed (outcome drifted); the others apply. Image slots \
apply asynchronously: read marketplace_listings_change_set for the image check's outcome. Pass \
idempotencyKey to make a retry return the first answer.",
                input: commit_input(true),
                output: None,
                hints: COMMIT,
                run: commit_tool,
            }),
        Endpoint::get("/api/marketplace/listings/change-sets/{id}", "A listing change set: proposed, expired or committed, with each SKU's result and the image check", change_set)
            .needs(RETAIL)
            .path_param("id", string(), "The change set id (cs_…)")
            .answers(200, api(change_set_schema()))
            .tool(Tool {
                name: "marketplace_listings_change_set",
                title: "Read a listing change set",
                description: "A change set as it stands: status (proposed, expired, committed), the \
patches with each SKU's values before, who proposed it and when it expires; once committed, who \
committed it and each SKU's outcome; for image changes, the check that the slot changed and no \
new listing issue appeared (media.status verifying, verified, failed with the issues, timed_out).",
                input: closed(&[("changeSetId", text("The change set id (cs_…).") )], &["changeSetId"]),
                output: None,
                hints: STORED,
                run: change_set_tool,
            }),
    ]
}

//! `GET /v1/me` (`account:read`): who the token belongs to and what it may do.

use axum::Json;
use axum::extract::{Extension, State};
use pp_core::{Principal, Scope};
use serde_json::{Value, json};

use crate::http::error::V1Error;
use crate::state::SharedState;

pub async fn me(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<Json<Value>, V1Error> {
    p.require(&[Scope::AccountRead])?;
    let tenant = app.store.tenant(&p.tenant)?;
    Ok(Json(json!({
        "tenant_id": p.tenant.as_str(),
        "tenant_name": tenant.map(|t| t.name),
        "person_label": p.actor,
        "credential_id": p.credential_id,
        "scopes": p.scopes.to_strings(),
    })))
}

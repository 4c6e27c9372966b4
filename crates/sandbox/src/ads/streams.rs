//! Amazon Marketing Stream subscriptions: `POST /streams/subscriptions` (create: an SQS
//! destination, a dataset, a client request token that makes a repeat answer the first),
//! `GET /streams/subscriptions` (the profile's), `GET /streams/subscriptions/{id}` and
//! `PUT /streams/subscriptions/{id}` (archive, or change the notes), in the
//! `StreamSubscriptionResource.v1.0` media type. What is delivered and how is
//! `crate::stream`.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

use super::{ads_err, answer, body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::stream;

const MEDIA: &str =
    "application/vnd.MarketingStreamSubscriptions.StreamSubscriptionResource.v1.0+json";

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 5.0, burst: 10.0, error_media: None };)*
    };
}

ops! { CREATE = "streams.createSubscription"; LIST = "streams.listSubscriptions"; GET = "streams.getSubscription"; UPDATE = "streams.updateSubscription"; }

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/streams/subscriptions",
            op(sim, &CREATE, axum::routing::post(create)).merge(op(sim, &LIST, get(list))),
        )
        .route(
            "/streams/subscriptions/{id}",
            op(sim, &GET, get(one)).merge(op(sim, &UPDATE, axum::routing::put(update))),
        )
}

fn text<'a>(v: &'a serde_json::Value, key: &str) -> Result<Option<&'a str>, SimError> {
    match v.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ads_err(400, "400", format!("{key} must be a string"))),
    }
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, SimError> {
    media(&headers, MEDIA)?;
    let profile = profile(&sim, &c, &headers)?;
    let b = body(&bytes)?;
    let required = |k: &str| -> Result<String, SimError> {
        text(&b, k)?
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| ads_err(400, "400", format!("{k} is required")))
    };
    let token = required("clientRequestToken")?;
    if !(1..=64).contains(&token.len()) {
        return Err(ads_err(
            400,
            "400",
            "clientRequestToken is 1 to 64 characters",
        ));
    }
    let dataset = required("dataSetId")?;
    if !stream::records::DATASETS.iter().any(|d| d.0 == dataset) {
        let known: Vec<&str> = stream::records::DATASETS.iter().map(|d| d.0).collect();
        return Err(ads_err(
            400,
            "400",
            format!(
                "dataSetId {dataset} is not one the sandbox streams: {}",
                known.join(", ")
            ),
        ));
    }
    let destination = match text(&b, "destinationArn")? {
        Some(arn) => arn.to_owned(),
        None => b
            .pointer("/destination/sqsDestination/queueArn")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .ok_or_else(|| ads_err(400, "400", "destinationArn (an SQS queue ARN) is required"))?,
    };
    let notes = text(&b, "notes")?.unwrap_or_default();
    let (sub, new) = stream::insert(&sim, profile, &token, &dataset, &destination, notes)?;
    if new && let Err(e) = stream::request_confirmation(&sim, &sub).await {
        stream::set_status(&sim, &sub.id, "FAILED_CONFIRMATION", None)?;
        return Err(e);
    }
    Ok(answer(
        200,
        MEDIA,
        &json!({ "clientRequestToken": sub.client_token, "subscriptionId": sub.id }),
    ))
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
) -> Result<Response, SimError> {
    let profile = profile(&sim, &c, &headers)?;
    let subs = stream::list(&sim, Some(profile))?;
    Ok(answer(
        200,
        MEDIA,
        &json!({ "subscriptions": subs.iter().map(stream::Subscription::wire).collect::<Vec<_>>() }),
    ))
}

fn mine(sim: &Sim, profile: i64, id: &str) -> Result<stream::Subscription, SimError> {
    stream::get(sim, id)?
        .filter(|s| s.profile == profile)
        .ok_or_else(|| ads_err(404, "404", format!("Subscription {id} not found")))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    let profile = profile(&sim, &c, &headers)?;
    let sub = mine(&sim, profile, &id)?;
    Ok(answer(200, MEDIA, &json!({ "subscription": sub.wire() })))
}

async fn update(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, SimError> {
    media(&headers, MEDIA)?;
    let profile = profile(&sim, &c, &headers)?;
    let sub = mine(&sim, profile, &id)?;
    let b = body(&bytes)?;
    let notes = text(&b, "notes")?;
    let status = match text(&b, "status")? {
        None => sub.status.clone(),
        Some("ARCHIVED") if sub.status == "ARCHIVED" => sub.status.clone(),
        Some("ARCHIVED") if matches!(sub.status.as_str(), "ACTIVE" | "PENDING_CONFIRMATION") => {
            "ARCHIVED".to_owned()
        }
        Some("ARCHIVED") => {
            return Err(ads_err(
                400,
                "400",
                "Only ACTIVE subscriptions can be archived",
            ));
        }
        Some(other) => {
            return Err(ads_err(
                400,
                "400",
                format!("status can only be set to ARCHIVED, not {other}"),
            ));
        }
    };
    stream::set_status(&sim, &sub.id, &status, notes)?;
    Ok(answer(200, "application/json", &json!({})))
}

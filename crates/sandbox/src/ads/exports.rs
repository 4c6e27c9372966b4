//! Exports: `POST /campaigns/export`, `/adGroups/export`, `/targets/export` and `/ads/export`
//! answer 202 with an `exportId`; `GET /exports/{exportId}` walks PROCESSING → COMPLETED and
//! then carries a presigned `url` to a gzip JSON file of the profile's entities, as listed now.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::entities::Kind;
use super::{answer, body, media, profile};
use crate::documents::gzip;
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, iso, now_ms};
use crate::sim::Sim;

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 1.0, burst: 10.0, error_media: None };)*
    };
}

ops! { CAMPAIGNS = "exports.campaignExport"; AD_GROUPS = "exports.adGroupExport"; TARGETS = "exports.targetExport"; ADS = "exports.adExport"; GET = "exports.getExport"; }

const FAMILY: &str = "export";

struct Export {
    what: &'static str,
    /// The letter the provider's export ids end with for this kind.
    letter: &'static str,
    media: &'static str,
    kinds: &'static [&'static Kind],
}

static EXPORTS: [(&str, &Op, Export); 4] = [
    (
        "/campaigns/export",
        &CAMPAIGNS,
        Export {
            what: "campaigns",
            letter: "C",
            media: "application/vnd.campaignsexport.v1+json",
            kinds: &[&super::sp::CAMPAIGNS, &super::sb::CAMPAIGNS],
        },
    ),
    (
        "/adGroups/export",
        &AD_GROUPS,
        Export {
            what: "adGroups",
            letter: "A",
            media: "application/vnd.adgroupsexport.v1+json",
            kinds: &[&super::sp::AD_GROUPS, &super::sb::AD_GROUPS],
        },
    ),
    (
        "/targets/export",
        &TARGETS,
        Export {
            what: "targets",
            letter: "T",
            media: "application/vnd.targetsexport.v1+json",
            kinds: &[&super::sp::KEYWORDS, &super::sp::TARGETS],
        },
    ),
    (
        "/ads/export",
        &ADS,
        Export {
            what: "ads",
            letter: "R",
            media: "application/vnd.adsexport.v1+json",
            kinds: &[&super::sp::PRODUCT_ADS, &super::sb::ADS],
        },
    ),
];

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    let mut r = Router::new().route("/exports/{exportId}", op(sim, &GET, get(status)));
    for (path, o, e) in &EXPORTS {
        r = r.route(
            path,
            op(
                sim,
                o,
                post(move |State(s), Extension(c), Extension(f), h, b| create(e, s, c, f, h, b)),
            ),
        );
    }
    r
}

async fn create(
    e: &'static Export,
    sim: Arc<Sim>,
    c: Caller,
    fatal: FatalReport,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    media(&h, e.media)?;
    let p = profile(&sim, &c, &h)?;
    let req = if b.is_empty() { json!({}) } else { body(&b)? };
    let id = export_id(e.letter);
    sim.create_report(
        FAMILY,
        &p.to_string(),
        &id,
        &id,
        &json!({ "what": e.what, "filters": req }),
        fatal.0,
    )?;
    Ok(answer(
        202,
        e.media,
        &json!({ "exportId": id, "status": "PROCESSING" }),
    ))
}

/// An export id as the provider spells one: base64url (unpadded) of `<uuid>,<kind letter>`,
/// so a client can tell the export's kind, and so its `Accept` media type, from the id.
fn export_id(letter: &str) -> String {
    use base64::Engine as _;
    let uuid = crate::store::random_uuid();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{uuid},{letter}"))
}

async fn status(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    // the exports documents' errors are { message } (with a code beside it here)
    let p = profile(&sim, &c, &h).map_err(|e| e.for_family(Family::AdsEntity))?;
    let r = sim.report(FAMILY, &p.to_string(), &id)?.ok_or_else(|| {
        SimError::new(404, "NOT_FOUND", format!("export {id} not found"))
            .for_family(Family::AdsEntity)
    })?;
    let e = &EXPORTS
        .iter()
        .find(|(_, _, e)| r.request["what"] == e.what)
        .ok_or_else(|| SimError::internal("unknown export"))?
        .2;
    let accepted = h
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or(e.media);
    if !accepted.contains(e.media) && !accepted.contains("*/*") {
        return Err(SimError::new(
            406,
            "NOT_ACCEPTABLE",
            format!("this export answers {}", e.media),
        )
        .for_family(Family::AdsEntity));
    }
    let mut v = json!({ "exportId": id, "createdAt": iso(r.created_ms) });
    match r.phase(now_ms()) {
        Phase::Queued | Phase::Running => v["status"] = "PROCESSING".into(),
        Phase::Fatal | Phase::Cancelled => {
            v["status"] = "FAILED".into();
            v["error"] = json!({ "errorCode": "INTERNAL_ERROR", "message": "The export failed (sandbox fault rule)" });
        }
        Phase::Done => {
            let doc = match &r.document {
                Some(d) => d.clone(),
                None => {
                    let mut all = Vec::new();
                    for k in e.kinds {
                        all.extend(k.all(&sim, p)?);
                    }
                    let d = sim.put_document(
                        "application/json",
                        true,
                        &gzip(Value::Array(all).to_string().as_bytes()),
                    )?;
                    sim.set_report_document(&r.id, &d)?
                }
            };
            let (url, expires) = sim.presign(&doc);
            v["status"] = "COMPLETED".into();
            v["url"] = url.into();
            v["urlExpiresAt"] = iso(expires * 1000).into();
            v["generatedAt"] = iso(r.ready_ms).into();
        }
    }
    Ok(answer(200, e.media, &v))
}

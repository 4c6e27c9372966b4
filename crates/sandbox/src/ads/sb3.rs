//! Sponsored Brands v3 keywords and negative keywords, and the routes of its targets and
//! negative targets (their rules are in `sb3_targets`). Updates need `adGroupId` beside the
//! entity id. Keyword calls answer arrays of `{ code, keywordId }` (207).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use super::bulk::s;
use super::entities::Kind;
use super::sb3_targets::{self, NEGATIVE_TARGETS, Side, TARGETS};
use super::{answer, body, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

fn kind(
    name: &'static str,
    id: &'static str,
    sql: &'static str,
    shape: fn(&Map<String, Value>) -> Value,
) -> Kind {
    Kind {
        name,
        id_field: id,
        plural: "items",
        singular: "item",
        error_type: "ENTITY",
        world_sql: sql,
        shape,
    }
}

const NONE: &str = "SELECT NULL AS x WHERE ?1 IS NULL AND 0";

static KEYWORDS: std::sync::LazyLock<Kind> = std::sync::LazyLock::new(|| {
    kind(
        "sb_keyword",
        "keywordId",
        "SELECT t.TargetingID, t.CampaignID, t.AdGroupID, t.Targeting, t.MatchType, t.Bid, t.State FROM ads_targeting t
         JOIN ads_campaign c ON c.CampaignID = t.CampaignID AND c.SellerID = t.SellerID
         WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_BRANDS' AND t.TargetingType = 'KEYWORD'",
        |r| json!({ "keywordId": r["TargetingID"], "campaignId": r["CampaignID"], "adGroupId": r["AdGroupID"], "keywordText": r["Targeting"], "matchType": r["MatchType"].as_str().unwrap_or("").to_lowercase(), "bid": r["Bid"], "state": r["State"].as_str().unwrap_or("").to_lowercase() }),
    )
});
static NEGATIVE_KEYWORDS: std::sync::LazyLock<Kind> =
    std::sync::LazyLock::new(|| kind("sb_negative_keyword", "keywordId", NONE, |_| Value::Null));

/// The SB v3 operations, by the media type their documents give their errors (none: the
/// keyword writes answer per item in their 207).
macro_rules! ops {
    ($media:expr => $($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 10.0, burst: 10.0, error_media: $media };)*
    };
}

ops! { None =>
    LIST_KW = "sb.listKeywords"; CREATE_KW = "sb.createKeywords"; UPDATE_KW = "sb.updateKeywords";
    LIST_NKW = "sb.listNegativeKeywords"; CREATE_NKW = "sb.createNegativeKeywords"; UPDATE_NKW = "sb.updateNegativeKeywords";
}
ops! { Some("application/vnd.error.v3+json") =>
    GET_KW = "sb.getKeyword"; ARCHIVE_KW = "sb.archiveKeyword";
}
ops! { Some(sb3_targets::ERROR_MEDIA) =>
    LIST_T = "sb.listTargets"; CREATE_T = "sb.createTargets"; UPDATE_T = "sb.updateTargets";
    LIST_NT = "sb.listNegativeTargets"; CREATE_NT = "sb.createNegativeTargets"; UPDATE_NT = "sb.updateNegativeTargets";
}

const KW_MEDIA: &str = "application/vnd.sbkeyword.v3+json";
const KW_RESPONSE: &str = "application/vnd.sbkeywordresponse.v3+json";

fn ad_group_of(sim: &Sim, p: i64, id: &Value) -> Option<Value> {
    super::sb::AD_GROUPS
        .get(sim, p, s(id).as_str().unwrap_or(""))
        .ok()
        .flatten()
}

fn states(v: &str) -> bool {
    [
        "enabled", "paused", "archived", "ENABLED", "PAUSED", "ARCHIVED",
    ]
    .contains(&v)
}

fn list_keywords(kind: &Kind, sim: &Sim, p: i64, q: Option<&str>) -> Result<Value, SimError> {
    let q: Vec<(String, String)> = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let start: usize = get("startIndex").and_then(|v| v.parse().ok()).unwrap_or(0);
    let count: usize = get("count")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
        .min(5000);
    let groups: Option<Vec<String>> =
        get("adGroupIdFilter").map(|v| v.split(',').map(str::to_owned).collect());
    let all: Vec<Value> = kind
        .all(sim, p)?
        .into_iter()
        .filter(|k| {
            groups
                .as_ref()
                .is_none_or(|g| g.contains(&s(&k["adGroupId"]).as_str().unwrap_or("").to_owned()))
        })
        .skip(start)
        .take(count)
        .collect();
    Ok(Value::Array(all))
}

fn keyword_writes(
    kind: &Kind,
    sim: &Sim,
    p: i64,
    items: &[Value],
    create: bool,
    negative: bool,
) -> Result<Value, SimError> {
    let mut out = Vec::new();
    for item in items {
        let result = if create {
            match (
                ad_group_of(sim, p, &item["adGroupId"]),
                item["keywordText"].as_str(),
                item["matchType"].as_str(),
            ) {
                (None, _, _) => Err(format!("adGroupId {} not found", item["adGroupId"])),
                (_, None, _) | (_, _, None) => {
                    Err("keywordText and matchType are required".to_owned())
                }
                (Some(g), Some(text), Some(mt)) => {
                    let id = sim.store.next(kind.name, 9_300_000_000)?.to_string();
                    let mut k = json!({ "keywordId": id.parse::<i64>().unwrap_or_default(), "adGroupId": item["adGroupId"], "campaignId": g["campaignId"], "keywordText": text, "matchType": mt, "state": "enabled" });
                    if !negative {
                        k["bid"] = item.get("bid").cloned().unwrap_or_else(|| 1.0.into());
                    }
                    kind.put(sim, p, &k)?;
                    Ok(id)
                }
            }
        } else {
            let id = s(&item["keywordId"]);
            let current = kind.get(sim, p, id.as_str().unwrap_or(""))?;
            match (current, item.get("adGroupId")) {
                (_, None) => Err(
                    "adGroupId is required beside keywordId on a Sponsored Brands keyword update"
                        .to_owned(),
                ),
                (None, _) => Err(format!("keywordId {id} not found")),
                (Some(c), Some(g)) if s(&c["adGroupId"]) != s(g) => {
                    Err("adGroupId does not match the keyword's".to_owned())
                }
                (Some(mut c), Some(_)) => {
                    if let Some(st) = item["state"].as_str() {
                        if !states(st) {
                            return Ok(
                                json!([{ "code": "INVALID_ARGUMENT", "details": "state must be enabled, paused or archived" }]),
                            );
                        }
                        c["state"] = st.to_lowercase().into();
                    }
                    if let Some(b) = item.get("bid").filter(|b| !b.is_null()) {
                        c["bid"] = b.clone();
                    }
                    kind.put(sim, p, &c)?;
                    Ok(id.as_str().unwrap_or("").to_owned())
                }
            }
        };
        out.push(match result {
            Ok(id) => {
                json!({ "code": "SUCCESS", "keywordId": id.parse::<i64>().unwrap_or_default() })
            }
            Err(details) => json!({ "code": "INVALID_ARGUMENT", "details": details }),
        });
    }
    Ok(Value::Array(out))
}

fn array(b: &[u8]) -> Result<Vec<Value>, SimError> {
    let v = body(b)?;
    v.as_array()
        .cloned()
        .filter(|a| !a.is_empty() && a.len() <= 100)
        .ok_or_else(|| {
            SimError::new(400, "400", "send an array of 1 to 100 items").for_family(Family::Ads)
        })
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    let kw = |k: &'static std::sync::LazyLock<Kind>, neg: bool, list_op, create_op, update_op| {
        op(
            sim,
            list_op,
            get(
                move |State(sim): State<Arc<Sim>>,
                      Extension(c): Extension<Caller>,
                      h: HeaderMap,
                      RawQuery(q): RawQuery| async move {
                    let p = profile(&sim, &c, &h)?;
                    Ok::<_, SimError>(answer(
                        200,
                        KW_MEDIA,
                        &list_keywords(k, &sim, p, q.as_deref())?,
                    ))
                },
            ),
        )
        .merge(op(
            sim,
            create_op,
            post(
                move |State(sim): State<Arc<Sim>>,
                      Extension(c): Extension<Caller>,
                      h: HeaderMap,
                      b: Bytes| async move {
                    let p = profile(&sim, &c, &h)?;
                    Ok::<_, SimError>(answer(
                        207,
                        KW_RESPONSE,
                        &keyword_writes(k, &sim, p, &array(&b)?, true, neg)?,
                    ))
                },
            ),
        ))
        .merge(op(
            sim,
            update_op,
            axum::routing::put(
                move |State(sim): State<Arc<Sim>>,
                      Extension(c): Extension<Caller>,
                      h: HeaderMap,
                      b: Bytes| async move {
                    let p = profile(&sim, &c, &h)?;
                    Ok::<_, SimError>(answer(
                        207,
                        KW_RESPONSE,
                        &keyword_writes(k, &sim, p, &array(&b)?, false, neg)?,
                    ))
                },
            ),
        ))
    };
    let tg = |side: &'static Side, list_op, create_op, update_op, base: &'static str| {
        let read = |b: &Bytes| -> Result<Value, SimError> {
            match b.is_empty() {
                true => Ok(json!({})),
                false => body(b).map_err(|e| sb3_targets::bad_request(e.message)),
            }
        };
        Router::new()
            .route(
                &format!("{base}/list"),
                op(
                    sim,
                    list_op,
                    post(
                        move |State(sim): State<Arc<Sim>>,
                              Extension(c): Extension<Caller>,
                              h: HeaderMap,
                              b: Bytes| async move {
                            let p = profile(&sim, &c, &h)?;
                            let list = sb3_targets::list(side, &sim, p, &read(&b)?)?;
                            Ok::<_, SimError>(answer(200, side.list_media, &list))
                        },
                    ),
                ),
            )
            .route(
                base,
                op(
                    sim,
                    create_op,
                    post(
                        move |State(sim): State<Arc<Sim>>,
                              Extension(c): Extension<Caller>,
                              h: HeaderMap,
                              b: Bytes| async move {
                            let p = profile(&sim, &c, &h)?;
                            let made = sb3_targets::write(side, &sim, p, &read(&b)?, true)?;
                            Ok::<_, SimError>(answer(200, side.create_media, &made))
                        },
                    ),
                )
                .merge(op(
                    sim,
                    update_op,
                    axum::routing::put(
                        move |State(sim): State<Arc<Sim>>,
                              Extension(c): Extension<Caller>,
                              h: HeaderMap,
                              b: Bytes| async move {
                            let p = profile(&sim, &c, &h)?;
                            let done = sb3_targets::write(side, &sim, p, &read(&b)?, false)?;
                            Ok::<_, SimError>(answer(200, side.update_media, &done))
                        },
                    ),
                )),
            )
    };
    Router::new()
        .route(
            "/sb/keywords",
            kw(&KEYWORDS, false, &LIST_KW, &CREATE_KW, &UPDATE_KW),
        )
        .route(
            "/sb/negativeKeywords",
            kw(
                &NEGATIVE_KEYWORDS,
                true,
                &LIST_NKW,
                &CREATE_NKW,
                &UPDATE_NKW,
            ),
        )
        .route(
            "/sb/keywords/{keywordId}",
            op(
                sim,
                &GET_KW,
                get(
                    |State(sim): State<Arc<Sim>>,
                     Extension(c): Extension<Caller>,
                     h: HeaderMap,
                     Path(id): Path<String>| async move {
                        let p = profile(&sim, &c, &h)?;
                        let k = KEYWORDS.get(&sim, p, &id)?.ok_or_else(|| {
                            SimError::new(404, "NOT_FOUND", format!("keyword {id} not found"))
                                .for_family(Family::Ads)
                        })?;
                        Ok::<_, SimError>(answer(200, KW_MEDIA, &k))
                    },
                ),
            )
            .merge(op(
                sim,
                &ARCHIVE_KW,
                axum::routing::delete(
                    |State(sim): State<Arc<Sim>>,
                     Extension(c): Extension<Caller>,
                     h: HeaderMap,
                     Path(id): Path<String>| async move {
                        let p = profile(&sim, &c, &h)?;
                        let mut k = KEYWORDS.get(&sim, p, &id)?.ok_or_else(|| {
                            SimError::new(404, "NOT_FOUND", format!("keyword {id} not found"))
                                .for_family(Family::Ads)
                        })?;
                        k["state"] = "archived".into();
                        KEYWORDS.put(&sim, p, &k)?;
                        Ok::<_, SimError>(answer(
                            200,
                            KW_RESPONSE,
                            &json!({ "code": "SUCCESS", "keywordId": k["keywordId"] }),
                        ))
                    },
                ),
            )),
        )
        .merge(tg(&TARGETS, &LIST_T, &CREATE_T, &UPDATE_T, "/sb/targets"))
        .merge(tg(
            &NEGATIVE_TARGETS,
            &LIST_NT,
            &CREATE_NT,
            &UPDATE_NT,
            "/sb/negativeTargets",
        ))
}

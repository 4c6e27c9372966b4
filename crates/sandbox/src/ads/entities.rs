//! Advertising entities as the API serves them: the world's rows in the provider's shape,
//! overlaid by what callers created or changed (kept in the sandbox store), with the list
//! filters and `nextToken` paging of the v3 `POST …/list` calls and the 207 per-item answers
//! of creates, updates and deletes.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::error::{Family, SimError};
use crate::sim::Sim;

/// One entity type.
pub struct Kind {
    /// Store key (`sp_keyword` …).
    pub name: &'static str,
    /// `keywordId` …
    pub id_field: &'static str,
    /// The list and bulk key (`keywords` …).
    pub plural: &'static str,
    /// The success item's entity key (`keyword` …).
    pub singular: &'static str,
    /// The entity type named in errors (`KEYWORD` …).
    pub error_type: &'static str,
    /// World rows for profile `?1`, in the provider's shape via `shape`.
    pub world_sql: &'static str,
    pub shape: fn(&Map<String, Value>) -> Value,
}

fn id_of(kind: &Kind, v: &Value) -> String {
    match &v[kind.id_field] {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn sort_key(id: &str) -> (usize, String) {
    (id.len(), id.to_owned())
}

impl Kind {
    /// Every entity of `profile`, world and overlay merged, by id.
    pub fn all(&self, sim: &Sim, profile: i64) -> Result<Vec<Value>, SimError> {
        let mut by_id: BTreeMap<(usize, String), Value> = BTreeMap::new();
        for r in sim.world().rows(self.world_sql, &[&profile])? {
            let v = (self.shape)(&r);
            by_id.insert(sort_key(&id_of(self, &v)), v);
        }
        let overlay: Vec<String> = sim.store.with(|c| {
            let mut st =
                c.prepare_cached("SELECT body FROM entities WHERE kind = ?1 AND owner = ?2")?;
            let rows = st.query_map(rusqlite::params![self.name, profile.to_string()], |r| {
                r.get(0)
            })?;
            rows.collect()
        })?;
        for body in overlay {
            if let Ok(v) = serde_json::from_str::<Value>(&body) {
                by_id.insert(sort_key(&id_of(self, &v)), v);
            }
        }
        Ok(by_id.into_values().collect())
    }

    /// The entity `id` of `profile`.
    pub fn get(&self, sim: &Sim, profile: i64, id: &str) -> Result<Option<Value>, SimError> {
        Ok(self
            .all(sim, profile)?
            .into_iter()
            .find(|v| id_of(self, v) == id))
    }

    /// Stores `entity` (created or changed) for `profile`.
    pub fn put(&self, sim: &Sim, profile: i64, entity: &Value) -> Result<(), SimError> {
        sim.store.with(|c| {
            c.execute(
                "INSERT INTO entities (kind, id, owner, body) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body",
                rusqlite::params![
                    self.name,
                    id_of(self, entity),
                    profile.to_string(),
                    entity.to_string()
                ],
            )
        })?;
        Ok(())
    }

    /// `POST …/list`: filters (`<x>IdFilter`, `stateFilter`, `campaignIdFilter`,
    /// `adGroupIdFilter`), `maxResults` and `nextToken`.
    pub fn list(&self, sim: &Sim, profile: i64, body: &Value) -> Result<Value, SimError> {
        let include = |filter: &str| -> Option<Vec<String>> {
            body.get(filter)?.get("include")?.as_array().map(|a| {
                a.iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| v.to_string())
                    })
                    .collect()
            })
        };
        let filters: Vec<(String, Vec<String>)> = [
            (self.id_field.to_owned(), format!("{}Filter", self.id_field)),
            ("campaignId".into(), "campaignIdFilter".into()),
            ("adGroupId".into(), "adGroupIdFilter".into()),
            ("state".into(), "stateFilter".into()),
        ]
        .into_iter()
        .filter_map(|(field, filter)| include(&filter).map(|v| (field, v)))
        .collect();
        let max = match body.get("maxResults") {
            None | Some(Value::Null) => 1000,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=5000).contains(n))
                .ok_or_else(|| {
                    SimError::new(400, "400", "maxResults must be from 1 to 5000")
                        .for_family(Family::Ads)
                })? as usize,
        };
        let offset = match body.get("nextToken").and_then(Value::as_str) {
            None => 0,
            Some(t) => t
                .strip_prefix("o.")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    SimError::new(400, "400", "nextToken is not valid").for_family(Family::Ads)
                })?,
        };
        let matching: Vec<Value> = self
            .all(sim, profile)?
            .into_iter()
            .filter(|v| {
                filters.iter().all(|(field, allowed)| {
                    let got = match &v[field.as_str()] {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    allowed.iter().any(|a| a.eq_ignore_ascii_case(&got))
                })
            })
            .collect();
        let total = matching.len();
        let page: Vec<Value> = matching.into_iter().skip(offset).take(max).collect();
        // the documents call the count totalCount on Sponsored Brands v4 campaigns only
        let total_key = if self.name == "sb_campaign" {
            "totalCount"
        } else {
            "totalResults"
        };
        let mut out = json!({ (self.plural): page, (total_key): total });
        if offset + max < total {
            out["nextToken"] = format!("o.{}", offset + max).into();
        }
        Ok(out)
    }
}

/// One failed item of a bulk call.
pub fn item_error(
    index: usize,
    error_type: &str,
    reason: &str,
    message: String,
    entity: Option<(&str, &str)>,
) -> Value {
    let mut detail = json!({ "reason": reason, "message": message });
    if let Some((t, id)) = entity {
        detail["entityType"] = t.into();
        detail["entityId"] = id.into();
    }
    let mut value = Map::new();
    value.insert(error_type.to_owned(), detail);
    json!({ "index": index, "errors": [ { "errorType": error_type, "errorValue": value } ] })
}

/// The 207 body of a bulk call.
/// The id key of a write's success item: the entity's own id field, except where the
/// documents name the negative keywords' ids after their kind.
fn success_id(kind: &Kind) -> &'static str {
    match kind.singular {
        "negativeKeyword" => "negativeKeywordId",
        "campaignNegativeKeyword" => "campaignNegativeKeywordId",
        _ => kind.id_field,
    }
}

pub fn bulk(kind: &Kind, success: Vec<(usize, Value)>, errors: Vec<Value>) -> Value {
    let key = success_id(kind);
    let success: Vec<Value> = success
        .into_iter()
        .map(|(i, v)| json!({ "index": i, (key): v[kind.id_field].clone(), (kind.singular): v }))
        .collect();
    // Sponsored Brands v4 leaves out a list with nothing in it (its documents say 1 item at
    // least); Sponsored Products sends both lists always
    if kind.name.starts_with("sb_") {
        let mut lists = serde_json::Map::new();
        if !success.is_empty() {
            lists.insert("success".into(), success.into());
        }
        if !errors.is_empty() {
            lists.insert("error".into(), errors.into());
        }
        return json!({ (kind.plural): lists });
    }
    json!({ (kind.plural): { "success": success, "error": errors } })
}

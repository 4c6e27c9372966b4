//! Stage "read live state": the entities a write's items name, as the provider has them now,
//! read with the operation's catalogued read (by path, by ids, or by ad group), at most
//! [`READ_PAGES`] pages.

use std::collections::HashMap;

use pp_core::{Error, Principal, Result};
use serde_json::{Map, Value, json};

use super::super::target::{Target, built};
use super::super::{Api, Marketplace};
use crate::catalog::{self, ReadBy, WriteSpec};
use crate::writes::items::id_text;

/// Pages a current-values read follows at most (100 entities a page).
const READ_PAGES: usize = 10;

/// The entities `items` name, as the provider has them now, by id.
pub(super) async fn current(
    m: &Marketplace,
    p: &Principal,
    w: &WriteSpec,
    t: &Target,
    items: &[Value],
) -> Result<HashMap<String, Value>> {
    let mut out = HashMap::new();
    let Some(read) = &w.current else {
        return Ok(out);
    };
    let op = catalog::find(catalog::ads(), &read.operation)
        .ok_or_else(|| Error::internal(format!("{} is not in the catalog", read.operation)))?;
    let up = m.provider(Api::Ads)?;
    let distinct = |field: &str| -> Vec<String> {
        let mut v: Vec<String> = items.iter().filter_map(|i| id_text(&i[field])).collect();
        v.sort();
        v.dedup();
        v
    };
    if read.by == ReadBy::Path {
        for id in distinct(&w.entity_id) {
            let args = json!({ (w.entity_id.clone()): id });
            let req = built(p, op, args.as_object().expect("an object"), t)?;
            match up.client.send(up.store, up.sealer, &req).await {
                Ok(reply) => {
                    out.insert(id, reply.body);
                }
                // the provider has no such entity: the item says entity_not_found
                Err(e) if crate::triage::provider_not_found(&e) => {}
                Err(e) => return Err(e),
            }
        }
        return Ok(out);
    }
    let mut next: Option<String> = None;
    for _ in 0..READ_PAGES {
        let args = page_args(read.by, w, &distinct, next.as_deref());
        let req = built(p, op, &args, t)?;
        let reply = up.client.send(up.store, up.sealer, &req).await?;
        let list = match &read.key {
            Some(k) => &reply.body[k.as_str()],
            None => &reply.body,
        };
        for e in list.as_array().into_iter().flatten() {
            if let Some(id) = id_text(&e[&w.entity_id]) {
                out.insert(id, e.clone());
            }
        }
        next = reply.body["nextToken"].as_str().map(str::to_owned);
        if next.is_none() || read.by == ReadBy::AdGroupQuery {
            break;
        }
    }
    Ok(out)
}

/// The arguments of one page of a list read, after `next` when it is a later page.
fn page_args(
    by: ReadBy,
    w: &WriteSpec,
    distinct: &dyn Fn(&str) -> Vec<String>,
    next: Option<&str>,
) -> Map<String, Value> {
    let paged = |mut b: Value| {
        if let Some(n) = next {
            b["nextToken"] = n.into();
        }
        json!({ "body": b })
    };
    let args = match by {
        ReadBy::Ids => paged(
            json!({ (format!("{}Filter", w.entity_id)): { "include": distinct(&w.entity_id) }, "maxResults": 100 }),
        ),
        ReadBy::AdGroupQuery => {
            json!({ "adGroupIdFilter": distinct("adGroupId").join(","), "count": 5000 })
        }
        ReadBy::AdGroupFilter => paged(
            json!({ "filters": [{ "filterType": "AD_GROUP_ID", "values": distinct("adGroupId") }], "maxResults": 5000 }),
        ),
        ReadBy::Path => unreachable!("read one by one"),
    };
    args.as_object().cloned().unwrap_or_default()
}

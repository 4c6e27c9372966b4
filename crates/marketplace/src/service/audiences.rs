//! The paid-dataset rule of clean-room audiences (docs/writes.md, "Clean-room audiences"): a query naming a paid
//! table of a dataset its instance has not activated is refused before anything is sent
//! (the provider would answer only "Table or view not found"). The instance's
//! `optionalDatasets` labels say what is activated (`amc.get_instance`); its data sources say
//! which tables are paid (`isPremium`, `amc.list_data_sources`). A paid table belongs to the
//! dataset whose label, lower-cased, starts its name (`AUDIENCE_SEGMENTS` holds
//! `audience_segments_inmarket`).

use pp_core::{Error, Principal, Result};
use serde_json::{Map, Value, json};

use super::target::{Target, built};
use super::{Api, Marketplace};
use crate::catalog;
use crate::writes::audience::identifiers;
use crate::writes::rules::Problem;

/// Data source pages read at most (100 a page).
const SOURCE_PAGES: usize = 20;

/// One read of the clean room for an audience write.
async fn clean_room(
    m: &Marketplace,
    p: &Principal,
    t: &Target,
    op_id: &str,
    args: Value,
) -> Result<Value> {
    let op = catalog::find(catalog::ads(), op_id)
        .ok_or_else(|| Error::internal(format!("{op_id} is not in the catalog")))?;
    let up = m.provider(Api::Ads)?;
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let req = built(p, op, &args, t)?;
    Ok(up.client.send(up.store, up.sealer, &req).await?.body)
}

/// The problem with an audience item's query naming a paid table of a dataset the
/// instance has not activated.
pub(super) async fn paid_dataset_problems(
    m: &Marketplace,
    p: &Principal,
    t: &Target,
    instance: Option<String>,
    item: &Value,
) -> Result<Vec<Problem>> {
    let (Some(instance), Some(sql)) = (instance, item["query"].as_str()) else {
        return Ok(Vec::new());
    };
    let words = identifiers(sql);
    let got = clean_room(
        m,
        p,
        t,
        "amc.get_instance",
        json!({ "instanceId": instance }),
    )
    .await?;
    let labels: Vec<String> = got["instance"]["optionalDatasets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["label"].as_str().map(str::to_ascii_lowercase))
        .collect();
    let mut paid = Vec::new();
    let mut next: Option<String> = None;
    for _ in 0..SOURCE_PAGES {
        let mut args = json!({ "instanceId": instance });
        if let Some(n) = &next {
            args["nextToken"] = n.clone().into();
        }
        let page = clean_room(m, p, t, "amc.list_data_sources", args).await?;
        for s in page["dataSources"].as_array().into_iter().flatten() {
            if s["isPremium"] == true
                && let Some(id) = s["dataSourceId"].as_str()
            {
                paid.push(id.to_ascii_lowercase());
            }
        }
        next = page["nextToken"].as_str().map(str::to_owned);
        if next.is_none() {
            break;
        }
    }
    let missing: Vec<&String> = paid
        .iter()
        .filter(|table| words.contains(table))
        .filter(|table| !labels.iter().any(|l| table.starts_with(&format!("{l}_"))))
        .collect();
    Ok(missing
        .into_iter()
        .map(|table| Problem {
            field: "query".into(),
            rule: "paid_dataset",
            message: format!(
                "{table} is a paid table of a dataset instance {instance} has not activated (activated: {}); the clean room would refuse the query",
                if labels.is_empty() { "none".to_owned() } else { labels.join(", ").to_ascii_uppercase() }
            ),
        })
        .collect())
}

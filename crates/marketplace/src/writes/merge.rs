//! Bid adjustments replace the whole modifier object (docs/writes.md, "Bid adjustments"): an entry left out loses its
//! value. `merge` reads the live campaign and resends what the item leaves out — placement
//! entries by placement, audience entries by cohort, SP `strategy`, SB `bidOptimization` — so
//! a caller cannot wipe a modifier by omission. Without `merge`, the dry run says what the
//! write would remove.

use serde_json::Value;

use crate::catalog::Modifier;

struct Shape {
    object: &'static str,
    placement: &'static str,
    cohort: &'static str,
    scalar: &'static str,
}

fn shape(m: Modifier) -> Shape {
    match m {
        Modifier::Sp => Shape {
            object: "dynamicBidding",
            placement: "placementBidding",
            cohort: "shopperCohortBidding",
            scalar: "strategy",
        },
        Modifier::Sb => Shape {
            object: "bidding",
            placement: "bidAdjustmentsByPlacement",
            cohort: "shopperCohortBidAdjustments",
            scalar: "bidOptimization",
        },
    }
}

/// What names an entry: its placement, or (an audience entry, which has none) everything but
/// its percentage.
fn entry_key(e: &Value) -> String {
    if let Some(p) = e["placement"].as_str() {
        return p.to_owned();
    }
    let mut k = e.clone();
    if let Some(o) = k.as_object_mut() {
        o.remove("percentage");
    }
    k.to_string()
}

fn entries<'a>(v: &'a Value, list: &str) -> &'a [Value] {
    v[list].as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn label(e: &Value) -> String {
    let what = e["placement"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("audience entry {}", entry_key(e)));
    format!("{what} at {}%", e["percentage"])
}

/// Fills the item's modifier object from `current` (the live campaign); notes what was kept.
pub fn merge(m: Modifier, item: &mut Value, current: &Value) -> Vec<String> {
    let s = shape(m);
    let live = &current[s.object];
    let mut notes = Vec::new();
    let Some(obj) = item.get_mut(s.object).and_then(Value::as_object_mut) else {
        return notes;
    };
    for list in [s.placement, s.cohort] {
        let mut mine: Vec<Value> = obj
            .get(list)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let named: Vec<String> = mine.iter().map(entry_key).collect();
        for e in entries(live, list) {
            if !named.contains(&entry_key(e)) {
                notes.push(format!("merge kept {} from the live campaign", label(e)));
                mine.push(e.clone());
            }
        }
        if !mine.is_empty() || obj.contains_key(list) {
            obj.insert(list.into(), Value::Array(mine));
        }
    }
    if !obj.contains_key(s.scalar) && !live[s.scalar].is_null() {
        notes.push(format!(
            "merge kept {} = {} from the live campaign",
            s.scalar, live[s.scalar]
        ));
        obj.insert(s.scalar.into(), live[s.scalar].clone());
    }
    notes
}

/// What a write without `merge` removes: live entries the item leaves out.
pub fn removals(m: Modifier, item: &Value, current: &Value) -> Vec<String> {
    let s = shape(m);
    let live = &current[s.object];
    let sent = &item[s.object];
    let mut notes = Vec::new();
    for list in [s.placement, s.cohort] {
        let named: Vec<String> = entries(sent, list).iter().map(entry_key).collect();
        for e in entries(live, list) {
            if !named.contains(&entry_key(e)) {
                notes.push(format!(
                    "{} is set now and is not in this item: the write removes it (send merge: true to keep it)",
                    label(e)
                ));
            }
        }
    }
    if m == Modifier::Sb && sent.get(s.scalar).is_none() && !live[s.scalar].is_null() {
        notes.push(format!(
            "bidOptimization ({}) is not in this item: Sponsored Brands replaces the whole bidding object (send merge: true to keep it)",
            live[s.scalar]
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_keeps_what_the_item_leaves_out_and_the_item_wins_where_it_speaks() {
        let live = json!({"dynamicBidding": {"strategy": "AUTO_FOR_SALES", "placementBidding": [
            {"placement": "PLACEMENT_TOP", "percentage": 30}, {"placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 10}]}});
        let mut item = json!({"campaignId": "1", "dynamicBidding": {"placementBidding": [{"placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 50}]}});
        assert_eq!(removals(Modifier::Sp, &item, &live).len(), 1);
        let notes = merge(Modifier::Sp, &mut item, &live);
        assert_eq!(notes.len(), 2, "{notes:?}");
        let p = &item["dynamicBidding"]["placementBidding"];
        assert_eq!(p.as_array().unwrap().len(), 2);
        assert!(
            p.as_array()
                .unwrap()
                .contains(&json!({"placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 50}))
        );
        assert!(
            p.as_array()
                .unwrap()
                .contains(&json!({"placement": "PLACEMENT_TOP", "percentage": 30}))
        );
        assert_eq!(item["dynamicBidding"]["strategy"], "AUTO_FOR_SALES");
        let sb_live =
            json!({"bidding": {"bidOptimization": false, "bidAdjustmentsByPlacement": []}});
        let mut sb = json!({"bidding": {"bidAdjustmentsByPlacement": [{"placement": "HOME", "percentage": 5}]}});
        assert_eq!(removals(Modifier::Sb, &sb, &sb_live).len(), 1);
        merge(Modifier::Sb, &mut sb, &sb_live);
        assert_eq!(sb["bidding"]["bidOptimization"], false);
    }
}

//! Every selling-side catalog entry against the official model it names: the path exists with
//! that method and operationId, and the parameters (name, place, required) are the model's.
//! The models folder is `$PP_PROVIDER_MODELS` (`.ci/run` sets it); without it the test says it
//! was skipped and why, and under CI a missing folder is a failure.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

#[test]
fn selling_side_entries_match_the_official_models() {
    let Some(dir) = std::env::var_os("PP_PROVIDER_MODELS")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
    else {
        let why = "PP_PROVIDER_MODELS does not name the official models folder (.ci/run sets it to ../shared/provider-models/spapi)";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("SKIPPED catalog check: {why}");
        return;
    };
    let mut checked = 0;
    for op in pp_marketplace::catalog::spapi() {
        let file = op
            .model
            .as_deref()
            .expect("a selling-side entry names its model");
        let model: Value = serde_json::from_slice(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        let m = &model["paths"][&op.path][op.method.to_lowercase()];
        assert!(
            m.is_object(),
            "{}: {} {} is not in {file}",
            op.id,
            op.method,
            op.path
        );
        assert_eq!(
            m["operationId"].as_str(),
            op.operation_id.as_deref(),
            "{}",
            op.id
        );
        let theirs: BTreeSet<(String, String, bool)> = m["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|p| {
                let p = match p.get("$ref").and_then(Value::as_str) {
                    Some(r) => model["parameters"][r.rsplit('/').next().unwrap()].clone(),
                    None => p.clone(),
                };
                (
                    p["name"].as_str().unwrap().to_owned(),
                    p["in"].as_str().unwrap().to_owned(),
                    p["required"].as_bool().unwrap_or(false),
                )
            })
            .collect();
        let ours: BTreeSet<(String, String, bool)> = op
            .params
            .iter()
            .map(|p| (p.name.clone(), p.location.clone(), p.required))
            .collect();
        assert_eq!(ours, theirs, "{}: parameters differ from {file}", op.id);
        checked += 1;
    }
    assert_eq!(checked, pp_marketplace::catalog::spapi().len());
    println!("checked {checked} selling-side operations against the models");
}

//! The marketplace service's shape: `Marketplace` is the shared core with one `impl` block in
//! `service/mod.rs`; each area is a handle in its own module, with no import circle between
//! them; a write handle is only handed out for a principal holding its write scope.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pp_core::{Actor, Kind, Principal, Scope, ScopeSet, Surface, TenantId};
use pp_marketplace::Marketplace;
use pp_store::Store;
use pp_warehouse::{Limits, Warehouses};

const SERVICE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/service");

/// Every `.rs` file of the crate, with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
}

#[test]
fn marketplace_is_implemented_in_its_mod_rs_alone() {
    let mut files = Vec::new();
    sources(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut files,
    );
    let outside: Vec<&str> = files
        .iter()
        .filter(|(path, text)| {
            !path.ends_with("service/mod.rs") && text.contains("impl Marketplace")
        })
        .map(|(path, _)| path.as_str())
        .collect();
    assert!(
        outside.is_empty(),
        "impl Marketplace outside service/mod.rs: {outside:?}"
    );
}

/// The sibling modules a service file names through `super::`: `use super::x::…`,
/// `use super::{x, y::…}` and paths such as `super::x::f(…)` in code.
fn siblings(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("super::") {
        rest = &rest[i + "super::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => {
                let end = group.find('}').unwrap_or(group.len());
                group[..end].split(',').collect()
            }
            None => vec![rest],
        };
        for name in names {
            let name: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&name) {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn the_service_modules_import_no_circle() {
    let mut graph = BTreeMap::new();
    // a module is a file, or a folder whose files are read as one
    let files: Vec<(String, String)> = std::fs::read_dir(SERVICE)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let mut text = Vec::new();
            match p.is_dir() {
                true => sources(&p, &mut text),
                false => text.push((String::new(), std::fs::read_to_string(&p).unwrap())),
            }
            (name, text.into_iter().map(|(_, t)| t).collect())
        })
        .collect();
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| n != "mod")
        .collect();
    for (name, text) in &files {
        if name != "mod" {
            graph.insert(name.clone(), siblings(text, &modules));
        }
    }
    // the graph is read right: writes holds its commit's approval hold in `held`
    assert!(graph["writes"].contains("held"), "{graph:?}");
    // depth-first search for a back edge
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(at) = path.iter().position(|p| p == n) {
            panic!("import circle: {} -> {n}", path[at..].join(" -> "));
        }
        if done.contains(n) {
            return;
        }
        path.push(n.to_owned());
        for next in &graph[n] {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(n.to_owned());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done);
    }
}

fn principal(scopes: &[Scope]) -> Principal {
    Principal {
        tenant: TenantId::parse("shape").unwrap(),
        actor: Actor::recorded("shape-test"),
        scopes: ScopeSet::from_scopes(scopes),
        credential_id: "cred_shape".into(),
        surface: Surface::Api,
        app: None,
    }
}

#[test]
fn a_write_handle_needs_its_write_scope() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let warehouses = Warehouses::new(store.clone(), Limits::default());
    let market = Marketplace::new(store, warehouses, Default::default());

    let reader = principal(&[Scope::AdsRead, Scope::RetailRead]);
    let refused = market
        .ads_writes(&reader)
        .err()
        .expect("no ads-write handle");
    assert_eq!(refused.kind, Kind::InsufficientScope, "{refused:?}");
    assert!(refused.message().contains("ads:write"), "{refused:?}");
    let refused = market
        .listing_writes(&reader)
        .err()
        .expect("no listing-write handle");
    assert_eq!(refused.kind, Kind::InsufficientScope, "{refused:?}");

    let writer = principal(&[Scope::AdsRead, Scope::AdsWrite]);
    assert!(market.ads_writes(&writer).is_ok());
    // the selling side's reads need retail:read, which this principal lacks
    assert!(market.reports(&writer).is_err());
    assert!(market.pricing(&writer).is_err());
    let lister = principal(&[Scope::RetailRead, Scope::ListingsWrite]);
    assert!(market.listing_writes(&lister).is_ok());
}

//! `docs/reference/api.md`, written from the OpenAPI document: for every operation its
//! method and path, the scopes it needs, its MCP tool, its parameters, a request body and an
//! answer built from the declared schemas. The page cannot drift from the routes: after an
//! intended change, regenerate it with `UPDATE_SNAPSHOTS=1 cargo test -p pp-server --test api
//! reference`.

use serde_json::{Map, Value, json};

/// Where each section's rules and walkthroughs are, relative to `docs/reference/`.
const PAGES: &[(&str, &str)] = &[
    ("Sign-in and tokens", "[`../auth.md`](../auth.md)"),
    ("Brand memory", "[`../brand-memory.md`](../brand-memory.md)"),
    ("The /v1 data plane", "[`../v1.md`](../v1.md)"),
    (
        "Warehouse SQL",
        "[`../warehouse-sql.md`](../warehouse-sql.md) and the guide [`../guides/run-sql.md`](../guides/run-sql.md)",
    ),
    (
        "Reports",
        "[`../reports-and-pricing.md`](../reports-and-pricing.md) and the guide [`../guides/pull-a-report.md`](../guides/pull-a-report.md)",
    ),
    (
        "Pricing",
        "[`../reports-and-pricing.md`](../reports-and-pricing.md#pricing-batches) and the guide [`../guides/run-a-pricing-job.md`](../guides/run-a-pricing-job.md)",
    ),
    (
        "The live marketplace",
        "[`../marketplace.md`](../marketplace.md) and, for writes, [`../writes.md`](../writes.md)",
    ),
    (
        "Forecast state",
        "[`../forecast-state.md`](../forecast-state.md) and the guide [`../guides/write-forecast-corrections.md`](../guides/write-forecast-corrections.md)",
    ),
    ("Intelligence", "[`../intelligence.md`](../intelligence.md)"),
    (
        "MCP",
        "[`../mcp.md`](../mcp.md) and the guide [`../guides/connect-an-mcp-client.md`](../guides/connect-an-mcp-client.md)",
    ),
];

/// The page's sections: a path prefix and its heading, in the order a reader meets them.
const SECTIONS: &[(&str, &str)] = &[
    ("/health", "Service"),
    ("/openapi.json", "Service"),
    ("/oauth/", "Sign-in and tokens"),
    ("/.well-known/", "Sign-in and tokens"),
    ("/v1/context", "Brand memory"),
    ("/v1/timeline", "Brand memory"),
    ("/api/context", "Brand memory"),
    ("/v1/", "The /v1 data plane"),
    ("/api/query", "Warehouse SQL"),
    ("/api/table", "Warehouse SQL"),
    ("/api/marketplace/reports", "Reports"),
    ("/api/marketplace/pricing", "Pricing"),
    ("/api/marketplace/", "The live marketplace"),
    ("/api/app-state/", "Forecast state"),
    ("/api/intelligence", "Intelligence"),
    ("/mcp", "MCP"),
];

fn section_of(path: &str) -> &'static str {
    SECTIONS
        .iter()
        .find(|(prefix, _)| path.starts_with(prefix))
        .map_or("Other", |(_, s)| s)
}

/// Follows a local `$ref`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// A value of `schema`'s shape: the declared constant, default or first choice where there is
/// one, else a placeholder of the right type (`"…"` for text, the minimum for numbers).
fn example(doc: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(doc, schema);
    if depth > 6 {
        return json!("…");
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(e) = schema.get("examples").and_then(|e| e.get(0)) {
        return e.clone();
    }
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(key).and_then(|a| a.get(0)) {
            return example(doc, first, depth + 1);
        }
    }
    let ty = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(ts) => ts
            .iter()
            .find_map(|t| t.as_str().filter(|t| *t != "null"))
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = schema["properties"].as_object() {
                for (k, v) in props {
                    out.insert(k.clone(), example(doc, v, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => match schema.get("items") {
            Some(items) => json!([example(doc, items, depth + 1)]),
            None => json!([]),
        },
        "integer" => schema.get("minimum").cloned().unwrap_or(json!(0)),
        "number" => schema.get("minimum").cloned().unwrap_or(json!(0.0)),
        "boolean" => json!(true),
        "string" => match schema["format"].as_str() {
            Some("date") => json!("2026-10-01"),
            Some("date-time") => json!("2026-10-01T00:00:00Z"),
            _ => json!("…"),
        },
        "null" => Value::Null,
        _ => json!("…"),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The scopes a call needs: each alternative of `security`, all of its scopes required.
fn scopes(op: &Value) -> String {
    let alternatives: Vec<String> = op["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|alt| alt["oauth2"].as_array())
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.iter()
                .map(|x| format!("`{}`", x.as_str().unwrap()))
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect();
    if alternatives.is_empty() {
        "none: no token".into()
    } else {
        alternatives.join(", or ")
    }
}

fn operation(doc: &Value, method: &str, path: &str, op: &Value, out: &mut String) {
    out.push_str(&format!("### `{} {path}`\n\n", method.to_uppercase()));
    if let Some(s) = op["summary"].as_str() {
        out.push_str(&format!("{}.\n\n", s.trim_end_matches('.')));
    }
    if let Some(d) = op["description"].as_str() {
        out.push_str(&format!("{}\n\n", one_line(d)));
    }
    out.push_str(&format!("- Scopes: {}\n", scopes(op)));
    if let Some(tool) = op["x-mcp-tool"].as_str() {
        out.push_str(&format!("- MCP tool: `{tool}`\n"));
    }
    out.push('\n');
    let params: Vec<&Value> = op["parameters"].as_array().into_iter().flatten().collect();
    if !params.is_empty() {
        out.push_str("| parameter | in | required | what |\n|---|---|---|---|\n");
        for p in params {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                p["name"].as_str().unwrap_or_default(),
                p["in"].as_str().unwrap_or_default(),
                if p["required"].as_bool() == Some(true) {
                    "yes"
                } else {
                    "no"
                },
                one_line(p["description"].as_str().unwrap_or_default()),
            ));
        }
        out.push('\n');
    }
    let content = &op["requestBody"]["content"];
    if let Some((media, body)) = content.as_object().and_then(|c| c.iter().next()) {
        let schema = resolve(doc, &body["schema"]);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if let Some(props) = schema["properties"].as_object() {
            out.push_str(&format!(
                "Request body (`{media}`):\n\n| field | required | what |\n|---|---|---|\n"
            ));
            for (k, v) in props {
                out.push_str(&format!(
                    "| `{k}` | {} | {} |\n",
                    if required.contains(&k.as_str()) {
                        "yes"
                    } else {
                        "no"
                    },
                    one_line(resolve(doc, v)["description"].as_str().unwrap_or_default())
                ));
            }
            out.push_str("\nWith what is required:\n\n");
        } else {
            out.push_str(&format!("Request body (`{media}`):\n\n"));
        }
        let mut v = example(doc, &body["schema"], 0);
        // The example sends what is required; the table names the rest.
        if let (Some(o), false) = (v.as_object_mut(), required.is_empty()) {
            o.retain(|k, _| required.contains(&k.as_str()));
        }
        if media == "application/json" {
            out.push_str(&format!(
                "```json\n{}\n```\n\n",
                serde_json::to_string_pretty(&v).unwrap()
            ));
        } else {
            let form: Vec<String> = v
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_owned)))
                .collect();
            out.push_str(&format!("```text\n{}\n```\n\n", form.join("&")));
        }
    }
    for (status, answer) in op["responses"].as_object().into_iter().flatten() {
        if status == "default" {
            continue;
        }
        let description = answer["description"].as_str().unwrap_or_default();
        match answer["content"]["application/json"].get("schema") {
            Some(schema) => out.push_str(&format!(
                "Answer `{status}` ({}):\n\n```json\n{}\n```\n\n",
                one_line(description).to_lowercase(),
                serde_json::to_string_pretty(&example(doc, schema, 0)).unwrap()
            )),
            None => out.push_str(&format!(
                "Answer `{status}`: {}.\n\n",
                one_line(description)
            )),
        }
    }
}

/// The whole page.
fn page(doc: &Value) -> String {
    let mut out = String::from(
        "# API reference\n\n\
         Every operation the gateway serves, written from its OpenAPI document (`GET /openapi.json`)\n\
         by `crates/server/tests/api/reference_doc.rs`, so it lists exactly what is routed. Each\n\
         operation shows the scopes its token needs, the MCP tool that does the same where there\n\
         is one, its parameters, and a request body and an answer built from the declared\n\
         schemas: `\"…\"` stands for any text, numbers show their smallest allowed value, and an\n\
         answer lists every field an answer may carry. The guides run real calls\n\
         ([`../README.md`](../README.md)); failures are described in\n\
         [`../errors.md`](../errors.md).\n\n\
         Send `Authorization: Bearer <access token>` on every call that needs a scope. A missing\n\
         or refused token is `401`, a missing scope `403 insufficient_scope`.\n\n",
    );
    let mut sections: Vec<(&str, String)> = Vec::new();
    for (path, methods) in doc["paths"].as_object().unwrap() {
        for (method, op) in methods.as_object().unwrap() {
            let mut text = String::new();
            operation(doc, method, path, op, &mut text);
            let name = section_of(path);
            match sections.iter_mut().find(|(n, _)| *n == name) {
                Some((_, body)) => body.push_str(&text),
                None => sections.push((name, text)),
            }
        }
    }
    let order: Vec<&str> = SECTIONS.iter().map(|(_, s)| *s).chain(["Other"]).collect();
    sections.sort_by_key(|(n, _)| order.iter().position(|o| o == n));
    out.push_str("## Sections\n\n");
    for (name, _) in &sections {
        let anchor: String = name
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push_str(&format!("- [{name}](#{anchor})\n"));
    }
    out.push('\n');
    for (name, body) in sections {
        out.push_str(&format!("## {name}\n\n"));
        if let Some((_, pages)) = PAGES.iter().find(|(n, _)| *n == name) {
            out.push_str(&format!("The rules in full: {pages}.\n\n"));
        }
        out.push_str(&body);
    }
    out.trim_end().to_owned() + "\n"
}

#[test]
fn the_api_reference_is_the_openapi_document() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference/api.md");
    let doc = pp_server::openapi::document("http://127.0.0.1:8080");
    let text = page(&doc);
    let operations: usize = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|m| m.as_object().unwrap().len())
        .sum();
    assert_eq!(
        text.matches("\n### `").count(),
        operations,
        "one entry per operation"
    );
    assert!(
        crate::common::matches_snapshot(&path, &text),
        "docs/reference/api.md is not what /openapi.json says; regenerate it with \
         UPDATE_SNAPSHOTS=1 cargo test -p pp-server --test api reference"
    );
}

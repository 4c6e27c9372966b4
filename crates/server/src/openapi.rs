//! The OpenAPI 3.1 document served at `/openapi.json`, generated from the operation
//! declarations (`crate::operations`): every routed operation with its scopes, parameters,
//! request body, success answer and failure envelope. A snapshot test shows every change.

use serde_json::{Map, Value, json};

use crate::operations::{self, Endpoint, Gate, In};

fn parameters(e: &Endpoint) -> Vec<Value> {
    e.params
        .iter()
        .map(|p| {
            let loc = match p.location {
                In::Path => "path",
                In::Query => "query",
                In::Header => "header",
            };
            json!({ "name": p.name, "in": loc, "required": p.required, "schema": p.schema, "description": p.description })
        })
        .collect()
}

fn operation(e: &Endpoint) -> Value {
    let error = match e.failure {
        Some(name) => format!("#/components/schemas/{name}"),
        None if e.path.starts_with("/v1/") => "#/components/schemas/V1Error".to_owned(),
        None => "#/components/schemas/ApiError".to_owned(),
    };
    let success = match &e.response {
        Some(schema) => {
            json!({ "description": "Success", "content": { "application/json": { "schema": schema } } })
        }
        None => json!({ "description": "Success" }),
    };
    let mut o = json!({
        "summary": e.summary,
        "parameters": parameters(e),
        "responses": {
            e.status.to_string(): success,
            "default": { "description": "Failure (see docs/errors.md)", "content": { "application/json": { "schema": { "$ref": error } } } },
        },
    });
    let scopes: Vec<&str> = e.needs.scopes().iter().map(|s| s.as_str()).collect();
    match e.gate {
        Gate::Public => o["security"] = json!([]),
        // a bearer token of any credential holding one tool's scopes; each tool checks its own
        Gate::Own => o["security"] = json!([{ "oauth2": [] }]),
        Gate::Token | Gate::TokenCounted => {
            // any one of several scopes is one security alternative per scope
            o["security"] = match e.needs {
                operations::Needs::Any(_) => {
                    Value::Array(scopes.iter().map(|s| json!({ "oauth2": [s] })).collect())
                }
                _ => json!([{ "oauth2": scopes }]),
            };
            o["responses"][e.status.to_string()]["headers"] = budget_headers();
            o["x-required-scopes"] = json!(scopes);
            if matches!(e.needs, operations::Needs::Any(_)) {
                o["x-scopes-any-of"] = true.into();
            }
        }
    }
    if let Some(tool) = &e.tool {
        o["x-mcp-tool"] = tool.name.into();
    }
    if let Some(b) = &e.body {
        o["requestBody"] =
            json!({ "required": true, "content": { b.media: { "schema": b.schema } } });
    }
    o
}

/// The credential's request budget every token route answers with (`http::auth`).
fn budget_headers() -> Value {
    let int = |d: &str| json!({ "description": d, "schema": { "type": "integer", "minimum": 0 } });
    json!({
        "RateLimit-Limit": int("Requests this credential may make at once"),
        "RateLimit-Remaining": int("Requests it may still make now"),
        "RateLimit-Reset": int("Seconds until its budget is whole again"),
    })
}

/// The document for a server reached at `base`.
pub fn document(base: &str) -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for e in operations::all() {
        let entry = paths.entry(e.path.to_owned()).or_insert_with(|| json!({}));
        entry[e.method.as_str()] = operation(e);
    }
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": { "title": "Partner Platform", "version": pp_core::BUILD_VERSION, "description": "One OAuth 2.0 bearer credential over a tenant's warehouse and accounts. /v1 is the contract-stable partner surface; /api is not under the /v1 contract." },
        "servers": [{ "url": base }],
        "paths": paths,
        "components": {
            "securitySchemes": { "oauth2": { "type": "oauth2", "flows": { "clientCredentials": { "tokenUrl": format!("{base}/oauth/token"), "scopes": pp_core::Scope::ALL.iter().map(|s| (s.as_str().to_owned(), json!(s.as_str()))).collect::<Map<_, _>>() } } } },
            "schemas": {
                "OAuthError": { "type": "object", "required": ["error"], "properties": { "error": { "type": "string" }, "error_description": { "type": "string" } } },
                "V1Error": { "type": "object", "required": ["error"], "properties": { "error": { "type": "object", "required": ["code", "message"], "properties": { "code": { "type": "string" }, "message": { "type": "string" } } } } },
                "ApiError": { "type": "object", "required": ["ok", "kind", "source", "retryable", "friendly", "message"], "properties": {
                    "ok": { "const": false }, "kind": { "type": "string" }, "source": { "enum": ["request", "account", "amazon_rejected", "amazon_unavailable", "mixshift"] },
                    "retryable": { "type": "boolean" }, "friendly": { "type": "string" }, "message": { "type": "string" }, "fix": { "type": "string" } } },
            },
        },
    });
    // the intelligence results' types, derived from the engines' result types
    let (_, types) = pp_intelligence::registry::result_schemas();
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        schemas.extend(types);
    }
    doc
}

/// Every documented (method, path), for tests.
pub fn documented() -> Vec<(&'static str, &'static str)> {
    operations::all()
        .iter()
        .map(|e| (e.method.as_str(), e.path))
        .collect()
}

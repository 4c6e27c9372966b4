//! Public operations: health, the token endpoint and discovery documents, this document, and
//! the MCP transports (which authenticate their own callers; each tool checks its scopes).

use serde_json::json;

use super::schema::{any_object, closed, object, one_of, string};
use super::{Endpoint, Gate};
use crate::mcp;
use crate::routes::{health, oauth};

pub fn endpoints() -> Vec<Endpoint> {
    let public = |e: Endpoint| e.gate(Gate::Public);
    let own = |e: Endpoint| e.gate(Gate::Own);
    vec![
        public(Endpoint::get("/health", "Liveness with build, engine and evidence versions", health::health))
            .answers(200, object(&[("status", one_of(&["ok"])), ("version", string()), ("engine_version", string()), ("evidence_version", string()), ("upstream", json!({})), ("sync", json!({}))], &["status", "version", "engine_version", "evidence_version"])),
        public(Endpoint::post("/oauth/token", "Mint an access token: client_credentials (service credentials), authorization_code with PKCE and refresh_token (applications); HTTP Basic or form client authentication", oauth::token))
            .fails_as("OAuthError")
            .form_body(closed(&[("grant_type", one_of(&["client_credentials", "authorization_code", "refresh_token"])), ("scope", string()), ("client_id", string()), ("client_secret", string()), ("code", string()), ("redirect_uri", string()), ("code_verifier", string()), ("refresh_token", string())], &["grant_type"]))
            .answers(200, object(&[("access_token", string()), ("token_type", one_of(&["Bearer"])), ("expires_in", super::schema::int()), ("scope", string()), ("refresh_token", string())], &["access_token", "token_type", "expires_in", "scope"])),
        public(Endpoint::post("/oauth/revoke", "Revoke a refresh or access token (RFC 7009); answers 200 whether or not the token was live", oauth::revoke))
            .fails_as("OAuthError")
            .form_body(closed(&[("token", string()), ("token_type_hint", string()), ("client_id", string()), ("client_secret", string())], &["token"]))
            .answers(200, json!({})),
        public(Endpoint::post("/oauth/register", "Register an MCP client (RFC 7591): a public client with https or loopback redirect URIs and at most the interactive sign-in scopes", oauth::register))
            .fails_as("OAuthError")
            .json_body(object(&[("client_name", string()), ("redirect_uris", json!({"type": "array", "items": {"type": "string"}})), ("scope", string()), ("token_endpoint_auth_method", string()), ("grant_types", json!({"type": "array", "items": {"type": "string"}})), ("response_types", json!({"type": "array", "items": {"type": "string"}}))], &["redirect_uris"]))
            .answers(201, object(&[("client_id", string()), ("redirect_uris", json!({"type": "array", "items": {"type": "string"}})), ("scope", string())], &["client_id", "redirect_uris"])),
        public(Endpoint::post("/oauth/setup-code", "Exchange a one-time setup code from the console for the plugin's own service credential", oauth::setup_code))
            .fails_as("OAuthError")
            .form_body(closed(&[("code", string())], &["code"]))
            .answers(200, object(&[("client_id", string()), ("client_secret", string()), ("scope", string()), ("token_endpoint", string())], &["client_id", "client_secret", "scope", "token_endpoint"])),
        public(Endpoint::get("/.well-known/oauth-authorization-server", "OAuth authorization server metadata (RFC 8414)", oauth::metadata))
            .answers(200, object(&[("issuer", string()), ("authorization_endpoint", string()), ("token_endpoint", string()), ("revocation_endpoint", string()), ("registration_endpoint", string())], &["issuer", "authorization_endpoint", "token_endpoint"])),
        public(Endpoint::get("/.well-known/oauth-protected-resource", "Protected resource metadata for the service (RFC 9728)", mcp::metadata::for_root))
            .answers(200, object(&[("resource", string())], &["resource"])),
        public(Endpoint::get("/.well-known/oauth-protected-resource/mcp", "Protected resource metadata for the MCP endpoint (RFC 9728)", mcp::metadata::for_mcp))
            .answers(200, object(&[("resource", string())], &["resource"])),
        own(Endpoint::post("/mcp", "MCP Streamable HTTP: JSON-RPC messages, session era or 2026-07-28 (docs/mcp.md); each tool checks its own scopes", mcp::streamable::post))
            .json_body(any_object()),
        own(Endpoint::get("/mcp", "MCP: a session's event stream (Mcp-Session-Id)", mcp::streamable::get)),
        own(Endpoint::delete("/mcp", "MCP: end a session (Mcp-Session-Id)", mcp::streamable::delete)),
        own(Endpoint::get("/mcp/sse", "MCP legacy HTTP+SSE (2024-11-05): opens the stream; its endpoint event names where to POST", mcp::legacy_sse::open)),
        own(Endpoint::post("/mcp/sse", "MCP legacy HTTP+SSE: a message for the session named by session_id", mcp::legacy_sse::message))
            .query("session_id", true, string(), "The session id from the endpoint event")
            .json_body(any_object()),
        public(Endpoint::get("/openapi.json", "This document", health::openapi))
            .answers(200, object(&[("openapi", string()), ("paths", any_object())], &["openapi", "paths"])),
    ]
}

//! The one error type. Every service returns [`Error`]; the server renders it as the `/api`
//! failure envelope, the `/v1` `{ error: { code, message } }` body, or an MCP tool result.
//! Each [`Kind`] fixes its HTTP status, `source` and `retryable` in one table
//! (`docs/errors.md` is the same table in prose).

use serde::Serialize;
use serde_json::{Map, Value};

/// Where a failure comes from (the `/api` envelope's `source` field; literal spec values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The caller's request is at fault.
    Request,
    /// The caller's account, credential or connection is at fault.
    Account,
    /// The marketplace provider refused this request.
    AmazonRejected,
    /// The marketplace provider is temporarily unavailable.
    AmazonUnavailable,
    /// The service itself failed.
    Mixshift,
}

macro_rules! kinds {
    ($( $variant:ident => ($code:literal, $status:literal, $source:ident, $retry:literal, $v1:literal, $friendly:literal) ),* $(,)?) => {
        /// Machine code of a failure (the envelope's `kind`). Clients branch on this.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Kind { $( $variant ),* }

        impl Kind {
            /// Every kind the service serves, in `docs/errors.md` order.
            pub const ALL: &'static [Kind] = &[ $( Kind::$variant ),* ];

            /// The wire value of `kind`.
            pub fn code(self) -> &'static str { match self { $( Kind::$variant => $code ),* } }
            /// HTTP status the service answers with.
            pub fn status(self) -> u16 { match self { $( Kind::$variant => $status ),* } }
            /// The envelope's `source`.
            pub fn source(self) -> Source { match self { $( Kind::$variant => Source::$source ),* } }
            /// Whether resending the same call can ever succeed.
            pub fn retryable(self) -> bool { match self { $( Kind::$variant => $retry ),* } }
            /// The `/v1` error code this kind renders as.
            pub fn v1_code(self) -> &'static str { match self { $( Kind::$variant => $v1 ),* } }
            /// Default text safe to show a person.
            pub fn friendly(self) -> &'static str { match self { $( Kind::$variant => $friendly ),* } }
        }
    };
}

kinds! {
    // Request and authorization.
    InvalidRequest => ("invalid_request", 400, Request, false, "validation_error", "The request is malformed."),
    BadParams => ("bad_params", 400, Request, false, "validation_error", "A parameter is missing or invalid."),
    TooLarge => ("too_large", 400, Request, false, "validation_error", "The request is larger than the service accepts."),
    InvalidToken => ("invalid_token", 401, Account, false, "unauthorized", "The access token is missing, invalid or expired."),
    InsufficientScope => ("insufficient_scope", 403, Account, false, "insufficient_scope", "This credential lacks a scope the call needs."),
    NotFound => ("not_found", 404, Request, false, "not_found", "Nothing exists at that name."),
    MethodNotAllowed => ("method_not_allowed", 405, Request, false, "validation_error", "That method is not served on this path."),
    OriginNotAllowed => ("origin_not_allowed", 403, Request, false, "forbidden", "This request's Origin or Host is not one the server accepts."),
    Unknown => ("unknown", 500, Mixshift, true, "internal_error", "Something went wrong on our side."),
    Unavailable => ("unavailable", 503, Mixshift, true, "unavailable", "The service is temporarily unavailable; retry shortly."),
    // Warehouse SQL.
    SqlError => ("sql_error", 400, Request, false, "validation_error", "The database rejected the query."),
    ReadOnlyViolation => ("read_only_violation", 400, Request, false, "validation_error", "The warehouse is read-only: only SELECT queries run."),
    MultipleStatements => ("multiple_statements", 400, Request, false, "validation_error", "Send exactly one SQL statement per call."),
    QueryTimeout => ("query_timeout", 400, Request, false, "validation_error", "The query ran longer than its time limit and was stopped."),
    WarehouseUnavailable => ("warehouse_unavailable", 503, Mixshift, true, "unavailable", "The tenant's warehouse cannot be reached right now."),
    // Forecast state.
    Conflict => ("conflict", 409, Request, false, "conflict", "Someone changed this since you read it; nothing was written."),
    StateHomeElsewhere => ("state_home_elsewhere", 409, Account, false, "conflict", "This state lives under another login; nothing was written."),
    ScopeNotYours => ("scope_not_yours", 403, Account, false, "insufficient_scope", "That scope belongs to another database."),
    MerchantNotConnected => ("merchant_not_connected", 403, Account, false, "insufficient_scope", "That merchant is not connected to this account."),
    // Brand memory.
    UnknownBrand => ("unknown_brand", 404, Request, false, "not_found", "No brand by that name in this account."),
    // Live marketplace (provider outcomes and merchant selection).
    BadRequest => ("bad_request", 400, AmazonRejected, false, "validation_error", "The marketplace rejected the request's parameters."),
    RestrictedReport => ("restricted_report", 403, AmazonRejected, false, "forbidden", "The marketplace does not give this account access to that data."),
    ReauthRequired => ("reauth_required", 409, Account, false, "reauth_required", "The merchant's connection lapsed; it must be connected again."),
    MerchantInactive => ("merchant_inactive", 422, Account, false, "merchant_inactive", "The merchant is not activated for advertising here."),
    ProfileNotAuthorized => ("profile_not_authorized", 403, AmazonRejected, false, "forbidden", "The advertising login has no access to that account at the marketplace."),
    MerchantNotFound => ("merchant_not_found", 404, Request, false, "not_found", "No connected merchant matches that selector."),
    Throttled => ("throttled", 429, Request, true, "rate_limited", "Too many requests right now; retry after the delay."),
    UpstreamUnavailable => ("upstream_unavailable", 502, AmazonUnavailable, true, "upstream_unavailable", "The marketplace is not answering properly right now."),
    HostUnreachable => ("host_unreachable", 502, AmazonUnavailable, true, "upstream_unavailable", "The marketplace could not be reached."),
    SpapiNotConfigured => ("spapi_not_configured", 503, Mixshift, false, "unavailable", "The selling-side API is not switched on for this service."),
    AdsNotConfigured => ("ads_not_configured", 503, Mixshift, false, "unavailable", "The advertising API is not switched on for this service."),
    // Reports (docs/errors.md).
    ReportRetired => ("report_retired", 400, Request, false, "validation_error", "That report type is retired; use a current one."),
    ReportFatal => ("report_fatal", 502, AmazonRejected, false, "upstream_unavailable", "The report was accepted but failed to produce."),
    ReportNotReady => ("report_not_ready", 409, Request, true, "conflict", "The report has no document yet; poll its status."),
    // Audited advertising writes.
    PlanNotFound => ("plan_not_found", 404, Request, false, "not_found", "No write plan by that id in this account; preview again."),
    PlanExpired => ("plan_expired", 409, Request, false, "conflict", "The write plan expired; nothing was sent. Preview again."),
    PlanMismatch => ("plan_mismatch", 409, Request, false, "conflict", "The commit does not match its plan; nothing was sent. Preview again."),
    PlanAlreadyCommitted => ("plan_already_committed", 409, Request, false, "conflict", "That write plan was already committed; read the audit log before planning again."),
    PolicyViolation => ("policy_violation", 422, Request, false, "validation_error", "The account's write policy does not allow this change; nothing was sent."),
    // Listing-content change sets (docs/errors.md).
    ChangeSetNotFound => ("change_set_not_found", 404, Request, false, "not_found", "No listing change set by that id in this account."),
    ChangeSetExpired => ("change_set_expired", 409, Request, false, "conflict", "The change set aged out; nothing was applied. Propose it again."),
    ChangeSetAlreadyCommitted => ("change_set_already_committed", 409, Request, false, "conflict", "That change set was already applied; re-read the listings before proposing again."),
    ApprovalMismatch => ("approval_mismatch", 409, Request, false, "conflict", "The commit does not match the change set that was approved; nothing was applied."),
    StaleApproval => ("stale_approval", 409, Request, false, "conflict", "The listings moved since the approval; nothing was applied. Re-read, re-propose, re-approve."),
    SchemaDrift => ("schema_drift", 409, Request, false, "conflict", "The product type's schema changed since the preview; nothing was applied. Rebuild the change."),
    PatchNotAllowed => ("patch_not_allowed", 422, Request, false, "validation_error", "That attribute cannot be changed through listing writes."),
    ListingsWriteNotEnabled => ("listings_write_not_enabled", 403, Account, false, "forbidden", "Listing writes are not enabled for this account."),
    ListingsWriteDisabled => ("listings_write_disabled", 503, Mixshift, true, "unavailable", "Listing writes are switched off for now; retry later."),
    ListingsMediaWriteDisabled => ("listings_media_write_disabled", 503, Mixshift, true, "unavailable", "Listing image changes are switched off for now; retry later."),
    // Pricing (docs/errors.md).
    TooManyItems => ("too_many_items", 400, Request, false, "validation_error", "Too many items for this endpoint; use the /start endpoint."),
    // Intelligence (docs/errors.md).
    NotEnrolled => ("not_enrolled", 403, Account, false, "forbidden", "Intelligence is switched off for this account."),
    MerchantNotResolved => ("merchant_not_resolved", 422, Request, false, "validation_error", "The parameters do not name one merchant or brand of this account."),
    NoDataForPeriod => ("no_data_for_period", 404, Request, false, "not_found", "The warehouse holds no data for that merchant over that period."),
    Busy => ("busy", 429, Mixshift, true, "rate_limited", "This account is already computing as many requests as it may; retry shortly."),
    AccountTooLargeUseAsync => ("account_too_large_use_async", 422, Request, false, "validation_error", "This account is too large to answer while you wait; retry with async: true and poll the run."),
    RunNotReady => ("run_not_ready", 409, Request, true, "conflict", "The run has not finished yet; poll it."),
    // Events and webhooks (docs/events.md).
    UrlRefused => ("url_refused", 400, Request, false, "validation_error", "The service does not call that address (loopback, private, link-local or metadata)."),
    WebhooksNotConfigured => ("webhooks_not_configured", 503, Mixshift, false, "unavailable", "Webhooks need the service's secret key, which the operator has not set."),
    // /v1 data plane.
    AccountRequired => ("account_required", 400, Request, false, "account_required", "Name the account with account_id."),
    AccountNotFound => ("account_not_found", 404, Request, false, "account_not_found", "No such account for this credential."),
}

/// The underlying failure an [`Error`] was made from, kept for the log.
pub type Cause = std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>;

/// A failure, carrying everything any of the three renderings needs. Small on the stack
/// (the kind plus one box) so `Result<T, Error>` stays cheap to pass around. Its cause, when
/// it has one, is a source chain ([`std::error::Error::source`]): logged, never sent.
#[derive(Debug, Clone)]
pub struct Error {
    /// The machine code.
    pub kind: Kind,
    detail: Box<Detail>,
}

#[derive(Debug, Clone)]
struct Detail {
    message: String,
    friendly: Option<String>,
    fix: Option<String>,
    required_scopes: Vec<String>,
    retryable: Option<bool>,
    extra: Map<String, Value>,
    source: Option<Cause>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.detail.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.detail
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Error {
    /// A failure of `kind` with a specific message.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            detail: Box::new(Detail {
                message: message.into(),
                friendly: None,
                fix: None,
                required_scopes: Vec::new(),
                retryable: None,
                extra: Map::new(),
                source: None,
            }),
        }
    }

    /// The specific reason (safe to send: never holds secrets or internal causes).
    pub fn message(&self) -> &str {
        &self.detail.message
    }

    /// Scopes the call needed (on `insufficient_scope`).
    pub fn required_scopes(&self) -> &[String] {
        &self.detail.required_scopes
    }

    /// Names the scopes that would do (rendered as `required_scopes`, and as `scope=` in a
    /// challenge).
    pub fn with_required_scopes(mut self, scopes: Vec<String>) -> Self {
        self.detail.required_scopes = scopes;
        self
    }

    /// Adds a concrete next step.
    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.detail.fix = Some(fix.into());
        self
    }

    /// Overrides the kind's `retryable` where the triage table names an exception (a
    /// concurrency cap is `throttled` but waiting does not clear it).
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.detail.retryable = Some(retryable);
        self
    }

    /// Whether resending the same call can ever succeed.
    pub fn retryable(&self) -> bool {
        self.detail.retryable.unwrap_or(self.kind.retryable())
    }

    /// An envelope field added with [`Error::with_field`].
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.detail.extra.get(key)
    }

    /// Adds one more envelope field.
    pub fn with_field(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.detail.extra.insert(key.to_owned(), value.into());
        self
    }

    /// `400 invalid_request`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(Kind::InvalidRequest, message)
    }

    /// `404 not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Kind::NotFound, message)
    }

    /// `403 insufficient_scope` naming every scope the call needs.
    pub fn insufficient_scope(required: &[&str], missing: &[&str]) -> Self {
        let mut e = Self::new(
            Kind::InsufficientScope,
            format!(
                "this call needs the scopes {}; the token lacks {}",
                required.join(" "),
                missing.join(" ")
            ),
        )
        .with_fix(
            "Ask a tenant admin for a credential that holds these scopes, then mint a new token.",
        );
        e.detail.required_scopes = required.iter().map(|s| (*s).to_owned()).collect();
        e
    }

    /// An opaque `500 unknown`; the cause is for the log only, never the response.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::new(Kind::Unknown, "internal error").with_field("_cause", cause.to_string())
    }

    /// An opaque `500 unknown` made from `source`, which stays attached as the error's
    /// source chain for the log.
    pub fn internal_from(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::internal(&source).with_source(source)
    }

    /// An opaque `500 unknown` saying what failed (`context`, such as "warehouse setup"), with
    /// the error that made it fail kept as its source chain for the log.
    pub fn internal_with(
        context: impl std::fmt::Display,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::internal(context).with_source(source)
    }

    /// Keeps `source` as the cause of this error (logged with it, never sent).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.detail.source = Some(std::sync::Arc::new(source));
        self
    }

    /// The logged cause of an internal error, if any.
    pub fn cause(&self) -> Option<&str> {
        self.detail.extra.get("_cause").and_then(Value::as_str)
    }

    /// Everything the log should say about the failure: the cause, then each source in the
    /// chain, joined by `: `. Empty when there is nothing beyond the message.
    pub fn chain(&self) -> String {
        let mut parts: Vec<String> = self.cause().map(str::to_owned).into_iter().collect();
        let mut next = std::error::Error::source(self);
        while let Some(e) = next {
            let text = e.to_string();
            if parts.last() != Some(&text) {
                parts.push(text);
            }
            next = e.source();
        }
        parts.join(": ")
    }

    /// The `/api` failure envelope.
    pub fn api_envelope(&self, request_id: Option<&str>) -> Value {
        let mut body = Map::new();
        body.insert("ok".into(), false.into());
        body.insert("kind".into(), self.kind.code().into());
        body.insert(
            "source".into(),
            serde_json::to_value(self.kind.source()).unwrap_or(Value::Null),
        );
        body.insert("retryable".into(), self.retryable().into());
        body.insert(
            "friendly".into(),
            self.detail
                .friendly
                .as_deref()
                .unwrap_or(self.kind.friendly())
                .into(),
        );
        body.insert("message".into(), self.detail.message.clone().into());
        if let Some(fix) = &self.detail.fix {
            body.insert("fix".into(), fix.clone().into());
        }
        if !self.detail.required_scopes.is_empty() {
            body.insert(
                "required_scopes".into(),
                self.detail.required_scopes.clone().into(),
            );
        }
        for (k, v) in &self.detail.extra {
            if !k.starts_with('_') {
                body.insert(k.clone(), v.clone());
            }
        }
        if let Some(id) = request_id {
            body.insert("request_id".into(), id.into());
        }
        Value::Object(body)
    }

    /// The `/v1` partner error body.
    pub fn v1_envelope(&self) -> Value {
        let mut err = Map::new();
        err.insert("code".into(), self.kind.v1_code().into());
        err.insert("message".into(), self.detail.message.clone().into());
        if !self.detail.required_scopes.is_empty() {
            err.insert(
                "required_scopes".into(),
                self.detail.required_scopes.clone().into(),
            );
        }
        // the days the data holds, when the period asked for lies outside them
        for (field, name) in [("dataFrom", "data_from"), ("dataThrough", "data_through")] {
            if let Some(v) = self.detail.extra.get(field) {
                err.insert(name.into(), v.clone());
            }
        }
        serde_json::json!({ "error": Value::Object(err) })
    }
}

/// Result with the one error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for k in Kind::ALL {
            assert!(seen.insert(k.code()), "duplicate kind {}", k.code());
        }
    }

    #[test]
    fn the_source_chain_is_kept_for_the_log() {
        let io = std::io::Error::other("disk full");
        let e = Error::internal_from(io);
        assert!(std::error::Error::source(&e).is_some());
        assert!(e.chain().contains("disk full"), "{}", e.chain());
        assert!(!e.api_envelope(None).to_string().contains("disk full"));
    }

    #[test]
    fn a_cause_with_context_keeps_both_in_the_chain() {
        let io = std::io::Error::other("disk full");
        let e = Error::internal_with("writing the checkpoint", io);
        assert_eq!(e.chain(), "writing the checkpoint: disk full");
        assert!(std::error::Error::source(&e).is_some());
        assert!(!e.api_envelope(None).to_string().contains("disk full"));
    }

    #[test]
    fn internal_cause_never_rendered() {
        let e = Error::internal("disk on fire at /secret/path");
        let body = e.api_envelope(None).to_string();
        assert!(!body.contains("secret"));
        assert_eq!(e.cause(), Some("disk on fire at /secret/path"));
    }

    #[test]
    fn scope_error_names_scopes() {
        let e = Error::insufficient_scope(&["sql:query", "ads:read"], &["sql:query"]);
        let body = e.api_envelope(Some("r1"));
        assert_eq!(body["kind"], "insufficient_scope");
        assert_eq!(body["required_scopes"][0], "sql:query");
        assert_eq!(e.v1_envelope()["error"]["code"], "insufficient_scope");
    }

    /// `docs/errors.md` lists exactly the kinds served, with the code's status, source,
    /// retryability and `/v1` code.
    #[test]
    fn errors_doc_matches_the_code() {
        let doc = include_str!("../../../docs/errors.md");
        let served = doc
            .split("## Kinds the service serves\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("section present");
        let rows: Vec<Vec<String>> = served
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                l.split('|')
                    .map(|c| c.trim().trim_matches('`').to_owned())
                    .collect()
            })
            .collect();
        assert_eq!(rows.len(), Kind::ALL.len(), "one row per kind");
        for k in Kind::ALL {
            let row = rows
                .iter()
                .find(|r| r[1] == k.code())
                .unwrap_or_else(|| panic!("{} missing from docs/errors.md", k.code()));
            let source = serde_json::to_value(k.source()).unwrap();
            assert_eq!(row[2], k.status().to_string(), "{}", k.code());
            assert_eq!(row[3], source.as_str().unwrap(), "{}", k.code());
            assert_eq!(row[4], k.retryable().to_string(), "{}", k.code());
            assert_eq!(row[5], k.v1_code(), "{}", k.code());
        }
    }
}

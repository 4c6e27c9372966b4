//! Webhook endpoints, as a tenant admin manages them (REST and MCP with `webhooks:write`, the
//! console's Webhooks page, `partner-platform webhooks …`): register (the URL checked by the
//! guard, the signing secret made here, sealed bound to the endpoint, and shown only in this
//! answer), list, rotate (a new secret shown once; the old one keeps signing for the grace
//! period), enable or disable, remove, read the delivery log, replay a delivery.

use pp_core::events;
use pp_core::{Error, Kind, Result, ScopeSet, TenantId};
use pp_store::webhooks::{DeliveryRow, EndpointRow, NewEndpoint};
use serde::{Deserialize, Serialize};

use crate::{Events, signing};

/// The most endpoints one tenant may register.
pub const MAX_ENDPOINTS: i64 = 100;
/// The longest URL and description accepted, and the most type patterns.
pub const MAX_URL: usize = 2048;
pub const MAX_DESCRIPTION: usize = 200;
pub const MAX_TYPES: usize = 50;
/// Replays one endpoint takes in a minute (more answer `429 throttled`).
pub const REPLAYS_PER_MINUTE: i64 = 10;

/// An endpoint to register.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RegisterRequest {
    /// Where deliveries are POSTed (http or https).
    pub url: String,
    /// Type patterns it wants: types, families (`monitor.*`) or `*`.
    pub types: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// An endpoint as shown (never its secret).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointOut {
    pub id: String,
    pub url: String,
    pub description: String,
    pub types: Vec<String>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    /// Since when every attempt has failed, if they have.
    pub failing_since: Option<String>,
    /// Until when the previous secret still signs, after a rotation.
    pub previous_secret_until: Option<String>,
    pub created_by: String,
    pub created_at: String,
}

impl From<&EndpointRow> for EndpointOut {
    fn from(e: &EndpointRow) -> Self {
        let now = pp_store::jobs::now_ms();
        Self {
            id: e.id.clone(),
            url: e.url.clone(),
            description: e.description.clone(),
            types: e.types.clone(),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason.clone(),
            failing_since: e.failing_since_ms.map(pp_store::rfc3339_ms),
            previous_secret_until: e
                .previous_until_ms
                .filter(|until| *until > now)
                .map(pp_store::rfc3339_ms),
            created_by: e.created_by.clone(),
            created_at: pp_store::rfc3339_ms(e.created_ms),
        }
    }
}

/// A registration or rotation: the endpoint and its new secret, shown this once.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WithSecret {
    pub endpoint: EndpointOut,
    /// `whsec_…`: verify deliveries with it (any Standard Webhooks library). Not shown again.
    pub secret: String,
}

/// The tenant's endpoints.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointList {
    pub endpoints: Vec<EndpointOut>,
}

/// One attempt, as the log shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptOut {
    pub at: String,
    pub status: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

/// One delivery, as the log shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryOut {
    pub id: String,
    pub event_id: String,
    pub event_type: Option<String>,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub replay_of: Option<String>,
    pub created_at: String,
    pub delivered_at: Option<String>,
    pub attempts: Vec<AttemptOut>,
}

/// An endpoint's delivery log, newest first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryLog {
    pub endpoint: EndpointOut,
    pub deliveries: Vec<DeliveryOut>,
    /// Pass as `before` for older deliveries (when the page was full).
    pub before: Option<String>,
}

/// What the log reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogRequest {
    /// Deliveries made before this time (RFC 3339; the last page's `before`).
    pub before: Option<String>,
    /// 1–100, default 20.
    pub limit: Option<i64>,
}

/// A removal.
#[derive(Debug, Clone, Serialize)]
pub struct Removed {
    pub id: String,
    pub removed: bool,
}

/// The webhook administration of one tenant, as one actor.
pub struct EndpointAdmin<'a> {
    events: &'a Events,
    tenant: TenantId,
    actor: String,
    /// A token's scopes and credential: it registers only the types those scopes read.
    /// `None` for a console admin or the operator, who may register any type.
    token: Option<(ScopeSet, String)>,
}

fn not_found(what: &str, id: &str) -> Error {
    Error::new(
        Kind::NotFound,
        format!("no webhook {what} '{id}' in this account"),
    )
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, message)
}

impl<'a> EndpointAdmin<'a> {
    pub(crate) fn new(events: &'a Events, tenant: TenantId, actor: &str) -> Self {
        Self {
            events,
            tenant,
            actor: actor.to_owned(),
            token: None,
        }
    }

    /// As a token holding `scopes`, minted from `credential` (a credential or a grant).
    pub(crate) fn registering_as(mut self, scopes: ScopeSet, credential: &str) -> Self {
        self.token = Some((scopes, credential.to_owned()));
        self
    }

    fn context(&self, id: &str) -> String {
        sealing_context(self.tenant.as_str(), id)
    }

    /// Registers an endpoint; its secret is in this answer only.
    pub async fn register(&self, req: RegisterRequest) -> Result<WithSecret> {
        let sealer = self.events.sealer()?;
        if req.url.len() > MAX_URL {
            return Err(bad(format!("url is longer than {MAX_URL} characters")));
        }
        let description = req.description.unwrap_or_default();
        if description.chars().count() > MAX_DESCRIPTION {
            return Err(bad(format!(
                "description is longer than {MAX_DESCRIPTION} characters"
            )));
        }
        check_types(&req.types)?;
        if let Some((scopes, _)) = &self.token {
            check_readable(&req.types, scopes)?;
        }
        let url = self.events.guard.check(&req.url).await?;
        let id = pp_store::random_id("we_", 12)?;
        let secret = signing::new_secret()?;
        let row = self
            .events
            .store
            .webhooks()
            .create(
                &self.tenant,
                NewEndpoint {
                    secret: sealer.seal(&self.context(&id), &secret)?,
                    id,
                    url: url.to_string(),
                    description,
                    types: req.types,
                    created_by: self.actor.clone(),
                    credential_id: self.token.as_ref().map(|(_, c)| c.clone()),
                },
                MAX_ENDPOINTS,
            )
            .await?
            .ok_or_else(|| {
                bad(format!(
                    "this account already has {MAX_ENDPOINTS} webhook endpoints"
                ))
                .with_fix("Remove one you no longer use, or give one endpoint several types.")
            })?;
        Ok(WithSecret {
            endpoint: EndpointOut::from(&row),
            secret,
        })
    }

    /// The tenant's endpoints.
    pub async fn list(&self) -> Result<EndpointList> {
        let rows = self.events.store.webhooks().list(&self.tenant).await?;
        Ok(EndpointList {
            endpoints: rows.iter().map(EndpointOut::from).collect(),
        })
    }

    async fn row(&self, id: &str) -> Result<EndpointRow> {
        self.events
            .store
            .webhooks()
            .get(&self.tenant, id)
            .await?
            .ok_or_else(|| not_found("endpoint", id))
    }

    /// One endpoint.
    pub async fn get(&self, id: &str) -> Result<EndpointOut> {
        Ok(EndpointOut::from(&self.row(id).await?))
    }

    /// A new secret, shown once; the old one keeps signing for the grace period.
    pub async fn rotate(&self, id: &str) -> Result<WithSecret> {
        let sealer = self.events.sealer()?;
        self.row(id).await?;
        let secret = signing::new_secret()?;
        let grace = self.events.settings.rotation_grace.as_millis() as i64;
        let hooks = self.events.store.webhooks();
        let sealed = sealer.seal(&self.context(id), &secret)?;
        if !hooks
            .rotate(&self.tenant, id, sealed, pp_store::jobs::now_ms() + grace)
            .await?
        {
            return Err(not_found("endpoint", id));
        }
        Ok(WithSecret {
            endpoint: self.get(id).await?,
            secret,
        })
    }

    /// Enables (its failure record cleared) or disables the endpoint.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> Result<EndpointOut> {
        let reason = (!enabled).then(|| format!("disabled by {}", self.actor));
        if !self
            .events
            .store
            .webhooks()
            .set_enabled(&self.tenant, id, enabled, reason.as_deref())
            .await?
        {
            return Err(not_found("endpoint", id));
        }
        self.get(id).await
    }

    /// Removes the endpoint (its pending deliveries end as failed).
    pub async fn remove(&self, id: &str) -> Result<Removed> {
        if !self
            .events
            .store
            .webhooks()
            .delete(&self.tenant, id)
            .await?
        {
            return Err(not_found("endpoint", id));
        }
        Ok(Removed {
            id: id.to_owned(),
            removed: true,
        })
    }

    /// The endpoint's deliveries, newest first, each with its attempts.
    pub async fn log(&self, id: &str, req: LogRequest) -> Result<DeliveryLog> {
        let endpoint = self.get(id).await?;
        let limit = req.limit.unwrap_or(20);
        if !(1..=100).contains(&limit) {
            return Err(bad("limit must be 1 to 100"));
        }
        let before = req
            .before
            .as_deref()
            .map(|t| {
                chrono::DateTime::parse_from_rfc3339(t)
                    .map(|t| t.timestamp_millis())
                    .map_err(|_| bad("before must be an RFC 3339 time"))
            })
            .transpose()?;
        let rows = self
            .events
            .store
            .webhooks()
            .deliveries(&self.tenant, id, before, limit)
            .await?;
        let mut deliveries = Vec::new();
        for d in &rows {
            deliveries.push(self.delivery_out(d).await?);
        }
        Ok(DeliveryLog {
            endpoint,
            before: (rows.len() as i64 == limit)
                .then(|| rows.last().map(|d| pp_store::rfc3339_ms(d.created_ms)))
                .flatten(),
            deliveries,
        })
    }

    async fn delivery_out(&self, d: &DeliveryRow) -> Result<DeliveryOut> {
        let store = &self.events.store;
        let event = store.events().get(&self.tenant, &d.event_id).await?;
        let attempts = store.webhooks().attempts(&d.id).await?;
        Ok(DeliveryOut {
            id: d.id.clone(),
            event_id: d.event_id.clone(),
            event_type: event.map(|e| e.kind),
            status: d.status.as_str().to_owned(),
            replay_of: d.replay_of.clone(),
            created_at: pp_store::rfc3339_ms(d.created_ms),
            delivered_at: d.delivered_ms.map(pp_store::rfc3339_ms),
            attempts: attempts
                .into_iter()
                .map(|a| AttemptOut {
                    at: pp_store::rfc3339_ms(a.at_ms),
                    status: a.status,
                    error: a.error,
                    duration_ms: a.duration_ms,
                })
                .collect(),
        })
    }

    /// Sends a delivery's event to its endpoint again, as a new delivery (the same
    /// `webhook-id`, so a receiver that kept it drops the repeat). A delivery whose replay is
    /// still waiting answers that replay; an endpoint takes at most [`REPLAYS_PER_MINUTE`].
    pub async fn replay(&self, delivery: &str) -> Result<DeliveryOut> {
        let replay = self
            .events
            .store
            .webhooks()
            .replay(&self.tenant, delivery, REPLAYS_PER_MINUTE)
            .await?
            .ok_or_else(|| not_found("delivery", delivery))?;
        self.delivery_out(replay.row()).await
    }
}

/// What an endpoint's secret is sealed bound to: its tenant and id, so a sealed secret cannot be
/// moved to another endpoint.
pub(crate) fn sealing_context(tenant: &str, endpoint: &str) -> String {
    format!("webhook/{tenant}/{endpoint}")
}

/// Type patterns must be known and few.
fn check_types(types: &[String]) -> Result<()> {
    if types.is_empty() {
        return Err(bad("types must name at least one event type (or *)"));
    }
    if types.len() > MAX_TYPES {
        return Err(bad(format!("at most {MAX_TYPES} type patterns")));
    }
    if let Some(t) = types.iter().find(|t| !events::known_pattern(t)) {
        return Err(bad(format!("no event type matches '{t}'")).with_fix(
            "Name a type, a family with .* (monitor.*) or *; docs/events.md lists them.",
        ));
    }
    Ok(())
}

/// A token registers only what it could read in the feed: every type its patterns name must
/// be one its scopes see; the others are named in the refusal.
fn check_readable(patterns: &[String], scopes: &ScopeSet) -> Result<()> {
    let unreadable: Vec<&events::EventType> = events::TYPES
        .iter()
        .filter(|t| patterns.iter().any(|p| events::matches(p, t.name)))
        .filter(|t| !scopes.contains(t.scope))
        .collect();
    if unreadable.is_empty() {
        return Ok(());
    }
    let mut needs: Vec<&str> = unreadable.iter().map(|t| t.scope.as_str()).collect();
    needs.sort_unstable();
    needs.dedup();
    let names: Vec<&str> = unreadable.iter().map(|t| t.name).collect();
    Err(bad(format!(
        "this credential cannot read {}, so it cannot have them delivered",
        names.join(", ")
    ))
    .with_fix(format!(
        "Name only types this credential's scopes read, or use a credential that also holds {} (or register it in the console as an admin).",
        needs.join(", ")
    )))
}

//! Connecting accounts the way sellers and advertisers do: a tenant admin starts a connect for a
//! region, the service sends them to the provider's consent page with a one-time `state`
//! bound to the tenant and the person, and the callback (that person again, within ten
//! minutes, once) exchanges the code at LWA, reads what the grant reaches — the selling-side
//! marketplace participations, or the advertising profiles — seals the refresh token and
//! records the connection. Disconnecting erases the sealed token; calls answer
//! `reauth_required` at once. The refresh token never leaves this module but sealed.

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::now_unix;
use pp_warehouse::directory;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Api, Marketplace};
use crate::catalog;
use crate::connections::{self, Connection, Grant, GrantKind};
use crate::upstream::Token;

/// How long a started connect may take at the provider.
pub const CONNECT_STATE_SECS: i64 = 600;
/// The scope an advertising login is asked for.
pub const ADS_SCOPE: &str = "advertising::campaign_management";

/// The person connecting: their tenant, id and email (what the connection records).
#[derive(Debug, Clone, Copy)]
pub struct Connector<'a> {
    pub tenant: &'a TenantId,
    pub person_id: &'a str,
    pub email: &'a str,
}

/// What the provider's consent page sent back to the callback, as it came.
#[derive(Debug, Clone, Default)]
pub struct Callback {
    pub state: Option<String>,
    /// `spapi_oauth_code` (selling side) or `code` (advertising).
    pub code: Option<String>,
    /// The selling side's `selling_partner_id`.
    pub selling_partner_id: Option<String>,
    /// `error` when the person declined (or the provider failed).
    pub error: Option<String>,
}

/// What a callback connected.
#[derive(Debug, Clone, Serialize)]
pub struct Connected {
    pub kind: GrantKind,
    pub connections: Vec<Connection>,
}

/// The API a grant of `kind` signs for.
fn api_of(kind: GrantKind) -> Api {
    match kind {
        GrantKind::Seller => Api::Spapi,
        GrantKind::Ads => Api::Ads,
    }
}

fn state_hash(state: &str) -> Vec<u8> {
    Sha256::digest(state.as_bytes()).to_vec()
}

fn refused(why: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, why)
        .with_fix("Start connecting the account again from Connections.")
}

/// `base` with `params` as its query.
fn url_with(base: &str, params: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}{}", q.finish())
}

/// Connecting and disconnecting the tenant's accounts (`Marketplace::connections`), for the
/// console's Accounts page and the admin command line (a person whose role was checked there).
pub struct Connections<'a>(pub(super) &'a Marketplace);

impl Connections<'_> {
    /// Every connection of `tenant`, without tokens.
    pub async fn list(&self, tenant: &TenantId) -> Result<Vec<Connection>> {
        connections::list(&self.0.store, tenant).await
    }

    /// Starts connecting a `kind` account in `region`: the consent page's URL to send the
    /// person to, carrying a new one-time `state`. `redirect_uri` is the callback registered
    /// at the provider.
    pub async fn start(
        &self,
        who: Connector<'_>,
        kind: GrantKind,
        region: &str,
        redirect_uri: &str,
    ) -> Result<String> {
        let api = api_of(kind);
        let upstream = &self.0.provider(api)?.client.upstream;
        let consent = &upstream.consent;
        let state = hex::encode(pp_store::random_bytes::<32>()?);
        let url = match kind {
            GrantKind::Seller => {
                let app = consent.application_id.as_deref().ok_or_else(|| {
                    Error::new(
                        Kind::SpapiNotConfigured,
                        "no selling-partner application id is configured, so seller accounts cannot be connected here",
                    )
                    .with_fix("Set sp_application_id (docs/connecting-accounts.md).")
                })?;
                let mut params = vec![
                    ("application_id", app),
                    ("state", state.as_str()),
                    ("redirect_uri", redirect_uri),
                ];
                if consent.draft {
                    params.push(("version", "beta"));
                }
                url_with(consent.seller_urls.of(region)?, &params)
            }
            GrantKind::Ads => url_with(
                consent.ads_urls.of(region)?,
                &[
                    ("client_id", upstream.client_id.as_str()),
                    ("scope", ADS_SCOPE),
                    ("response_type", "code"),
                    ("redirect_uri", redirect_uri),
                    ("state", state.as_str()),
                ],
            ),
        };
        self.0
            .store
            .connect_states()
            .insert(
                &state_hash(&state),
                who.tenant,
                who.person_id,
                kind.as_str(),
                region,
                now_unix() + CONNECT_STATE_SECS,
            )
            .await?;
        Ok(url)
    }

    /// Finishes a connect at its callback: the `state` must be one this person started, unused
    /// and under ten minutes old (it is spent either way), and the code one LWA exchanges.
    /// Nothing is connected otherwise.
    pub async fn finish(
        &self,
        who: Connector<'_>,
        back: &Callback,
        redirect_uri: &str,
    ) -> Result<Connected> {
        let state = back
            .state
            .as_deref()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| refused("the provider sent the browser back without a state"))?;
        let started = self
            .0
            .store
            .connect_states()
            .take(&state_hash(state))
            .await?
            .ok_or_else(|| {
                refused("this connect link was already used, or was not started here")
            })?;
        if started.tenant_id != who.tenant.as_str() || started.person_id != who.person_id {
            return Err(refused(
                "this connect was started by another person: it is spent, and nothing was connected",
            ));
        }
        if started.expires_at <= now_unix() {
            return Err(refused(format!(
                "this connect took longer than {} minutes at the provider",
                CONNECT_STATE_SECS / 60
            )));
        }
        if let Some(e) = &back.error {
            return Err(refused(format!(
                "the provider did not authorize the application ({e}): nothing was connected"
            )));
        }
        let code = back
            .code
            .as_deref()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| refused("the provider sent the browser back without a code"))?;
        let kind = GrantKind::parse(&started.kind)?;
        let region = started.region.as_str();
        let api = api_of(kind);
        let provider = self.0.provider(api)?;
        let client = provider.client;
        let (refresh, access) = client
            .exchange_code(kind, region, code, redirect_uri)
            .await?;
        let reached = match kind {
            GrantKind::Seller => {
                let merchant = back
                    .selling_partner_id
                    .as_deref()
                    .filter(|m| !m.is_empty())
                    .ok_or_else(|| refused("the provider sent no selling_partner_id"))?;
                vec![(
                    merchant.to_owned(),
                    self.participations(who.tenant, &access).await?,
                )]
            }
            GrantKind::Ads => self.profiles_by_merchant(who.tenant, &access).await?,
        };
        let reached = self.tenants_own(who.tenant, reached).await?;
        let mut made = Vec::new();
        for (merchant, reach) in &reached {
            let grant = Grant {
                kind: kind.as_str(),
                merchant,
                region,
                refresh_token: &refresh,
                status: "active",
                connected_by: who.email,
                reach,
            };
            connections::connect(&self.0.store, provider.sealer, who.tenant, &grant).await?;
            client.forget(who.tenant, kind, merchant);
            tracing::info!(
                tenant = who.tenant.as_str(),
                kind = kind.as_str(),
                merchant = merchant.as_str(),
                region,
                by = who.email,
                "account connected at the provider's consent page"
            );
            if let Some(c) = connections::get(&self.0.store, who.tenant, kind, merchant).await? {
                made.push(c);
            }
        }
        Ok(Connected {
            kind,
            connections: made,
        })
    }

    /// Disconnects a connection of `tenant`: its sealed token is erased at once, and calls for
    /// the merchant answer `reauth_required` until someone connects it again.
    pub async fn disconnect(
        &self,
        tenant: &TenantId,
        kind: GrantKind,
        merchant: &str,
        by: &str,
    ) -> Result<()> {
        if connections::disconnect(&self.0.store, tenant, kind, merchant, by).await? {
            if let Some(live) = &self.0.live {
                live.client.forget(tenant, kind, merchant);
            }
            tracing::info!(
                tenant = tenant.as_str(),
                kind = kind.as_str(),
                merchant,
                by,
                "account disconnected"
            );
            Ok(())
        } else {
            Err(Error::not_found(format!(
                "merchant {merchant} has no {} connection",
                kind.as_str()
            )))
        }
    }

    /// The marketplace ids a selling-side login participates in.
    async fn participations(&self, tenant: &TenantId, access: &Token) -> Result<Vec<String>> {
        let op = catalog::find(catalog::spapi(), "sellers.get_marketplace_participations")
            .ok_or_else(|| Error::internal("the catalog lost the participations operation"))?;
        let body = self
            .0
            .provider(Api::Spapi)?
            .client
            .read_with(tenant, GrantKind::Seller, op, access)
            .await?;
        let mut ids: Vec<String> = body["payload"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["marketplace"]["id"].as_str().map(str::to_owned))
            .collect();
        ids.dedup();
        Ok(ids)
    }

    /// The advertising profiles a login reaches, by the merchant (account id) owning them.
    async fn profiles_by_merchant(
        &self,
        tenant: &TenantId,
        access: &Token,
    ) -> Result<Vec<(String, Vec<String>)>> {
        let op = catalog::find(catalog::ads(), "profiles.list")
            .ok_or_else(|| Error::internal("the catalog lost the profiles operation"))?;
        let body = self
            .0
            .provider(Api::Ads)?
            .client
            .read_with(tenant, GrantKind::Ads, op, access)
            .await?;
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for p in body.as_array().into_iter().flatten() {
            let (Some(owner), Some(profile)) =
                (p["accountInfo"]["id"].as_str(), p["profileId"].as_i64())
            else {
                continue;
            };
            match out.iter_mut().find(|(m, _)| m == owner) {
                Some((_, ids)) => ids.push(profile.to_string()),
                None => out.push((owner.to_owned(), vec![profile.to_string()])),
            }
        }
        Ok(out)
    }

    /// Keeps the merchants of `reached` that the tenant's warehouse has seller rows for (a
    /// connection to any other could never be selected by a call); none is a failure that
    /// names what the login reaches.
    async fn tenants_own(
        &self,
        tenant: &TenantId,
        reached: Vec<(String, Vec<String>)>,
    ) -> Result<Vec<(String, Vec<String>)>> {
        // a managed warehouse takes in whatever the login reaches (the sync adds its rows)
        if self.0.store.sync().loader(tenant).await?.is_some() {
            return Ok(reached);
        }
        let engine = self.0.warehouses.of_tenant(tenant).await?;
        let sellers = directory::sellers(engine.as_ref(), &self.0.warehouses.limits).await?;
        let names: Vec<String> = reached.iter().map(|(m, _)| m.clone()).collect();
        let own: Vec<_> = reached
            .into_iter()
            .filter(|(m, _)| sellers.iter().any(|s| &s.token == m))
            .collect();
        if own.is_empty() {
            return Err(Error::new(
                Kind::MerchantNotFound,
                format!(
                    "the login reaches {}, which this tenant's warehouse has no seller rows for: nothing was connected",
                    if names.is_empty() {
                        "no account".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        Ok(own)
    }
}

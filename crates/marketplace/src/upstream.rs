//! The upstream client: LWA token exchange and caching per merchant grant (refreshed before
//! expiry, and only for the grant the connection holds now; `invalid_grant` marks the
//! connection lapsed and answers `reauth_required`), code exchange for connecting, the
//! provider's headers and media types, pacing, timeouts, and retries — only for reads, on 429
//! (honouring `Retry-After`) and 5xx or broken connections, never for anything that creates.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::Store;
use pp_store::pacing::Turn;
use serde_json::Value;

use crate::Sealer;
use crate::catalog::Operation;
use crate::connections::{self, ConnectionStatus, GrantKind};
use crate::triage::{self, Answer, Failure, failure, stale_token, triage};

/// Where the provider's APIs are. The URLs may name the connection's region: `{region}`
/// becomes `na`, `eu` or `fe`, and `{region_suffix}` becomes nothing, `-eu` or `-fe` (the
/// advertising hosts' spelling), so one configuration serves merchants of every region.
#[derive(Clone)]
pub struct Upstream {
    /// `sandbox` or `provider`.
    pub kind: String,
    /// LWA's token endpoint for selling-side grants (one for every region).
    pub token_url: String,
    pub spapi_url: String,
    pub ads_url: String,
    pub client_id: String,
    pub client_secret: String,
    /// LWA's token endpoints for advertising grants, by region.
    pub ads_token_urls: Regional,
    /// The consent pages a person connects an account at.
    pub consent: Consent,
}

/// A URL per region of the provider.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regional {
    pub na: String,
    pub eu: String,
    pub fe: String,
}

impl Regional {
    /// One URL for every region (the sandbox serves them all).
    pub fn same(url: &str) -> Self {
        Self {
            na: url.to_owned(),
            eu: url.to_owned(),
            fe: url.to_owned(),
        }
    }

    /// The URL of `region` (`na`, `eu` or `fe`).
    pub fn of(&self, region: &str) -> Result<&str> {
        match region {
            "na" => Ok(&self.na),
            "eu" => Ok(&self.eu),
            "fe" => Ok(&self.fe),
            _ => Err(Error::new(Kind::BadParams, "region must be na, eu or fe")),
        }
    }

    /// LWA's token endpoints for advertising grants.
    pub fn provider_ads_token_urls() -> Self {
        Self {
            na: "https://api.amazon.com/auth/o2/token".into(),
            eu: "https://api.amazon.co.uk/auth/o2/token".into(),
            fe: "https://api.amazon.co.jp/auth/o2/token".into(),
        }
    }

    /// The selling-side website authorization (consent) pages.
    pub fn provider_seller_consent_urls() -> Self {
        Self {
            na: "https://sellercentral.amazon.com/apps/authorize/consent".into(),
            eu: "https://sellercentral-europe.amazon.com/apps/authorize/consent".into(),
            fe: "https://sellercentral.amazon.co.jp/apps/authorize/consent".into(),
        }
    }

    /// Login with Amazon's authorization pages for advertising.
    pub fn provider_ads_authorize_urls() -> Self {
        Self {
            na: "https://www.amazon.com/ap/oa".into(),
            eu: "https://eu.account.amazon.com/ap/oa".into(),
            fe: "https://apac.account.amazon.com/ap/oa".into(),
        }
    }
}

/// What connecting an account at the provider's consent pages needs.
#[derive(Clone, Debug)]
pub struct Consent {
    /// The selling-partner application id (`amzn1.sp.solution.…`); without one, only
    /// advertising logins can be connected from the console.
    pub application_id: Option<String>,
    /// Whether the application is still a draft (the seller page then needs `version=beta`).
    pub draft: bool,
    pub seller_urls: Regional,
    pub ads_urls: Regional,
}

impl Default for Consent {
    fn default() -> Self {
        Self {
            application_id: None,
            draft: false,
            seller_urls: Regional::provider_seller_consent_urls(),
            ads_urls: Regional::provider_ads_authorize_urls(),
        }
    }
}

impl Upstream {
    /// The production hosts, by region.
    pub const PROVIDER_SPAPI_URL: &str = "https://sellingpartnerapi-{region}.amazon.com";
    pub const PROVIDER_ADS_URL: &str = "https://advertising-api{region_suffix}.amazon.com";

    /// The base URL of `api` (`spapi` or `ads`) for a connection in `region`.
    pub fn base(&self, api: &str, region: &str) -> String {
        let url = if api == "ads" {
            &self.ads_url
        } else {
            &self.spapi_url
        };
        let suffix = if region == "na" {
            String::new()
        } else {
            format!("-{region}")
        };
        url.replace("{region}", region)
            .replace("{region_suffix}", &suffix)
    }
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("kind", &self.kind)
            .field("spapi_url", &self.spapi_url)
            .field("ads_url", &self.ads_url)
            .field("ads_token_urls", &self.ads_token_urls)
            .field("consent", &self.consent)
            .finish_non_exhaustive()
    }
}

/// Timeouts and retry bounds.
#[derive(Debug, Clone)]
pub struct Policy {
    /// One attempt's limit; also a create's whole deadline (a create is sent once).
    pub timeout: Duration,
    /// A read's whole deadline, which its attempts, retries and waits share.
    pub read_deadline: Duration,
    /// Extra attempts a read may make.
    pub read_retries: u32,
    /// Longest `Retry-After` (or pacing wait) the client sits out before answering `throttled`.
    pub max_wait: Duration,
    /// Whether calls are paced to the catalog's usage plans.
    pub pacing: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(20),
            read_deadline: Duration::from_secs(30),
            read_retries: 2,
            max_wait: Duration::from_secs(5),
            pacing: true,
        }
    }
}

/// One call to make.
#[derive(Debug)]
pub struct Request<'a> {
    pub op: &'a Operation,
    pub tenant: &'a TenantId,
    /// Which grant signs it.
    pub grant: GrantKind,
    pub merchant: &'a str,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
    /// The media type sent as `Accept` (and `Content-Type` with a body) on the advertising
    /// API: the operation's, or the one its id names.
    pub media_type: Option<String>,
    /// Background work (a warehouse sync) and its turn: it takes only a pacing token that is
    /// there now, so live calls never queue behind it for more than one refill interval, and
    /// while tokens are scarce earlier turns take them first (`None`: a live call).
    pub background: Option<Turn>,
}

/// A 2xx answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    /// The provider's stated rate for this operation (`x-amzn-RateLimit-Limit`, requests per
    /// second), when it stated one.
    pub rate_limit: Option<f64>,
}

/// Everything a call needs to reach the provider: the client, the store holding connections,
/// pacing and ledgers, and the key that opens refresh tokens.
pub struct Provider<'a> {
    pub client: &'a Client,
    pub store: &'a Store,
    pub sealer: &'a Sealer,
}

/// The client.
pub struct Client {
    http: reqwest::Client,
    pub upstream: Upstream,
    pub policy: Policy,
    /// Access tokens by grant: the token, the grant it was minted from (its sealed refresh
    /// token, new at every connect), and when to refresh.
    tokens: Mutex<HashMap<String, Cached>>,
    /// When each grant's last successful call was last recorded (at most once a minute).
    touched: Mutex<HashMap<String, Instant>>,
    /// Tenants' connections, remembered under the auth epoch (none: read on every call).
    memory: Option<connections::Memory>,
    /// Until when the upstream is known to say no day of its own (it is not a sandbox).
    no_world_until: Mutex<Option<Instant>>,
}

/// How long an upstream that says no day of its own is taken at the UTC clock before it is
/// asked again.
const ASK_WORLD_EVERY: Duration = Duration::from_secs(3600);

struct Cached {
    token: Token,
    grant_of: Vec<u8>,
    until: Instant,
}

/// How often a connection's last successful call is written down.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// A usable access token and the region of the connection it signs for.
#[derive(Debug, Clone)]
pub struct Token {
    pub value: String,
    pub region: String,
}

fn classify(e: &reqwest::Error) -> Failure {
    if e.is_timeout() {
        Failure::Timeout
    } else if e.is_connect() {
        Failure::Unreachable
    } else {
        Failure::Reset
    }
}

impl Client {
    pub fn new(upstream: Upstream, policy: Policy) -> Result<Self> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(policy.timeout)
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(Error::internal_from)?;
        Ok(Self {
            http,
            upstream,
            policy,
            tokens: Mutex::new(HashMap::new()),
            touched: Mutex::new(HashMap::new()),
            memory: None,
            no_world_until: Mutex::new(None),
        })
    }

    /// Remembers tenants' connections while `epoch` (the auth epoch) stands still.
    pub fn remember(&mut self, epoch: pp_core::Epoch) {
        self.memory = Some(connections::Memory::new(epoch));
    }

    /// The memory of connections, if this client keeps one.
    pub fn memory(&self) -> Option<&connections::Memory> {
        self.memory.as_ref()
    }

    fn key(tenant: &TenantId, grant: GrantKind, merchant: &str) -> String {
        format!("{}/{}/{merchant}", tenant.as_str(), grant.as_str())
    }

    /// Forgets a cached access token (the provider refused it, or the connection changed)
    /// and the tenant's remembered connections.
    pub fn forget(&self, tenant: &TenantId, grant: GrantKind, merchant: &str) {
        self.tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&Self::key(tenant, grant, merchant));
        if let Some(m) = &self.memory {
            m.forget(tenant);
        }
    }

    /// An access token for the grant, from the cache or through LWA. The connection is read
    /// for every call (from memory while the auth epoch stands still), so a disconnect or a
    /// reconnect on any instance shows by the next call: a cached token serves only the grant
    /// it was minted from.
    pub async fn access_token(
        &self,
        store: &Store,
        sealer: &Sealer,
        tenant: &TenantId,
        grant: GrantKind,
        merchant: &str,
    ) -> Result<Token> {
        let key = Self::key(tenant, grant, merchant);
        let found = connections::for_call(store, self.memory.as_ref(), tenant, grant, merchant)
            .await?
            .ok_or_else(|| {
                Error::new(
                    Kind::MerchantNotFound,
                    format!("merchant {merchant} has no {} connection", grant.as_str()),
                )
            })?;
        let conn = &found.connection;
        if conn.status == ConnectionStatus::Lapsed {
            self.forget(tenant, grant, merchant);
            return Err(lapsed(conn));
        }
        if let Some(c) = self
            .tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            && c.grant_of == found.grant_id()
            && Instant::now() < c.until
        {
            return Ok(c.token.clone());
        }
        let refresh = found.refresh_token(sealer, tenant)?;
        let token_url = self.token_url(grant, &conn.region)?;
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("client_id", self.upstream.client_id.as_str()),
            ("client_secret", self.upstream.client_secret.as_str()),
        ];
        let (status, body) = self.lwa(token_url, &form).await?;
        match status {
            200 => {
                let value = body["access_token"]
                    .as_str()
                    .ok_or_else(|| {
                        Error::new(
                            Kind::UpstreamUnavailable,
                            "the login service answered without an access token",
                        )
                    })?
                    .to_owned();
                let token = Token {
                    value,
                    region: conn.region.clone(),
                };
                let ttl = body["expires_in"].as_u64().unwrap_or(3600);
                // refresh a minute early (or at half-life for short tokens)
                let life = Duration::from_secs(ttl.saturating_sub(60).max(ttl / 2));
                self.tokens
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(
                        key,
                        Cached {
                            token: token.clone(),
                            grant_of: found.grant_id().to_vec(),
                            until: Instant::now() + life,
                        },
                    );
                Ok(token)
            }
            400 if body["error"] == "invalid_grant" => {
                connections::set_status(store, tenant, grant, merchant, ConnectionStatus::Lapsed)
                    .await?;
                self.forget(tenant, grant, merchant);
                Err(lapsed(conn))
            }
            400..=499 => Err(Error::internal(format!(
                "the LWA app was refused: {}",
                body["error"]
            ))),
            _ => Err(Error::new(
                Kind::UpstreamUnavailable,
                "the marketplace's login service failed",
            )),
        }
    }

    /// LWA's token endpoint for a grant of `kind` in `region`.
    fn token_url(&self, kind: GrantKind, region: &str) -> Result<&str> {
        match kind {
            GrantKind::Seller => Ok(&self.upstream.token_url),
            GrantKind::Ads => self.upstream.ads_token_urls.of(region),
        }
    }

    /// The provider's today: the day the upstream's world is at when the upstream says one
    /// (a sandbox, whichever mode the gateway runs in: `GET /__sandbox/world`, which needs no
    /// credentials), else the UTC day (the real provider; asked again after an hour).
    pub async fn provider_today(&self) -> Result<chrono::NaiveDate> {
        let utc = chrono::Utc::now().date_naive();
        let known = *self
            .no_world_until
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if known.is_some_and(|until| Instant::now() < until) {
            return Ok(utc);
        }
        match self.world_day().await? {
            Some(day) => Ok(day),
            None => {
                *self
                    .no_world_until
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + ASK_WORLD_EVERY);
                Ok(utc)
            }
        }
    }

    /// The day the upstream's world is at, if it says one; `None` when it answers that it has
    /// no world (any answer but a world's); an error when it cannot be asked.
    async fn world_day(&self) -> Result<Option<chrono::NaiveDate>> {
        let url = format!(
            "{}/__sandbox/world",
            self.upstream.spapi_url.trim_end_matches('/')
        );
        let unreadable = |why: String| {
            Error::new(
                Kind::UpstreamUnavailable,
                format!("the upstream could not be asked what day its world is at: {why}"),
            )
            .with_retryable(true)
        };
        let r = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(|e| unreadable(e.to_string()))?;
        if !r.status().is_success() {
            if self.upstream.kind == "sandbox" {
                return Err(unreadable(format!("it answered {}", r.status())));
            }
            return Ok(None);
        }
        let v: Value = r.json().await.unwrap_or(Value::Null);
        let day = v["today"].as_str().and_then(|d| d.parse().ok());
        if day.is_none() && self.upstream.kind == "sandbox" {
            return Err(unreadable(format!("it answered {v}")));
        }
        Ok(day)
    }

    /// The bytes at a presigned document URL (it carries its own signature: no credentials
    /// are sent). A refusal or a body cut short is `upstream_unavailable` with the status.
    pub async fn download(&self, url: &str) -> Result<Vec<u8>> {
        let failed = |why: String| {
            Error::new(
                Kind::UpstreamUnavailable,
                format!("the provider's report document could not be downloaded: {why}"),
            )
            .with_retryable(true)
        };
        let r = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| failed(e.to_string()))?;
        let status = r.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(failed(format!("HTTP {status}")).with_field("status", status));
        }
        Ok(r.bytes().await.map_err(|e| failed(e.to_string()))?.to_vec())
    }

    /// Posts `form` to an LWA token endpoint: the status and the JSON answer.
    async fn lwa(&self, url: &str, form: &[(&str, &str)]) -> Result<(u16, Value)> {
        let r = self
            .http
            .post(url)
            .form(form)
            .send()
            .await
            .map_err(|e| match classify(&e) {
                Failure::Unreachable => Error::new(
                    Kind::HostUnreachable,
                    "the marketplace's login service could not be reached",
                ),
                _ => Error::new(
                    Kind::UpstreamUnavailable,
                    "the marketplace's login service did not answer",
                ),
            })?;
        let status = r.status().as_u16();
        Ok((status, r.json().await.unwrap_or(Value::Null)))
    }

    /// Exchanges the one-time code a consent page sent back for a grant of `kind` in
    /// `region`: the refresh token and a first access token. A code that LWA refuses (used
    /// before, expired, for another redirect URI) answers `bad_params`.
    pub async fn exchange_code(
        &self,
        kind: GrantKind,
        region: &str,
        code: &str,
        redirect_uri: &str,
    ) -> Result<(String, Token)> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", self.upstream.client_id.as_str()),
            ("client_secret", self.upstream.client_secret.as_str()),
        ];
        let (status, body) = self.lwa(self.token_url(kind, region)?, &form).await?;
        let text = |k: &str| body[k].as_str().map(str::to_owned);
        match (status, text("refresh_token"), text("access_token")) {
            (200, Some(refresh), Some(access)) => Ok((
                refresh,
                Token {
                    value: access,
                    region: region.to_owned(),
                },
            )),
            (400, ..) if body["error"] == "invalid_grant" => Err(Error::new(
                Kind::BadParams,
                "the marketplace refused the authorization code: it was used before, expired, or made for another redirect URI",
            )
            .with_fix("Start connecting the account again.")),
            (400..=499, ..) => Err(Error::internal(format!(
                "the LWA app was refused exchanging a code: {}",
                body["error"]
            ))),
            _ => Err(Error::new(
                Kind::UpstreamUnavailable,
                "the marketplace's login service failed",
            )),
        }
    }

    /// One read of `op` (a path without parameters) made for `tenant` with an access token in
    /// hand: a login being connected has no stored connection yet. Its JSON answer, or the
    /// triaged failure.
    pub async fn read_with(
        &self,
        tenant: &TenantId,
        grant: GrantKind,
        op: &Operation,
        token: &Token,
    ) -> Result<Value> {
        let req = Request {
            op,
            tenant,
            grant,
            merchant: "",
            path: op.path.clone(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            media_type: op.media_type.clone(),
            background: None,
        };
        let started = Instant::now();
        let answer = self.attempt(&req, token).await;
        record_attempt(&op.id, &answer, started.elapsed());
        match answer {
            Err(f) => Err(failure(op, f)),
            Ok(a) if (200..300).contains(&a.status) => {
                serde_json::from_str(&a.body).map_err(|_| triage(op, &a))
            }
            Ok(a) => Err(triage(op, &a)),
        }
    }

    /// Writes down a grant's successful call, at most once a minute per instance.
    async fn touch(&self, store: &Store, req: &Request<'_>) {
        let key = Self::key(req.tenant, req.grant, req.merchant);
        {
            let mut t = self.touched.lock().unwrap_or_else(|p| p.into_inner());
            if t.get(&key).is_some_and(|at| at.elapsed() < TOUCH_EVERY) {
                return;
            }
            t.insert(key, Instant::now());
        }
        if let Err(e) = store
            .connections()
            .touch(req.tenant, req.grant.as_str(), req.merchant)
            .await
        {
            tracing::warn!(error = %e, merchant = req.merchant, "could not record a connection's last call");
        }
    }

    async fn attempt(
        &self,
        req: &Request<'_>,
        token: &Token,
    ) -> std::result::Result<Answer, Failure> {
        let base = self.upstream.base(&req.op.api, &token.region);
        let mut b = self
            .http
            .request(
                req.op.method.parse().unwrap_or(reqwest::Method::GET),
                format!("{base}{}", req.path),
            )
            .query(&req.query);
        if req.op.api == "ads" {
            b = b
                .bearer_auth(&token.value)
                .header("Amazon-Advertising-API-ClientId", &self.upstream.client_id)
                .header("Amazon-Ads-ClientId", &self.upstream.client_id);
            if let Some(m) = &req.media_type {
                b = b.header("accept", m.as_str());
                if req.body.is_some() {
                    b = b.header("content-type", m.as_str());
                }
            }
        } else {
            b = b
                .header("x-amz-access-token", &token.value)
                .header("accept", "application/json");
        }
        for (k, v) in &req.headers {
            b = b.header(k.as_str(), v.as_str());
        }
        if let Some(body) = &req.body {
            b = b.body(body.to_string());
            if req.op.api != "ads" || req.media_type.is_none() {
                b = b.header("content-type", "application/json");
            }
        }
        let r = b.send().await.map_err(|e| classify(&e))?;
        let status = r.status().as_u16();
        let retry_after = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let rate_limit = r
            .headers()
            .get("x-amzn-ratelimit-limit")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|r| r.is_finite() && *r > 0.0);
        let body = r.text().await.map_err(|e| classify(&e))?;
        Ok(Answer {
            status,
            retry_after,
            rate_limit,
            body,
        })
    }

    /// Sends `req`: paced, signed, retried as its kind allows, triaged. A read answers within
    /// its deadline whatever happens upstream; a create within one attempt's timeout.
    pub async fn send(&self, store: &Store, sealer: &Sealer, req: &Request<'_>) -> Result<Reply> {
        if !req.op.idempotent() {
            return self.send_inner(store, sealer, req).await;
        }
        let deadline = self.policy.read_deadline;
        match tokio::time::timeout(deadline, self.send_inner(store, sealer, req)).await {
            Ok(answer) => answer,
            Err(_) => Err(Error::new(
                Kind::UpstreamUnavailable,
                format!(
                    "the marketplace did not answer {} within its {} s deadline (retries included)",
                    req.op.id,
                    deadline.as_secs_f64()
                ),
            )
            .with_field("deadlineMs", deadline.as_millis() as u64)),
        }
    }

    /// Background work's pacing: waits for a token that is there for its `turn` (never
    /// reserving one a later refill owes, so a live call that comes meanwhile takes it first)
    /// for up to the policy's longest wait; `Err(wait)` when none came by then. Work asked
    /// for ahead of its turn takes one only if the plan has room now, and never waits.
    async fn spare_slot(
        &self,
        store: &Store,
        key: &str,
        (rate, burst): (f64, f64),
        turn: Turn,
    ) -> Result<std::result::Result<Duration, Duration>> {
        let deadline = Instant::now() + self.policy.max_wait;
        loop {
            let taken = store
                .pacing()
                .take_background(key, rate, burst, turn)
                .await?;
            match taken {
                Ok(_) => return Ok(Ok(Duration::ZERO)),
                // asked for ahead of its turn: now or not at all
                Err(wait) if turn == Turn::Ahead => return Ok(Err(wait)),
                Err(wait) if Instant::now() + wait <= deadline => tokio::time::sleep(wait).await,
                Err(wait) => return Ok(Err(wait)),
            }
        }
    }

    /// The usage plan `req` is paced under: the provider keeps one per account it acts for
    /// and operation, whichever tenant calls (two tenants connected to one merchant share it).
    fn plan_key(req: &Request<'_>) -> String {
        format!("{}/{}/{}", req.grant.as_str(), req.merchant, req.op.id)
    }

    /// Waits for `req`'s slot in its usage plan (a live call up to the policy's longest wait,
    /// background work only for a token that is there); `Throttled` with `retryAfter` when
    /// none comes in time. Every attempt that reaches the provider takes one, retries too.
    async fn pace(&self, store: &Store, req: &Request<'_>) -> Result<()> {
        if !self.policy.pacing {
            return Ok(());
        }
        let op = req.op;
        let key = Self::plan_key(req);
        let (rate, burst) = (op.rate.unwrap_or(0.0), op.burst.unwrap_or(1.0));
        let slot = if let Some(turn) = req.background {
            self.spare_slot(store, &key, (rate, burst), turn).await?
        } else {
            store
                .pacing()
                .take(&key, rate, burst, self.policy.max_wait)
                .await?
        };
        match slot {
            // a zero sleep would still wait for the timer's next tick (up to 1 ms)
            Ok(wait) if wait.is_zero() => Ok(()),
            Ok(wait) => {
                let m = pp_core::metrics::get();
                m.pacing_waits.with_label_values(&[op.id.as_str()]).inc();
                m.pacing_wait_seconds
                    .with_label_values(&[op.id.as_str()])
                    .inc_by(wait.as_secs_f64());
                tokio::time::sleep(wait).await;
                Ok(())
            }
            Err(wait) => Err(Error::new(
                Kind::Throttled,
                format!(
                    "{} is paced to the provider's usage plan; the next slot is in {} s",
                    op.id,
                    wait.as_secs() + 1
                ),
            )
            .with_field("retryAfter", wait.as_secs() + 1)),
        }
    }

    async fn send_inner(&self, store: &Store, sealer: &Sealer, req: &Request<'_>) -> Result<Reply> {
        let op = req.op;
        let mut fresh_token_tried = false;
        let mut attempt = 0;
        loop {
            let token = self
                .access_token(store, sealer, req.tenant, req.grant, req.merchant)
                .await?;
            self.pace(store, req).await?;
            let started = Instant::now();
            let answer = self.attempt(req, &token).await;
            record_attempt(&op.id, &answer, started.elapsed());
            let retryable_read = op.idempotent() && attempt < self.policy.read_retries;
            match answer {
                Err(f) if retryable_read && f != Failure::Unreachable => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
                }
                Err(f) => return Err(failure(op, f)),
                Ok(a) if stale_token(&a) && !fresh_token_tried => {
                    // the provider refused the token itself: nothing ran; one fresh token
                    fresh_token_tried = true;
                    self.forget(req.tenant, req.grant, req.merchant);
                }
                Ok(a) if (200..300).contains(&a.status) => {
                    match serde_json::from_str::<Value>(&a.body) {
                        Ok(body) => {
                            if let Some(e) = triage::multi_status(op, a.status, &body) {
                                return Err(e);
                            }
                            self.touch(store, req).await;
                            return Ok(Reply {
                                status: a.status,
                                body,
                                rate_limit: a.rate_limit,
                            });
                        }
                        Err(_) if a.body.trim().is_empty() => {
                            self.touch(store, req).await;
                            return Ok(Reply {
                                status: a.status,
                                body: Value::Null,
                                rate_limit: a.rate_limit,
                            });
                        }
                        Err(_) => return Err(triage(op, &a)),
                    }
                }
                Ok(a) if a.status == 429 && retryable_read => {
                    self.throttled_by_provider(store, req, a.retry_after).await;
                    let wait = Duration::from_secs(a.retry_after.unwrap_or(1));
                    if wait > self.policy.max_wait {
                        return Err(triage(op, &a));
                    }
                    attempt += 1;
                    tokio::time::sleep(wait).await;
                }
                Ok(a) if a.status >= 500 && retryable_read => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
                }
                Ok(a) => {
                    if a.status == 429 {
                        self.throttled_by_provider(store, req, a.retry_after).await;
                    }
                    let e = triage(op, &a);
                    if e.kind == Kind::ReauthRequired {
                        connections::set_status(
                            store,
                            req.tenant,
                            req.grant,
                            req.merchant,
                            ConnectionStatus::Lapsed,
                        )
                        .await?;
                        self.forget(req.tenant, req.grant, req.merchant);
                    }
                    return Err(e);
                }
            }
        }
    }
}

impl Client {
    /// The provider refused `req` for its usage plan: the plan's bucket here is emptied up to
    /// the provider's `Retry-After` (else one refill), so the next attempt waits for the slot
    /// the provider has instead of the tokens the gateway counted.
    async fn throttled_by_provider(
        &self,
        store: &Store,
        req: &Request<'_>,
        retry_after: Option<u64>,
    ) {
        let rate = req.op.rate.unwrap_or(0.0);
        if !self.policy.pacing || rate <= 0.0 {
            return;
        }
        let next_in = retry_after.map_or(Duration::from_secs_f64(1.0 / rate), Duration::from_secs);
        let key = Self::plan_key(req);
        if let Err(e) = store.pacing().empty(&key, rate, next_in).await {
            tracing::warn!(error = %e, op = req.op.id.as_str(), "could not empty a pacing bucket after a 429");
        }
    }
}

fn lapsed(c: &connections::Connection) -> Error {
    let m = &c.merchant;
    let why = match &c.disconnected_by {
        Some(by) => format!(
            "merchant {m}'s {} connection was disconnected by {by}",
            c.kind.as_str()
        ),
        None => format!(
            "merchant {m}'s {} connection lapsed: the marketplace no longer accepts its authorization",
            c.kind.as_str()
        ),
    };
    Error::new(Kind::ReauthRequired, why)
        .with_fix("A tenant admin connects the account again (console, Connections), then retry.")
}

/// Counts one attempt in the metrics, by its status class (`2xx`, `4xx`, `429`, `5xx`) or
/// what kept it from an answer (`unreachable`, `reset`, `timeout`).
fn record_attempt(op: &str, answer: &std::result::Result<Answer, Failure>, took: Duration) {
    let outcome = match answer {
        Ok(a) if a.status == 429 => "429",
        Ok(a) => match a.status / 100 {
            1 | 2 => "2xx",
            3 => "3xx",
            4 => "4xx",
            _ => "5xx",
        },
        Err(Failure::Unreachable) => "unreachable",
        Err(Failure::Reset) => "reset",
        Err(Failure::Timeout) => "timeout",
    };
    let m = pp_core::metrics::get();
    m.provider_calls.with_label_values(&[op, outcome]).inc();
    m.provider_duration
        .with_label_values(&[op])
        .observe(took.as_secs_f64());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_follow_the_connection_region() {
        let u = Upstream {
            kind: "provider".into(),
            token_url: String::new(),
            spapi_url: Upstream::PROVIDER_SPAPI_URL.into(),
            ads_url: Upstream::PROVIDER_ADS_URL.into(),
            client_id: String::new(),
            client_secret: String::new(),
            ads_token_urls: Regional::provider_ads_token_urls(),
            consent: Consent::default(),
        };
        assert_eq!(
            u.base("spapi", "eu"),
            "https://sellingpartnerapi-eu.amazon.com"
        );
        assert_eq!(u.base("ads", "na"), "https://advertising-api.amazon.com");
        assert_eq!(u.base("ads", "fe"), "https://advertising-api-fe.amazon.com");
        let one = Upstream {
            spapi_url: "http://127.0.0.1:9".into(),
            ..u
        };
        assert_eq!(one.base("spapi", "fe"), "http://127.0.0.1:9");
    }
}

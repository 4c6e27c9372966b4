//! Calls to the gateway: a token minted with the credential (cached, minted again once when
//! refused), JSON in and out, and every failure turned into a [`Failure`] that keeps the
//! gateway's envelope as it came and the exit code of its family.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use super::exit;
use super::session::{self, Profile};

/// A failed command: its exit code, a line for people, and the gateway's envelope when there
/// was one (printed as it is under `--json`).
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
    pub envelope: Option<Value>,
}

impl Failure {
    /// A failure found before or without the gateway.
    pub fn local(code: u8, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            envelope: None,
        }
    }

    /// A refusal the gateway answered with `status` and `body` (or an envelope an answer
    /// carried, such as a failed report's `error`).
    pub fn answered(status: u16, body: Value) -> Self {
        // `/api` envelope, `/v1` body, or an OAuth error
        let kind = body["kind"]
            .as_str()
            .or_else(|| body["error"]["code"].as_str())
            .or_else(|| body["error"].as_str())
            .unwrap_or("")
            .to_owned();
        let text = body["message"]
            .as_str()
            .or_else(|| body["error"]["message"].as_str())
            .or_else(|| body["error_description"].as_str())
            .unwrap_or("the gateway refused the request");
        let fix = body["fix"]
            .as_str()
            .map(|f| format!(" ({f})"))
            .unwrap_or_default();
        Self {
            code: exit::for_failure(&kind, status),
            message: format!("{kind} ({status}): {text}{fix}"),
            envelope: Some(body),
        }
    }
}

/// A signed-in connection to the gateway.
pub struct Api {
    http: reqwest::Client,
    pub profile: Profile,
    token_path: Option<PathBuf>,
    token: Option<String>,
}

fn unreachable(base: &str, e: &reqwest::Error) -> Failure {
    Failure::local(
        exit::UNREACHABLE,
        format!("cannot reach the gateway at {base}: {e}"),
    )
}

/// An HTTP client for the command line (rustls with ring; two minutes per request, the
/// longest query's deadline).
pub fn client() -> Result<reqwest::Client, Failure> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(150))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| Failure::local(exit::OTHER, e.to_string()))
}

/// The JSON of an answer, or the failure it carries.
async fn read(base: &str, res: reqwest::Response) -> Result<Value, Failure> {
    let status = res.status().as_u16();
    let bytes = res.bytes().await.map_err(|e| unreachable(base, &e))?;
    let body: Value = if bytes.is_empty() {
        json!({})
    } else {
        serde_json::from_slice(&bytes).map_err(|_| {
            Failure::local(
                exit::OTHER,
                format!("the gateway answered {status} with something that is not JSON"),
            )
        })?
    };
    if (200..300).contains(&status) {
        Ok(body)
    } else {
        Err(Failure::answered(status, body))
    }
}

impl Api {
    /// Signs in with the credential of `profile` (or the environment's).
    pub fn new(profile: &str) -> Result<Self, Failure> {
        session::check_name(profile)?;
        let (profile, token_path) = session::credential(profile)?;
        let token = session::cached(&profile, token_path.as_deref());
        Ok(Self {
            http: client()?,
            profile,
            token_path,
            token,
        })
    }

    /// A token: the cached one, or a new one minted with the credential.
    async fn token(&mut self) -> Result<String, Failure> {
        if let Some(t) = &self.token {
            return Ok(t.clone());
        }
        let base = self.profile.base_url.clone();
        let res = self
            .http
            .post(format!("{base}/oauth/token"))
            .basic_auth(&self.profile.client_id, Some(&self.profile.client_secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .map_err(|e| unreachable(&base, &e))?;
        let body = read(&base, res).await?;
        let token = body["access_token"]
            .as_str()
            .ok_or_else(|| {
                Failure::local(exit::OTHER, "the token endpoint answered no access_token")
            })?
            .to_owned();
        session::remember(
            &self.profile,
            self.token_path.as_deref(),
            &token,
            body["expires_in"].as_i64().unwrap_or(3600),
        );
        self.token = Some(token.clone());
        Ok(token)
    }

    /// Calls `method path` with `body` and extra `headers`; a refused cached token is
    /// replaced once.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Result<Value, Failure> {
        let base = self.profile.base_url.clone();
        for attempt in 0..2 {
            let token = self.token().await?;
            let mut req = self
                .http
                .request(method.clone(), format!("{base}{path}"))
                .bearer_auth(&token);
            if let Some(b) = body {
                req = req.json(b);
            }
            for (name, value) in headers {
                req = req.header(*name, *value);
            }
            let res = req.send().await.map_err(|e| unreachable(&base, &e))?;
            if res.status() == reqwest::StatusCode::UNAUTHORIZED && attempt == 0 {
                session::drop_cached(self.token_path.as_deref());
                self.token = None;
                continue;
            }
            return read(&base, res).await;
        }
        unreachable!("the loop returns on its second attempt")
    }

    pub async fn get(&mut self, path: &str) -> Result<Value, Failure> {
        self.call(Method::GET, path, None, &[]).await
    }

    pub async fn post(&mut self, path: &str, body: &Value) -> Result<Value, Failure> {
        self.call(Method::POST, path, Some(body), &[]).await
    }

    pub async fn put(&mut self, path: &str, body: &Value) -> Result<Value, Failure> {
        self.call(Method::PUT, path, Some(body), &[]).await
    }

    pub async fn delete(&mut self, path: &str) -> Result<Value, Failure> {
        self.call(Method::DELETE, path, None, &[]).await
    }

    /// The bytes at a presigned `url` the gateway handed out (fetched without the token,
    /// as such URLs must be).
    pub async fn download(&self, url: &str) -> Result<Vec<u8>, Failure> {
        let gone = |e: reqwest::Error| {
            Failure::local(exit::UPSTREAM, format!("cannot fetch the document: {e}"))
        };
        let res = self.http.get(url).send().await.map_err(gone)?;
        let status = res.status();
        if !status.is_success() {
            return Err(Failure::local(
                exit::UPSTREAM,
                format!("the document URL answered {status} (it is short-lived: ask for it again)"),
            ));
        }
        Ok(res.bytes().await.map_err(gone)?.to_vec())
    }
}

/// Exchanges a setup code (no credential yet): the new credential's id, secret and scopes.
pub async fn exchange_setup_code(base: &str, code: &str) -> Result<Value, Failure> {
    let http = client()?;
    let res = http
        .post(format!("{base}/oauth/setup-code"))
        .form(&[("code", code)])
        .send()
        .await
        .map_err(|e| unreachable(base, &e))?;
    read(base, res).await
}

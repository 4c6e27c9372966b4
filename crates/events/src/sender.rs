//! The HTTP client webhooks go out through, and the guard's place in it. The environment's
//! proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`) are never read: a proxy there
//! would connect to the endpoint itself, and the address it connected to would never be
//! checked. Without a proxy the guard is the client's resolver, so the address checked is the
//! address connected to. With the operator's `webhook_proxy` set, the proxy connects: then the
//! endpoint's host is resolved and every address checked just before each attempt, and only
//! then is the request handed to the proxy (a name that changes its answer in between is the
//! proxy's to refuse; docs/events.md says how to set one up).

use std::time::Duration;

use reqwest::Url;

use crate::guard::Guard;

/// Sends a delivery's POST where the guard allows.
pub struct Sender {
    guard: Guard,
    client: reqwest::Client,
    /// Whether a proxy makes the connection (so the guard checks before each attempt).
    proxied: bool,
}

impl Sender {
    /// A sender that waits at most `timeout` for an answer, through `proxy` when one is set.
    pub fn new(guard: Guard, timeout: Duration, proxy: Option<&str>) -> Result<Self, String> {
        // reqwest is built without a default crypto provider: ring is the process's
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!(
                "PartnerPlatform-Webhooks/",
                env!("CARGO_PKG_VERSION")
            ));
        builder = match proxy {
            // the proxy's own address is the operator's, resolved as any name is
            Some(p) => builder
                .proxy(reqwest::Proxy::all(p).map_err(|e| format!("webhook_proxy '{p}': {e}"))?),
            None => builder.dns_resolver(guard.clone()),
        };
        let client = builder
            .build()
            .map_err(|e| format!("the webhook client cannot be built: {e}"))?;
        Ok(Self {
            guard,
            client,
            proxied: proxy.is_some(),
        })
    }

    /// POSTs `body` with `headers` to `url`; the status, or why none came back.
    pub async fn post(
        &self,
        url: Url,
        headers: [(&'static str, String); 3],
        body: Vec<u8>,
    ) -> Result<i64, String> {
        let refused = |e: pp_core::Error| format!("refused: {}", e.message());
        if self.proxied {
            self.guard.check(url.as_str()).await.map_err(refused)?;
        } else {
            self.guard.check_literal(&url).map_err(refused)?;
        }
        let mut req = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            req = req.header(name, value);
        }
        match req.body(body).send().await {
            Ok(resp) => Ok(resp.status().as_u16() as i64),
            Err(e) => Err(words(&e)),
        }
    }
}

/// A transport failure in words, down its source chain (the guard's refusal is in there).
fn words(e: &reqwest::Error) -> String {
    let mut out = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

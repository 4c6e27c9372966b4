//! Where a webhook may go. Outside `--dev`, an address in the IANA special-purpose registries
//! that is not globally reachable (loopback, private, carrier-grade NAT, link-local with the
//! cloud metadata address 169.254.169.254, documentation, benchmarking, multicast, reserved;
//! the table and its source are in [`special`]), or an IPv6 address carrying such an IPv4
//! address, is refused, unless the operator allows the host by name. The URL is checked at registration, and at delivery the
//! name is resolved by [`Guard`] as the HTTP client's resolver, so the address checked is the
//! address connected to (a name that changed its answer since registration is refused too).
//! Redirects are not followed.

mod special;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use pp_core::{Error, Kind, Result};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::Settings;

/// The rule, shared by registration and delivery.
#[derive(Debug, Clone)]
pub struct Guard {
    dev: bool,
    allow: Arc<Vec<String>>,
}

/// Why an address is refused, or `None` when it is a globally reachable one ([`special`]).
pub fn forbidden(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => special::v4_reason(v4),
        IpAddr::V6(v6) => special::v6_reason(v6),
    }
}

fn refused(host: &str, why: &str) -> Error {
    Error::new(
        Kind::UrlRefused,
        format!("'{host}' is {why}; webhooks are not sent there"),
    )
    .with_fix("Use a public address. An operator can allow an internal host with webhook_allow_hosts (docs/configuration.md).")
}

impl Guard {
    pub fn new(settings: &Settings) -> Result<Self> {
        Ok(Self {
            dev: settings.dev,
            allow: Arc::new(
                settings
                    .allow_hosts
                    .iter()
                    .map(|h| h.trim().to_ascii_lowercase())
                    .collect(),
            ),
        })
    }

    fn allowed(&self, host: &str) -> bool {
        self.dev || self.allow.iter().any(|a| a == &host.to_ascii_lowercase())
    }

    /// Checks a URL a tenant registers: http or https, a host, no credentials in it, and every
    /// address its host resolves to allowed. The parsed URL.
    pub async fn check(&self, text: &str) -> Result<Url> {
        let url = parse(text)?;
        let host = url.host_str().unwrap_or_default().to_owned();
        if self.allowed(&host) {
            return Ok(url);
        }
        match url.host() {
            Some(Host::Ipv4(ip)) => self.check_ip(&host, IpAddr::V4(ip))?,
            Some(Host::Ipv6(ip)) => self.check_ip(&host, IpAddr::V6(ip))?,
            _ => {
                self.lookup(&host, url.port_or_known_default().unwrap_or(443))
                    .await?;
            }
        }
        Ok(url)
    }

    /// Checks a URL whose host is an address (a name is checked when the client resolves it).
    pub fn check_literal(&self, url: &Url) -> Result<()> {
        let host = url.host_str().unwrap_or_default();
        if self.allowed(host) {
            return Ok(());
        }
        match url.host() {
            Some(Host::Ipv4(ip)) => self.check_ip(host, IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => self.check_ip(host, IpAddr::V6(ip)),
            _ => Ok(()),
        }
    }

    fn check_ip(&self, host: &str, ip: IpAddr) -> Result<()> {
        match forbidden(ip) {
            Some(why) => Err(refused(host, why)),
            None => Ok(()),
        }
    }

    /// The addresses `host` resolves to, each allowed (or all, for an allowed host).
    async fn lookup(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| Error::new(Kind::BadParams, format!("'{host}' does not resolve: {e}")))?
            .collect();
        if addrs.is_empty() {
            return Err(Error::new(
                Kind::BadParams,
                format!("'{host}' resolves to no address"),
            ));
        }
        if !self.allowed(host) {
            for a in &addrs {
                self.check_ip(host, a.ip())?;
            }
        }
        Ok(addrs)
    }
}

/// Parses a webhook URL: http(s), a host, no user name or password.
pub fn parse(text: &str) -> Result<Url> {
    let bad = |why: &str| Error::new(Kind::BadParams, format!("url: {why}"));
    let url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err(bad("must be an http or https URL"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("must name a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not carry a user name or password"));
    }
    if url.fragment().is_some() {
        return Err(bad("must not carry a fragment"));
    }
    Ok(url)
}

impl Resolve for Guard {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs = guard.lookup(&host, 0).await.map_err(
                |e| -> Box<dyn std::error::Error + Send + Sync> { e.message().to_owned().into() },
            )?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_named_and_public_ones_pass() {
        for (ip, why) in [
            ("127.0.0.1", "loopback"),
            ("10.0.0.1", "private"),
            ("172.16.5.4", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "metadata"),
            ("169.254.1.1", "link-local"),
            ("100.64.0.1", "carrier-grade"),
            ("0.0.0.0", "unspecified"),
            ("::1", "loopback"),
            ("fe80::1", "link-local"),
            ("fd00::1", "unique local"),
            ("::ffff:10.0.0.1", "private"),
            ("64:ff9b::a9fe:a9fe", "metadata"),
        ] {
            let got = forbidden(ip.parse().unwrap());
            assert!(got.is_some_and(|g| g.contains(why)), "{ip}: {got:?}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert_eq!(forbidden(ip.parse().unwrap()), None, "{ip}");
        }
    }

    #[tokio::test]
    async fn registration_refuses_internal_hosts_unless_dev_or_allowed() {
        let strict = Guard::new(&Settings::default()).unwrap();
        for url in [
            "http://127.0.0.1:9/x",
            "https://10.0.0.1/x",
            "http://169.254.169.254/latest/meta-data",
            "http://[::1]/x",
            "http://localhost:8080/x",
            // issue 66, finding 3: accepted on the old main (192.0.2.0/24 was the outside
            // test's own host, and the event was delivered there)
            "http://192.0.2.10/x",
            "http://198.18.0.1/x",
            "http://[fec0::1]/x",
            "http://[::7f00:1]/x",
            "http://[2002:7f00:1::1]/x",
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x",
        ] {
            let e = strict.check(url).await.unwrap_err();
            assert_eq!(e.kind, Kind::UrlRefused, "{url}: {e:?}");
        }
        for url in [
            "ftp://example.com/",
            "https://user:pw@example.com/",
            "not a url",
        ] {
            assert_eq!(
                strict.check(url).await.unwrap_err().kind,
                Kind::BadParams,
                "{url}"
            );
        }
        let allowing = Guard::new(&Settings {
            allow_hosts: vec!["LOCALHOST".into()],
            ..Settings::default()
        })
        .unwrap();
        assert!(allowing.check("http://localhost:8080/x").await.is_ok());
        assert!(allowing.check("http://127.0.0.1:8080/x").await.is_err());
        let dev = Guard::new(&Settings {
            dev: true,
            ..Settings::default()
        })
        .unwrap();
        assert!(dev.check("http://127.0.0.1:8080/x").await.is_ok());
    }
}

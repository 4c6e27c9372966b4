//! Server configuration: one struct, filled from flags, then `PARTNER_*` environment, then an
//! optional TOML file, then defaults (`docs/configuration.md`). Secrets never appear here in
//! logs.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use serde::Deserialize;

/// `partner-platform server` flags (each also readable from the environment).
#[derive(Args, Debug, Clone)]
pub struct ServerArgs {
    /// Zero-config demo: state under ./.partner-dev, a demo tenant, warehouse and credential.
    #[arg(long)]
    pub dev: bool,
    /// Address to listen on.
    #[arg(long, env = "PARTNER_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// Folder holding the state store and the tenants' embedded warehouses.
    #[arg(long, env = "PARTNER_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Where the state lives: `sqlite://<file>` (a relative file is under the data
    /// directory; default `sqlite://state.sqlite`) or `postgres://…` for several instances
    /// sharing one state.
    #[arg(long, env = "PARTNER_STATE_URL", hide_env_values = true)]
    pub state_url: Option<String>,
    /// The base URL clients use to reach this server (issuer and endpoint URLs derive from it).
    #[arg(long, env = "PARTNER_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Dev only: the demo world's anchor day (YYYY-MM-DD) when it is first built; data runs
    /// through the day before. Default: today (UTC).
    #[arg(long, requires = "dev")]
    pub today: Option<chrono::NaiveDate>,
    /// A TOML file with any of: listen, data_dir, state_url, public_url, mcp_allowed_hosts,
    /// mcp_allowed_origins, the upstream settings and `[limits]`.
    #[arg(long, env = "PARTNER_CONFIG")]
    pub config: Option<PathBuf>,
    /// More `Host` names the MCP endpoints accept, comma-separated (`*`: any), e.g. the
    /// internal name a reverse proxy forwards to. The public URL's host and loopback always are.
    #[arg(long, env = "PARTNER_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub mcp_allowed_hosts: Vec<String>,
    /// More browser `Origin`s allowed to call the MCP endpoints, comma-separated (`*`: any).
    #[arg(long, env = "PARTNER_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub mcp_allowed_origins: Vec<String>,
    /// 64 hex characters: the key that seals connected merchants' refresh tokens.
    #[arg(long, env = "PARTNER_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,
    /// The LWA app's client id (switches the marketplace surfaces on).
    #[arg(long, env = "PARTNER_LWA_CLIENT_ID")]
    pub lwa_client_id: Option<String>,
    /// The LWA app's client secret.
    #[arg(long, env = "PARTNER_LWA_CLIENT_SECRET", hide_env_values = true)]
    pub lwa_client_secret: Option<String>,
    /// The LWA token endpoint of selling-side grants (default https://api.amazon.com/auth/o2/token);
    /// also of advertising grants in every region unless `ads_token_urls` is set in the file.
    #[arg(long, env = "PARTNER_LWA_TOKEN_URL")]
    pub lwa_token_url: Option<String>,
    /// The selling-partner application id (amzn1.sp.solution.…): sellers connect their
    /// accounts to it at the provider's consent page.
    #[arg(long, env = "PARTNER_SP_APPLICATION_ID")]
    pub sp_application_id: Option<String>,
    /// The selling-side API's base URL.
    #[arg(long, env = "PARTNER_SPAPI_URL")]
    pub spapi_url: Option<String>,
    /// The advertising API's base URL.
    #[arg(long, env = "PARTNER_ADS_URL")]
    pub ads_url: Option<String>,
    /// Pace calls to the provider's usage plans (default true). Switch off only against a
    /// provider without limits, such as `sim --no-rate-limits` in a benchmark.
    #[arg(long, env = "PARTNER_UPSTREAM_PACING")]
    pub upstream_pacing: Option<bool>,
    /// Milliseconds between a pricing run's provider batches (default: the provider's pace,
    /// the operation's usage plan, about 30 s for either family).
    #[arg(long, env = "PARTNER_PRICING_SPACING_MS")]
    pub pricing_spacing_ms: Option<u64>,
    /// Milliseconds one provider call may take before it counts as failed (default 20000);
    /// also a report create's whole deadline.
    #[arg(long, env = "PARTNER_UPSTREAM_TIMEOUT_MS")]
    pub upstream_timeout_ms: Option<u64>,
    /// Milliseconds a provider read may take in all, retries included (default 30000).
    #[arg(long, env = "PARTNER_UPSTREAM_READ_DEADLINE_MS")]
    pub upstream_read_deadline_ms: Option<u64>,
    /// Job workers in this process (default 4).
    #[arg(long, env = "PARTNER_JOB_WORKERS")]
    pub job_workers: Option<usize>,
    /// Milliseconds a worker holds a job step (default 30000): a job whose instance died is
    /// taken up by another this long after its last renewal.
    #[arg(long, env = "PARTNER_JOB_LEASE_MS")]
    pub job_lease_ms: Option<u64>,
    /// Listing text writes (title, bullets …) for the whole service (default true); false
    /// answers every such write `listings_write_disabled`.
    #[arg(long, env = "PARTNER_LISTINGS_TEXT_WRITES")]
    pub listings_text_writes: Option<bool>,
    /// Listing image writes for the whole service (default true); false answers them
    /// `listings_media_write_disabled`.
    #[arg(long, env = "PARTNER_LISTINGS_MEDIA_WRITES")]
    pub listings_media_writes: Option<bool>,
    /// Milliseconds between the image check's reads of a committed listing (default 15000).
    #[arg(long, env = "PARTNER_LISTINGS_MEDIA_POLL_MS")]
    pub listings_media_poll_ms: Option<u64>,
    /// The most item-days (items × days read) a synchronous retail-backed intelligence run may
    /// cover (default 400000); larger answers `account_too_large_use_async`.
    #[arg(long, env = "PARTNER_INTELLIGENCE_SYNC_ITEM_DAYS")]
    pub intelligence_sync_item_days: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    listen: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    state_url: Option<String>,
    public_url: Option<String>,
    mcp_allowed_hosts: Option<Vec<String>>,
    mcp_allowed_origins: Option<Vec<String>>,
    secret_key: Option<String>,
    lwa_client_id: Option<String>,
    lwa_client_secret: Option<String>,
    lwa_token_url: Option<String>,
    sp_application_id: Option<String>,
    /// The application is a draft: its consent page is opened with `version=beta`.
    sp_application_draft: Option<bool>,
    /// LWA's token endpoints for advertising grants, `{ na, eu, fe }`.
    ads_token_urls: Option<pp_marketplace::Regional>,
    /// The selling-side consent pages, `{ na, eu, fe }`.
    seller_consent_urls: Option<pp_marketplace::Regional>,
    /// Login with Amazon's authorization pages for advertising, `{ na, eu, fe }`.
    ads_authorize_urls: Option<pp_marketplace::Regional>,
    spapi_url: Option<String>,
    ads_url: Option<String>,
    upstream_pacing: Option<bool>,
    pricing_spacing_ms: Option<u64>,
    upstream_timeout_ms: Option<u64>,
    upstream_read_deadline_ms: Option<u64>,
    job_workers: Option<usize>,
    job_lease_ms: Option<u64>,
    listings_text_writes: Option<bool>,
    listings_media_writes: Option<bool>,
    listings_media_poll_ms: Option<u64>,
    intelligence_sync_item_days: Option<i64>,
    /// The abuse bounds (`[limits]`; docs/security.md).
    limits: Option<pp_server::Bounds>,
}

/// Where the marketplace provider is, when configured.
#[derive(Clone, Default)]
pub struct UpstreamConfig {
    pub secret_key: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub token_url: Option<String>,
    pub sp_application_id: Option<String>,
    pub sp_application_draft: Option<bool>,
    pub ads_token_urls: Option<pp_marketplace::Regional>,
    pub seller_consent_urls: Option<pp_marketplace::Regional>,
    pub ads_authorize_urls: Option<pp_marketplace::Regional>,
    pub spapi_url: Option<String>,
    pub ads_url: Option<String>,
    pub pacing: Option<bool>,
    pub pricing_spacing_ms: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub read_deadline_ms: Option<u64>,
    pub job_workers: Option<usize>,
    pub job_lease_ms: Option<u64>,
    pub listings_text_writes: Option<bool>,
    pub listings_media_writes: Option<bool>,
    pub listings_media_poll_ms: Option<u64>,
    pub intelligence_sync_item_days: Option<i64>,
}

impl UpstreamConfig {
    /// How the job workers run.
    pub fn jobs(&self) -> pp_server::JobsConfig {
        let workers = self
            .job_workers
            .unwrap_or(pp_server::JobsConfig::default().workers)
            .max(1);
        pp_server::JobsConfig {
            pricing_spacing: pp_marketplace::pricing::Spacing(
                self.pricing_spacing_ms
                    .map(std::time::Duration::from_millis),
            ),
            workers,
            // a tenant may hold half the workers, so another tenant always finds one free
            per_tenant: (workers / 2).max(1),
            lease: self
                .job_lease_ms
                .map(|ms| std::time::Duration::from_millis(ms.max(1_000)))
                .unwrap_or(pp_server::JobsConfig::default().lease),
            listings: self.listings(),
            intelligence: pp_intelligence::Settings {
                sync_item_days: self
                    .intelligence_sync_item_days
                    .unwrap_or(pp_intelligence::Settings::default().sync_item_days)
                    .max(1),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Listing writes' configured switches and the image check's pace.
    pub fn listings(&self) -> pp_marketplace::service::ListingSettings {
        let d = pp_marketplace::service::ListingSettings::default();
        pp_marketplace::service::ListingSettings {
            text_writes: self.listings_text_writes.unwrap_or(d.text_writes),
            media_writes: self.listings_media_writes.unwrap_or(d.media_writes),
            media_poll: self
                .listings_media_poll_ms
                .map(|ms| std::time::Duration::from_millis(ms.max(100)))
                .unwrap_or(d.media_poll),
            ..d
        }
    }

    /// Timeouts, retries and pacing for the upstream client.
    pub fn policy(&self) -> pp_marketplace::Policy {
        pp_marketplace::Policy {
            pacing: self.pacing.unwrap_or(true),
            timeout: std::time::Duration::from_millis(self.timeout_ms.unwrap_or(20_000)),
            read_deadline: std::time::Duration::from_millis(
                self.read_deadline_ms.unwrap_or(30_000),
            ),
            ..Default::default()
        }
    }
}

impl std::fmt::Debug for UpstreamConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamConfig")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Listen address.
    pub listen: SocketAddr,
    /// Data directory.
    pub data_dir: PathBuf,
    /// Where the state lives (the embedded store in the data directory by default).
    pub state_url: pp_store::StateUrl,
    /// Public base URL; `None` in dev mode means "derive from the bound address".
    pub public_url: Option<String>,
    /// Extra `Host` names the MCP endpoints accept.
    pub mcp_allowed_hosts: Vec<String>,
    /// Extra `Origin`s the MCP endpoints accept.
    pub mcp_allowed_origins: Vec<String>,
    /// The marketplace provider.
    pub upstream: UpstreamConfig,
    /// The abuse bounds (connections, token attempts, MCP sessions, queries).
    pub limits: pp_server::Bounds,
}

fn either(flag: &[String], file: Option<Vec<String>>) -> Vec<String> {
    if flag.is_empty() {
        file.unwrap_or_default()
    } else {
        flag.to_vec()
    }
}

/// Default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// Default data directory of the dev server.
pub const DEV_DATA_DIR: &str = ".partner-dev";

/// The state URL given, or the embedded store in `data_dir`.
pub fn state_url_of(
    given: Option<&str>,
    data_dir: &std::path::Path,
) -> Result<pp_store::StateUrl, String> {
    match given {
        None => Ok(pp_store::StateUrl::default_for(data_dir)),
        Some(u) => pp_store::StateUrl::parse(u, data_dir).map_err(|e| e.message().to_owned()),
    }
}

fn read_file(path: &PathBuf) -> Result<FileConfig, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("config file {}: {e}", path.display()))
}

impl Config {
    /// Resolves flags, environment and file; refuses with a message naming what is missing.
    pub fn resolve(args: &ServerArgs) -> Result<Self, String> {
        let file = match &args.config {
            Some(p) => read_file(p)?,
            None => FileConfig::default(),
        };
        let listen = args
            .listen
            .or(file.listen)
            .unwrap_or_else(|| DEFAULT_LISTEN.parse().expect("valid default"));
        let data_dir = args.data_dir.clone().or(file.data_dir);
        let state_url = args.state_url.clone().or(file.state_url);
        let public_url = args.public_url.clone().or(file.public_url);
        let mcp_allowed_hosts = either(&args.mcp_allowed_hosts, file.mcp_allowed_hosts);
        let mcp_allowed_origins = either(&args.mcp_allowed_origins, file.mcp_allowed_origins);
        let upstream = UpstreamConfig {
            secret_key: args.secret_key.clone().or(file.secret_key),
            client_id: args.lwa_client_id.clone().or(file.lwa_client_id),
            client_secret: args.lwa_client_secret.clone().or(file.lwa_client_secret),
            token_url: args.lwa_token_url.clone().or(file.lwa_token_url),
            sp_application_id: args.sp_application_id.clone().or(file.sp_application_id),
            sp_application_draft: file.sp_application_draft,
            ads_token_urls: file.ads_token_urls,
            seller_consent_urls: file.seller_consent_urls,
            ads_authorize_urls: file.ads_authorize_urls,
            spapi_url: args.spapi_url.clone().or(file.spapi_url),
            ads_url: args.ads_url.clone().or(file.ads_url),
            pacing: args.upstream_pacing.or(file.upstream_pacing),
            pricing_spacing_ms: args.pricing_spacing_ms.or(file.pricing_spacing_ms),
            timeout_ms: args.upstream_timeout_ms.or(file.upstream_timeout_ms),
            read_deadline_ms: args
                .upstream_read_deadline_ms
                .or(file.upstream_read_deadline_ms),
            job_workers: args.job_workers.or(file.job_workers),
            job_lease_ms: args.job_lease_ms.or(file.job_lease_ms),
            listings_text_writes: args.listings_text_writes.or(file.listings_text_writes),
            listings_media_writes: args.listings_media_writes.or(file.listings_media_writes),
            listings_media_poll_ms: args.listings_media_poll_ms.or(file.listings_media_poll_ms),
            intelligence_sync_item_days: args
                .intelligence_sync_item_days
                .or(file.intelligence_sync_item_days),
        };
        let limits = file.limits.unwrap_or_default();
        if args.dev {
            let data_dir = data_dir.unwrap_or_else(|| DEV_DATA_DIR.into());
            return Ok(Self {
                listen,
                state_url: state_url_of(state_url.as_deref(), &data_dir)?,
                data_dir,
                public_url,
                mcp_allowed_hosts,
                mcp_allowed_origins,
                upstream,
                limits,
            });
        }
        let mut missing = Vec::new();
        if data_dir.is_none() {
            missing.push("data_dir (--data-dir, PARTNER_DATA_DIR or data_dir in the config file)");
        }
        if public_url.is_none() {
            missing.push(
                "public_url (--public-url, PARTNER_PUBLIC_URL or public_url in the config file)",
            );
        }
        if !missing.is_empty() {
            return Err(format!(
                "the server cannot start without configuration:\n  missing {}\nTo try the product with no configuration, run `partner-platform server --dev`.",
                missing.join("\n  missing ")
            ));
        }
        let public_url = public_url.map(|u| u.trim_end_matches('/').to_owned());
        if let Some(u) = &public_url
            && !(u.starts_with("http://") || u.starts_with("https://"))
        {
            return Err(format!(
                "public_url '{u}' must start with http:// or https://"
            ));
        }
        let data_dir = data_dir.expect("checked");
        Ok(Self {
            listen,
            state_url: state_url_of(state_url.as_deref(), &data_dir)?,
            data_dir,
            public_url,
            mcp_allowed_hosts,
            mcp_allowed_origins,
            upstream,
            limits,
        })
    }

    /// The marketplace upstream and the sealing key, when an LWA app is configured.
    pub fn upstream(
        &self,
    ) -> pp_core::Result<Option<(pp_marketplace::Upstream, pp_marketplace::Sealer)>> {
        let u = &self.upstream;
        let Some(client_id) = u.client_id.clone() else {
            return Ok(None);
        };
        let missing = |what: &str| {
            pp_core::Error::new(
                pp_core::Kind::BadParams,
                format!("lwa_client_id is set, so {what} is needed too"),
            )
        };
        let client_secret = u
            .client_secret
            .clone()
            .ok_or_else(|| missing("lwa_client_secret"))?;
        let sealer = pp_marketplace::Sealer::from_hex(
            u.secret_key
                .as_deref()
                .ok_or_else(|| missing("secret_key (64 hex characters)"))?,
        )?;
        let token_url = u
            .token_url
            .clone()
            .unwrap_or_else(|| "https://api.amazon.com/auth/o2/token".into());
        // one configured token URL serves every region, unless the regions are spelled out
        let ads_token_urls = match (&u.ads_token_urls, &u.token_url) {
            (Some(r), _) => r.clone(),
            (None, Some(one)) => pp_marketplace::Regional::same(one),
            (None, None) => pp_marketplace::Regional::provider_ads_token_urls(),
        };
        let defaults = pp_marketplace::Consent::default();
        let consent = pp_marketplace::Consent {
            application_id: u.sp_application_id.clone(),
            draft: u.sp_application_draft.unwrap_or(false),
            seller_urls: u
                .seller_consent_urls
                .clone()
                .unwrap_or(defaults.seller_urls),
            ads_urls: u.ads_authorize_urls.clone().unwrap_or(defaults.ads_urls),
        };
        Ok(Some((
            pp_marketplace::Upstream {
                kind: "provider".into(),
                token_url,
                ads_token_urls,
                consent,
                spapi_url: u
                    .spapi_url
                    .clone()
                    .unwrap_or_else(|| pp_marketplace::Upstream::PROVIDER_SPAPI_URL.into()),
                ads_url: u
                    .ads_url
                    .clone()
                    .unwrap_or_else(|| pp_marketplace::Upstream::PROVIDER_ADS_URL.into()),
                client_id,
                client_secret,
            },
            sealer,
        )))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        server: ServerArgs,
    }

    /// The upstream a config file (and `extra` flags) resolve to.
    fn upstream(toml: &str, extra: &[&str]) -> pp_marketplace::Upstream {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.toml");
        std::fs::write(&file, toml).unwrap();
        let mut argv = vec!["pp", "--config", file.to_str().unwrap()];
        argv.extend_from_slice(extra);
        let cli = Cli::try_parse_from(argv).unwrap();
        let cfg = Config::resolve(&cli.server).unwrap();
        cfg.upstream().unwrap().unwrap().0
    }

    const APP: &str = "data_dir = \"/tmp/pp\"\npublic_url = \"https://gw.example\"\nlwa_client_id = \"amzn1.application-oa2-client.x\"\nlwa_client_secret = \"s\"\nsecret_key = \"abababababababababababababababababababababababababababababababab\"\n";

    #[test]
    fn the_provider_regions_are_the_default_consent_pages_and_token_endpoints() {
        let u = upstream(APP, &[]);
        assert_eq!(
            u.ads_token_urls.of("eu").unwrap(),
            "https://api.amazon.co.uk/auth/o2/token"
        );
        assert_eq!(
            u.consent.ads_urls.of("fe").unwrap(),
            "https://apac.account.amazon.com/ap/oa"
        );
        assert_eq!(u.consent.application_id, None);
        assert!(!u.consent.draft);
    }

    #[test]
    fn one_token_url_serves_every_region_unless_the_regions_are_spelled_out() {
        let u = upstream(APP, &["--lwa-token-url", "http://sim.test/auth/o2/token"]);
        assert_eq!(
            u.ads_token_urls.of("fe").unwrap(),
            "http://sim.test/auth/o2/token"
        );
        let spelled = format!(
            "{APP}sp_application_id = \"amzn1.sp.solution.1\"\nsp_application_draft = true\nlwa_token_url = \"http://one.test/t\"\n[ads_token_urls]\nna = \"http://na.test/t\"\neu = \"http://eu.test/t\"\nfe = \"http://fe.test/t\"\n[seller_consent_urls]\nna = \"http://na.test/c\"\neu = \"http://eu.test/c\"\nfe = \"http://fe.test/c\"\n"
        );
        let u = upstream(&spelled, &[]);
        assert_eq!(u.token_url, "http://one.test/t");
        assert_eq!(u.ads_token_urls.of("eu").unwrap(), "http://eu.test/t");
        assert_eq!(u.consent.seller_urls.of("fe").unwrap(), "http://fe.test/c");
        assert_eq!(
            u.consent.application_id.as_deref(),
            Some("amzn1.sp.solution.1")
        );
        assert!(u.consent.draft);
    }

    #[test]
    fn a_region_table_missing_a_region_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.toml");
        std::fs::write(
            &file,
            format!("{APP}[ads_token_urls]\nna = \"http://na.test/t\"\n"),
        )
        .unwrap();
        let e = read_file(&file).err().unwrap();
        assert!(e.contains("eu"), "{e}");
    }
}

//! Server configuration. Every setting is declared once, as a field of [`Settings`]: its doc
//! comment is the flag's help, clap's attribute names its flag, its environment variable and
//! its default, and the field's name is its key in the TOML file. A setting comes from the
//! first place that has it: flag, environment, the file named by `--config`, its default
//! (`docs/configuration.md`, whose table a test holds to these declarations). Secrets never
//! appear here in logs.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Args};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `partner-platform server`: how to start, and the settings.
#[derive(Args, Debug, Clone)]
pub struct ServerArgs {
    /// Zero-config demo: state under ./.partner-dev, a demo tenant, warehouse and credential.
    #[arg(long)]
    pub dev: bool,
    /// Dev only: the demo world's anchor day (YYYY-MM-DD) when it is first built; data runs
    /// through the day before. Default: today (UTC).
    #[arg(long, requires = "dev")]
    pub today: Option<chrono::NaiveDate>,
    /// A TOML file with any of the settings below (by the names of their flags, with `_` for
    /// `-`), the provider's regional URLs and `[limits]`.
    #[arg(long, env = "PARTNER_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub settings: Settings,
}

/// Every setting of the server, declared once each.
#[derive(Args, Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Address to listen on.
    #[arg(long, env = "PARTNER_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
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
    /// More `Host` names the MCP endpoints accept, comma-separated (`*`: any), e.g. the
    /// internal name a reverse proxy forwards to. The public URL's host and loopback always are.
    #[arg(long, env = "PARTNER_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub mcp_allowed_hosts: Vec<String>,
    /// More browser `Origin`s allowed to call the MCP endpoints, comma-separated (`*`: any).
    #[arg(long, env = "PARTNER_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub mcp_allowed_origins: Vec<String>,
    /// 64 hex characters: the key that seals connected merchants' refresh tokens and webhook
    /// signing secrets.
    #[arg(long, env = "PARTNER_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,
    /// Host names webhooks may be sent to although they resolve to a loopback, private or
    /// link-local address, comma-separated (an internal receiver the operator trusts).
    #[arg(long, env = "PARTNER_WEBHOOK_ALLOW_HOSTS", value_delimiter = ',')]
    pub webhook_allow_hosts: Vec<String>,
    /// The proxy webhooks go out through (`http://host:port`), when deliveries must leave
    /// through the operator's egress proxy. The environment's proxy variables are never used
    /// for webhooks.
    #[arg(long, env = "PARTNER_WEBHOOK_PROXY")]
    pub webhook_proxy: Option<String>,
    /// Requires this initial access token of clients that register themselves (RFC 7591, docs/auth.md:
    /// `Authorization: Bearer <token>` on `/oauth/register`); without it anyone may register.
    #[arg(long, env = "PARTNER_REGISTRATION_TOKEN", hide_env_values = true)]
    pub registration_token: Option<String>,
    /// The SQS endpoint of the gateway's Marketing Stream queues
    /// (`https://sqs.us-east-1.amazonaws.com`): setting it switches the stream consumer on.
    #[arg(long, env = "PARTNER_STREAM_SQS_ENDPOINT")]
    pub stream_sqs_endpoint: Option<String>,
    /// The region the stream queues' requests are signed for (default us-east-1).
    #[arg(long, env = "PARTNER_STREAM_SQS_REGION")]
    pub stream_sqs_region: Option<String>,
    /// The access key id of the stream queues' AWS key.
    #[arg(long, env = "PARTNER_STREAM_SQS_ACCESS_KEY_ID")]
    pub stream_sqs_access_key_id: Option<String>,
    /// The secret of the stream queues' AWS key.
    #[arg(
        long,
        env = "PARTNER_STREAM_SQS_SECRET_ACCESS_KEY",
        hide_env_values = true
    )]
    pub stream_sqs_secret_access_key: Option<String>,
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
    /// File only: the application is a draft, so its consent page is opened with
    /// `version=beta` (default false).
    #[arg(skip)]
    pub sp_application_draft: Option<bool>,
    /// File only: LWA's token endpoints for advertising grants, `{ na, eu, fe }`.
    #[arg(skip)]
    pub ads_token_urls: Option<pp_marketplace::Regional>,
    /// File only: the selling-side consent pages, `{ na, eu, fe }`.
    #[arg(skip)]
    pub seller_consent_urls: Option<pp_marketplace::Regional>,
    /// File only: Login with Amazon's authorization pages for advertising, `{ na, eu, fe }`.
    #[arg(skip)]
    pub ads_authorize_urls: Option<pp_marketplace::Regional>,
    /// The selling-side API's base URL.
    #[arg(long, env = "PARTNER_SPAPI_URL")]
    pub spapi_url: Option<String>,
    /// The advertising API's base URL.
    #[arg(long, env = "PARTNER_ADS_URL")]
    pub ads_url: Option<String>,
    /// Pace calls to the provider's usage plans. Switch off only against a provider without
    /// limits, such as `sim --no-rate-limits` in a benchmark.
    #[arg(long, env = "PARTNER_UPSTREAM_PACING", default_value_t = true, action = ArgAction::Set)]
    pub upstream_pacing: bool,
    /// Milliseconds between a pricing run's provider batches (default: the provider's pace,
    /// the operation's usage plan, about 30 s for either family).
    #[arg(long, env = "PARTNER_PRICING_SPACING_MS")]
    pub pricing_spacing_ms: Option<u64>,
    /// Milliseconds one provider call may take before it counts as failed; also a report
    /// create's whole deadline.
    #[arg(long, env = "PARTNER_UPSTREAM_TIMEOUT_MS", default_value_t = 20_000)]
    pub upstream_timeout_ms: u64,
    /// Milliseconds a provider read may take in all, retries included.
    #[arg(
        long,
        env = "PARTNER_UPSTREAM_READ_DEADLINE_MS",
        default_value_t = 30_000
    )]
    pub upstream_read_deadline_ms: u64,
    /// Job workers in this process (a tenant runs at most half of them at once).
    #[arg(long, env = "PARTNER_JOB_WORKERS", default_value_t = 4)]
    pub job_workers: usize,
    /// Milliseconds a worker holds a job step (at least 1000): a job whose instance died is
    /// taken up by another this long after its last renewal.
    #[arg(long, env = "PARTNER_JOB_LEASE_MS", default_value_t = 30_000)]
    pub job_lease_ms: u64,
    /// Listing text writes (title, bullets …) for the whole service; false answers every such
    /// write `listings_write_disabled`.
    #[arg(long, env = "PARTNER_LISTINGS_TEXT_WRITES", default_value_t = true, action = ArgAction::Set)]
    pub listings_text_writes: bool,
    /// Listing image writes for the whole service; false answers them
    /// `listings_media_write_disabled`.
    #[arg(long, env = "PARTNER_LISTINGS_MEDIA_WRITES", default_value_t = true, action = ArgAction::Set)]
    pub listings_media_writes: bool,
    /// Milliseconds between the image check's reads of a committed listing (at least 100).
    #[arg(long, env = "PARTNER_LISTINGS_MEDIA_POLL_MS", default_value_t = 15_000)]
    pub listings_media_poll_ms: u64,
    /// The most item-days (items × days read) a synchronous retail-backed intelligence run may
    /// cover; larger answers `account_too_large_use_async`.
    #[arg(
        long,
        env = "PARTNER_INTELLIGENCE_SYNC_ITEM_DAYS",
        default_value_t = 400_000
    )]
    pub intelligence_sync_item_days: i64,
    /// Warehouse sync: recent retail days every run re-reads (the provider restates them).
    #[arg(long, env = "PARTNER_SYNC_RESTATE_RETAIL_DAYS", default_value_t = 3)]
    pub sync_restate_retail_days: i64,
    /// Warehouse sync: recent advertising days every run re-reads (attribution settles over
    /// about 14 days).
    #[arg(long, env = "PARTNER_SYNC_RESTATE_ADS_DAYS", default_value_t = 14)]
    pub sync_restate_ads_days: i64,
    /// Warehouse sync: how many days back every managed tenant's sync reaches (35–1095; each
    /// dataset at most its provider lookback); a tenant's own schedule may set its own.
    /// Default: all the provider allows.
    #[arg(long, env = "PARTNER_SYNC_HISTORY_DAYS")]
    pub sync_history_days: Option<i64>,
    /// Warehouse sync: the UTC hour (0–23) each dataset's daily run starts.
    #[arg(long, env = "PARTNER_SYNC_DAILY_HOUR", default_value_t = 6)]
    pub sync_daily_hour: u32,
    /// Warehouse sync: milliseconds between looks at a report still being made (at least 50).
    #[arg(long, env = "PARTNER_SYNC_POLL_MS", default_value_t = 2_000)]
    pub sync_poll_ms: u64,
    /// File only: the abuse bounds (`[limits]`; docs/security.md).
    #[arg(skip)]
    pub limits: pp_server::Bounds,
}

/// The settings given on the command line or in the environment (they win over the file).
#[derive(Debug, Clone, Default)]
pub struct Given(BTreeSet<String>);

impl Given {
    /// The settings `matches` (the `server` command's) took from a flag or a variable.
    pub fn of(matches: &ArgMatches) -> Self {
        Self(
            matches
                .ids()
                .filter(|id| {
                    matches!(
                        matches.value_source(id.as_str()),
                        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
                    )
                })
                .map(|id| id.as_str().to_owned())
                .collect(),
        )
    }
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Data directory.
    pub data_dir: PathBuf,
    /// Where the state lives (the embedded store in the data directory by default).
    pub state_url: pp_store::StateUrl,
    /// Public base URL; `None` in dev mode means "derive from the bound address".
    pub public_url: Option<String>,
    /// Every setting, from its flag, variable, file key or default.
    pub settings: Settings,
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

/// `settings` with the file's keys laid over every setting no flag or variable gave; a key
/// that names no setting, or a value of the wrong shape, is refused by name.
fn with_file(settings: &Settings, given: &Given, path: &PathBuf) -> Result<Settings, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
    let bad = |e: &dyn std::fmt::Display| format!("config file {}: {e}", path.display());
    let file: Map<String, Value> = toml::from_str(&text).map_err(|e| bad(&e))?;
    let mut merged = match serde_json::to_value(settings).map_err(|e| bad(&e))? {
        Value::Object(m) => m,
        _ => unreachable!("settings serialize as a table"),
    };
    for (key, value) in file {
        if !merged.contains_key(&key) {
            return Err(bad(&format!("unknown key `{key}`")));
        }
        if !given.0.contains(&key) {
            merged.insert(key, value);
        }
    }
    serde_json::from_value(Value::Object(merged)).map_err(|e| bad(&e))
}

impl Config {
    /// Resolves flags, environment and file; refuses with a message naming what is missing.
    pub fn resolve(args: &ServerArgs, given: &Given) -> Result<Self, String> {
        let settings = match &args.config {
            Some(p) => with_file(&args.settings, given, p)?,
            None => args.settings.clone(),
        };
        let data_dir = settings.data_dir.clone();
        let public_url = settings.public_url.clone();
        if args.dev {
            let data_dir = data_dir.unwrap_or_else(|| DEV_DATA_DIR.into());
            return Ok(Self {
                state_url: state_url_of(settings.state_url.as_deref(), &data_dir)?,
                data_dir,
                public_url,
                settings,
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
        if let Some(d) = settings.sync_history_days {
            let (min, max) = (pp_sync::MIN_HISTORY_DAYS, pp_sync::MAX_HISTORY_DAYS);
            if !(min..=max).contains(&d) {
                return Err(format!("sync_history_days is {min} to {max} days, not {d}"));
            }
        }
        let data_dir = data_dir.expect("checked");
        Ok(Self {
            state_url: state_url_of(settings.state_url.as_deref(), &data_dir)?,
            data_dir,
            public_url,
            settings,
        })
    }

    /// How the job workers run.
    pub fn jobs(&self) -> pp_server::JobsConfig {
        let s = &self.settings;
        let workers = s.job_workers.max(1);
        pp_server::JobsConfig {
            pricing_spacing: pp_marketplace::pricing::Spacing(
                s.pricing_spacing_ms.map(std::time::Duration::from_millis),
            ),
            workers,
            // a tenant may hold half the workers, so another tenant always finds one free
            per_tenant: (workers / 2).max(1),
            lease: std::time::Duration::from_millis(s.job_lease_ms.max(1_000)),
            listings: self.listings(),
            intelligence: pp_intelligence::Settings {
                sync_item_days: s.intelligence_sync_item_days.max(1),
                ..Default::default()
            },
            sync: pp_sync::SyncSettings {
                restate_retail_days: s.sync_restate_retail_days.max(0),
                restate_ads_days: s.sync_restate_ads_days.max(0),
                daily_hour: s.sync_daily_hour.min(23),
                poll: std::time::Duration::from_millis(s.sync_poll_ms.max(50)),
                history_days: s.sync_history_days,
            },
            ..Default::default()
        }
    }

    /// Listing writes' configured switches and the image check's pace.
    pub fn listings(&self) -> pp_marketplace::service::ListingSettings {
        let s = &self.settings;
        pp_marketplace::service::ListingSettings {
            text_writes: s.listings_text_writes,
            media_writes: s.listings_media_writes,
            media_poll: std::time::Duration::from_millis(s.listings_media_poll_ms.max(100)),
            ..Default::default()
        }
    }

    /// The Marketing Stream consumer's queues, when an SQS endpoint is set; `confirm_origins`
    /// are where a subscription's confirmation may point besides the provider's SNS (the
    /// sandbox's, in dev).
    pub fn stream(
        &self,
        confirm_origins: &[String],
    ) -> pp_core::Result<Option<pp_sync::stream::StreamConfig>> {
        let s = &self.settings;
        let Some(endpoint) = &s.stream_sqs_endpoint else {
            return Ok(None);
        };
        let missing = |what: &str| {
            pp_core::Error::new(
                pp_core::Kind::BadParams,
                format!("stream_sqs_endpoint is set, so {what} is needed too"),
            )
        };
        let url = endpoint.parse().map_err(|e| {
            pp_core::Error::new(
                pp_core::Kind::BadParams,
                format!("stream_sqs_endpoint is not a URL: {e}"),
            )
        })?;
        let credentials = pp_sqs::Credentials {
            access_key_id: s
                .stream_sqs_access_key_id
                .clone()
                .ok_or_else(|| missing("stream_sqs_access_key_id"))?,
            secret_access_key: s
                .stream_sqs_secret_access_key
                .clone()
                .ok_or_else(|| missing("stream_sqs_secret_access_key"))?,
            session_token: None,
        };
        let endpoint = pp_sqs::Endpoint {
            url,
            region: s
                .stream_sqs_region
                .clone()
                .unwrap_or_else(|| "us-east-1".into()),
            credentials,
        };
        pp_sync::stream::StreamConfig::new(endpoint, confirm_origins).map(Some)
    }

    /// Timeouts, retries and pacing for the upstream client.
    pub fn policy(&self) -> pp_marketplace::Policy {
        let s = &self.settings;
        pp_marketplace::Policy {
            pacing: s.upstream_pacing,
            timeout: std::time::Duration::from_millis(s.upstream_timeout_ms),
            read_deadline: std::time::Duration::from_millis(s.upstream_read_deadline_ms),
            ..Default::default()
        }
    }

    /// How webhooks go out: `dev` allows every address (the dev server's own receivers).
    pub fn events(&self, dev: bool) -> pp_events::Settings {
        pp_events::Settings {
            dev,
            allow_hosts: self.settings.webhook_allow_hosts.clone(),
            proxy: self.settings.webhook_proxy.clone(),
            ..Default::default()
        }
    }

    /// The sealing key, when one is configured.
    pub fn sealer(&self) -> pp_core::Result<Option<pp_marketplace::Sealer>> {
        self.settings
            .secret_key
            .as_deref()
            .map(pp_marketplace::Sealer::from_hex)
            .transpose()
    }

    /// The marketplace upstream and the sealing key, when an LWA app is configured.
    pub fn upstream(
        &self,
    ) -> pp_core::Result<Option<(pp_marketplace::Upstream, pp_marketplace::Sealer)>> {
        let u = &self.settings;
        let Some(client_id) = u.lwa_client_id.clone() else {
            return Ok(None);
        };
        let missing = |what: &str| {
            pp_core::Error::new(
                pp_core::Kind::BadParams,
                format!("lwa_client_id is set, so {what} is needed too"),
            )
        };
        let client_secret = u
            .lwa_client_secret
            .clone()
            .ok_or_else(|| missing("lwa_client_secret"))?;
        let sealer = pp_marketplace::Sealer::from_hex(
            u.secret_key
                .as_deref()
                .ok_or_else(|| missing("secret_key (64 hex characters)"))?,
        )?;
        let token_url = u
            .lwa_token_url
            .clone()
            .unwrap_or_else(|| "https://api.amazon.com/auth/o2/token".into());
        // one configured token URL serves every region, unless the regions are spelled out
        let ads_token_urls = match (&u.ads_token_urls, &u.lwa_token_url) {
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
    use clap::{CommandFactory, FromArgMatches, Parser};

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        server: ServerArgs,
    }

    /// The configuration `argv` resolves to.
    fn resolved(argv: &[&str]) -> Result<Config, String> {
        let matches = Cli::command().try_get_matches_from(argv).unwrap();
        let cli = Cli::from_arg_matches(&matches).unwrap();
        Config::resolve(&cli.server, &Given::of(&matches))
    }

    /// The upstream a config file (and `extra` flags) resolve to.
    fn upstream(toml: &str, extra: &[&str]) -> pp_marketplace::Upstream {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.toml");
        std::fs::write(&file, toml).unwrap();
        let mut argv = vec!["pp", "--config", file.to_str().unwrap()];
        argv.extend_from_slice(extra);
        resolved(&argv).unwrap().upstream().unwrap().unwrap().0
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
        let e = resolved(&["pp", "--config", file.to_str().unwrap()]).unwrap_err();
        assert!(e.contains("eu"), "{e}");
    }

    #[test]
    fn a_flag_wins_over_the_file_and_the_file_over_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.toml");
        std::fs::write(
            &file,
            format!("{APP}job_workers = 9\njob_lease_ms = 5000\nupstream_pacing = false\n[limits]\nmax_connections = 7\n"),
        )
        .unwrap();
        let path = file.to_str().unwrap();
        let cfg = resolved(&["pp", "--config", path, "--job-workers", "2"]).unwrap();
        let s = &cfg.settings;
        assert_eq!(s.job_workers, 2, "the flag");
        assert_eq!(s.job_lease_ms, 5000, "the file");
        assert!(!s.upstream_pacing, "the file");
        assert_eq!(s.upstream_timeout_ms, 20_000, "the default");
        assert_eq!(s.limits.max_connections, 7, "the file's [limits]");
        assert_eq!(
            s.limits.credential_burst, 1_000,
            "a bound the file left out"
        );
        std::fs::write(&file, format!("{APP}job_wokers = 9\n")).unwrap();
        let e = resolved(&["pp", "--config", path]).unwrap_err();
        assert!(e.contains("job_wokers"), "{e}");
    }

    /// The table of `docs/configuration.md`: setting, flag, environment, TOML key, default.
    fn documented() -> Vec<Vec<String>> {
        let page = include_str!("../../../docs/configuration.md");
        page.lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| setting"))
            .map(|l| {
                let cells: Vec<String> = l.split(" | ").map(|c| c.trim().to_owned()).collect();
                assert_eq!(cells.len(), 5, "a row of five cells: {l}");
                cells
            })
            .collect()
    }

    #[test]
    fn the_configuration_page_states_every_setting_as_declared() {
        let rows = documented();
        let command = Cli::command();
        let mut declared = BTreeSet::new();
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            let Some(long) = arg.get_long() else { continue };
            if ["dev", "today"].contains(&id) {
                continue;
            }
            let flag = format!("`--{long}`");
            let row = rows
                .iter()
                .find(|r| r[1].starts_with(&flag))
                .unwrap_or_else(|| panic!("docs/configuration.md has no row for {flag}"));
            let env = arg.get_env().expect("every setting has a variable");
            assert_eq!(row[2], format!("`{}`", env.to_string_lossy()), "{flag}");
            let key = if id == "config" {
                "—".to_owned()
            } else {
                format!("`{id}`")
            };
            assert!(
                row[3].starts_with(&key),
                "{flag}: TOML key {} is not {key}",
                row[3]
            );
            if let Some(default) = arg.get_default_values().first() {
                let default = format!("`{}`", default.to_string_lossy());
                assert!(
                    row[4].starts_with(&default),
                    "{flag}: default {} is not {default}",
                    row[4]
                );
            }
            declared.insert(flag);
        }
        // every flag the page names is declared
        for row in rows.iter().filter(|r| r[1].starts_with("`--")) {
            let flag = row[1].split_whitespace().next().unwrap();
            assert!(
                declared.contains(flag),
                "{flag} is documented but not declared"
            );
        }
        // the file-only settings have a row of their own, by key
        let defaults = Cli::try_parse_from(["pp"]).unwrap().server.settings;
        let keys = match serde_json::to_value(&defaults).unwrap() {
            Value::Object(m) => m.keys().cloned().collect::<Vec<_>>(),
            _ => unreachable!(),
        };
        for key in keys {
            let named = rows.iter().any(|r| {
                r[3].contains(&format!("`{key}`")) || r[3].contains(&format!("`[{key}]`"))
            });
            assert!(
                named,
                "the TOML key {key} has no row in docs/configuration.md"
            );
        }
    }
}

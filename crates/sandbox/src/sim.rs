//! The sandbox as one value: its configuration, the world it serves, its own state, the
//! fault rules, the rate limiter and the call counters. On first start it registers an LWA
//! app and one selling-side and one advertising grant per merchant of the world, and writes
//! their secrets to `sandbox-credentials.json` (mode 0600) — the store keeps only hashes.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::{Value, json};

use crate::error::SimError;
use crate::faults::Faults;
use crate::gate::Calls;
use crate::limits::Limits;
use crate::store::{Store, hash, random_hex};
use crate::world::World;

/// How a sandbox runs.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Where `sandbox.sqlite` and `sandbox-credentials.json` live.
    pub data_dir: PathBuf,
    /// The world's `warehouse.sqlite`.
    pub world: PathBuf,
    /// The URL clients reach the sandbox at (document URLs are built on it).
    pub public_url: String,
    /// Lifetime of LWA access tokens.
    pub access_token_ttl_secs: u64,
    /// Time from a report's creation to its last state.
    pub report_ms: u64,
    /// Lifetime of presigned document URLs.
    pub document_ttl_secs: u64,
    /// Seed of the fault rules' random choices.
    pub seed: u64,
    /// Whether usage plans are enforced.
    pub rate_limits: bool,
    /// The redirect URIs registered for the app: the consent pages send a seller or an
    /// advertiser back only to one of these (the gateway's callback).
    pub redirect_uris: Vec<String>,
}

impl SimConfig {
    /// Defaults for a world file and a data folder.
    pub fn new(world: PathBuf, data_dir: PathBuf, public_url: &str) -> Self {
        Self {
            data_dir,
            world,
            public_url: public_url.trim_end_matches('/').to_owned(),
            access_token_ttl_secs: 3600,
            report_ms: 1500,
            document_ttl_secs: 300,
            seed: 1,
            rate_limits: true,
            redirect_uris: Vec::new(),
        }
    }
}

/// The running sandbox.
pub struct Sim {
    pub config: SimConfig,
    /// The world served now: the configured one, or the same world moved forward
    /// (`crate::advance`).
    world: RwLock<Arc<World>>,
    pub store: Store,
    pub faults: Faults,
    pub limits: Limits,
    pub calls: Calls,
    /// Signs presigned document URLs.
    pub url_key: Vec<u8>,
}

impl Sim {
    /// Opens the world and the state, registering the app and grants on first start.
    pub fn open(config: SimConfig) -> Result<Self, SimError> {
        let world = crate::advance::current(&config)?;
        let store = Store::open(&config.data_dir)?;
        let sim = Self {
            faults: Faults::new(config.seed),
            limits: Limits::new(config.rate_limits),
            calls: Calls::default(),
            url_key: random_hex(32).into_bytes(),
            config,
            world: RwLock::new(Arc::new(world)),
            store,
        };
        sim.bootstrap()?;
        Ok(sim)
    }

    /// The world served now.
    pub fn world(&self) -> Arc<World> {
        self.world.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Serves `world` from now on (the same world moved forward).
    pub(crate) fn replace_world(&self, world: World) {
        *self.world.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(world);
    }

    fn credentials_path(&self) -> PathBuf {
        self.config.data_dir.join("sandbox-credentials.json")
    }

    /// The app id and secret and each grant's refresh token, as written on first start,
    /// with the URLs of this run.
    pub fn credentials(&self) -> Result<Value, SimError> {
        let text = std::fs::read_to_string(self.credentials_path()).map_err(SimError::internal)?;
        let mut v: Value = serde_json::from_str(&text).map_err(SimError::internal)?;
        v["url"] = self.config.public_url.clone().into();
        v["token_url"] = format!("{}/auth/o2/token", self.config.public_url).into();
        v["application_id"] = self.application_id()?.into();
        v["seller_consent_url"] =
            format!("{}/apps/authorize/consent", self.config.public_url).into();
        v["ads_authorize_url"] = format!("{}/ap/oa", self.config.public_url).into();
        Ok(v)
    }

    /// The app's selling-partner application id (what the seller consent page is opened
    /// with), derived from its LWA client id.
    pub fn application_id(&self) -> Result<String, SimError> {
        let client_id: String = self
            .store
            .with(|c| c.query_row("SELECT client_id FROM app", [], |r| r.get(0)))?;
        let h = hash(&client_id);
        Ok(format!(
            "amzn1.sp.solution.{}-{}-{}-{}-{}",
            &h[0..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..32]
        ))
    }

    fn bootstrap(&self) -> Result<(), SimError> {
        let have: i64 = self
            .store
            .with(|c| c.query_row("SELECT COUNT(*) FROM app", [], |r| r.get(0)))?;
        if have > 0 && self.credentials_path().exists() {
            return Ok(());
        }
        let client_id = format!("amzn1.application-oa2-client.{}", random_hex(16));
        let secret = format!("amzn1.oa2-cs.v1.{}", random_hex(32));
        let mut merchants = Vec::new();
        let mut advertising = Vec::new();
        let world = self.world();
        let sellers = world.sellers()?;
        // merchants in the order of their first seller row
        let mut tokens: Vec<&str> = Vec::new();
        for s in &sellers {
            if !tokens.contains(&s.token.as_str()) {
                tokens.push(&s.token);
            }
        }
        let mut grants = Vec::new();
        for token in tokens {
            let rows: Vec<_> = sellers.iter().filter(|s| s.token == token).collect();
            let sp = format!("Atzr|{}", random_hex(32));
            let ads = format!("Atzr|{}", random_hex(32));
            merchants.push(json!({
                "merchant": token,
                "name": rows[0].name,
                "account_type": rows[0].account_type,
                "marketplaces": rows.iter().map(|s| s.marketplace_id.clone()).collect::<Vec<_>>(),
                "refresh_token": sp,
            }));
            let profiles = world.rows(
                "SELECT ProfileID FROM ads_profile WHERE MarketplaceSellerID = ?1 ORDER BY ProfileID",
                &[&token],
            )?;
            advertising.push(json!({
                "account": token,
                "profiles": profiles.iter().map(|p| p["ProfileID"].clone()).collect::<Vec<_>>(),
                "refresh_token": ads,
            }));
            grants.push(("seller", token.to_owned(), sp));
            grants.push(("ads", token.to_owned(), ads));
        }
        self.store.with(|c| {
            let tx = c.unchecked_transaction()?;
            tx.execute("DELETE FROM app", [])?;
            tx.execute("DELETE FROM grants", [])?;
            tx.execute(
                "INSERT INTO app (client_id, secret_hash) VALUES (?1, ?2)",
                rusqlite::params![client_id, hash(&secret)],
            )?;
            for (kind, subject, token) in &grants {
                tx.execute(
                    "INSERT INTO grants (token_hash, kind, subject) VALUES (?1, ?2, ?3)",
                    rusqlite::params![hash(token), kind, subject],
                )?;
            }
            tx.commit()
        })?;
        let doc = json!({
            "client_id": client_id,
            "client_secret": secret,
            "merchants": merchants,
            "advertising": advertising,
        });
        write_private(
            &self.credentials_path(),
            &serde_json::to_string_pretty(&doc).unwrap_or_default(),
        )
    }

    /// Whether `client_id` and `secret` are the sandbox's LWA app.
    pub fn app_matches(&self, client_id: &str, secret: &str) -> Result<bool, SimError> {
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM app WHERE client_id = ?1 AND secret_hash = ?2",
                    rusqlite::params![client_id, hash(secret)],
                    |r| r.get::<_, i64>(0),
                )
            })
            .map(|n| n > 0)
    }

    /// Whether `secret` is the app's client secret (it also guards `/__sandbox`).
    pub fn is_app_secret(&self, secret: &str) -> bool {
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM app WHERE secret_hash = ?1",
                    [hash(secret)],
                    |r| r.get::<_, i64>(0),
                )
            })
            .is_ok_and(|n| n > 0)
    }

    /// Whether `client_id` is the sandbox's LWA app.
    pub fn is_app(&self, client_id: &str) -> bool {
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM app WHERE client_id = ?1",
                    [client_id],
                    |r| r.get::<_, i64>(0),
                )
            })
            .is_ok_and(|n| n > 0)
    }

    /// Revokes (or restores) every grant of `subject`; revoking also ends its access tokens.
    pub fn set_revoked(&self, subject: &str, revoked: bool) -> Result<usize, SimError> {
        self.store.with(|c| {
            let n = c.execute(
                "UPDATE grants SET revoked = ?2 WHERE subject = ?1",
                rusqlite::params![subject, revoked as i64],
            )?;
            if revoked {
                c.execute("DELETE FROM access_tokens WHERE subject = ?1", [subject])?;
            }
            Ok(n)
        })
    }

    /// Marks `subject`'s authorization lapsed (calls answer 403) or restores it.
    pub fn set_lapsed(&self, subject: &str, lapsed: bool) -> Result<(), SimError> {
        self.store.with(|c| {
            if lapsed {
                c.execute(
                    "INSERT OR IGNORE INTO lapsed (subject) VALUES (?1)",
                    [subject],
                )?;
            } else {
                c.execute("DELETE FROM lapsed WHERE subject = ?1", [subject])?;
            }
            Ok(())
        })
    }

    /// Whether `subject`'s authorization has lapsed.
    pub fn is_lapsed(&self, subject: &str) -> bool {
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM lapsed WHERE subject = ?1",
                    [subject],
                    |r| r.get::<_, i64>(0),
                )
            })
            .is_ok_and(|n| n > 0)
    }
}

fn write_private(path: &std::path::Path, text: &str) -> Result<(), SimError> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).map_err(SimError::internal)?;
    f.write_all(text.as_bytes()).map_err(SimError::internal)
}

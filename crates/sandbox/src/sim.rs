//! The sandbox as one value: its configuration, the world it serves, its own state, the
//! fault rules, the rate limiter and the call counters. On first start it registers an LWA
//! app and one selling-side and one advertising grant per merchant of the world, and writes
//! their secrets to `sandbox-credentials.json` (mode 0600) — the store keeps only hashes.
//! Every method of `Sim` is here (its LWA grants and tokens, reports, documents and the product
//! type's version among them); the modules that serve those routes call them.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::{Value, json};

use crate::documents::hmac;
use crate::error::SimError;
use crate::faults::Faults;
use crate::gate::Calls;
use crate::limits::Limits;
use crate::lwa::{Caller, Granted};
use crate::reports::{COLS, ReportRow, now_ms, row};
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
    /// Days of hours a new stream subscription is sent before the world's today (the world is
    /// made at once; a real stream starts at the subscription).
    pub stream_backfill_days: i64,
    /// The SQS endpoint streams deliver to when a subscription's queue is not one of the
    /// sandbox's own (`crate::sqs`): an SQS server and its key.
    pub stream_sqs: Option<pp_sqs::Endpoint>,
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
            stream_backfill_days: 28,
            stream_sqs: None,
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
    /// Every stream delivery stopped, new subscriptions' too (`/__sandbox/streams`).
    pub streams_paused: std::sync::atomic::AtomicBool,
    /// One stream delivery at a time: a day's messages never interleave or repeat.
    pub(crate) pumping: tokio::sync::Mutex<()>,
    /// The client of `config.stream_sqs`, made once.
    pub(crate) stream_sqs: Option<pp_sqs::Client>,
}

/// The client of the SQS endpoint streams deliver to, when one is configured.
fn stream_client(config: &SimConfig) -> Result<Option<pp_sqs::Client>, SimError> {
    let Some(endpoint) = &config.stream_sqs else {
        return Ok(None);
    };
    // reqwest is built without a crypto provider: ring is the process's (a no-op once set)
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(SimError::internal)?;
    Ok(Some(pp_sqs::Client::new(http, endpoint.clone())))
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
            streams_paused: std::sync::atomic::AtomicBool::new(false),
            pumping: tokio::sync::Mutex::new(()),
            stream_sqs: stream_client(&config)?,
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
        let key = crate::sqs::key(self)?;
        v["sqs"] = json!({
            "endpoint": format!("{}/sqs", self.config.public_url),
            "region": crate::sqs::REGION,
            "account": crate::sqs::ACCOUNT,
            "access_key_id": key.access_key_id,
            "secret_access_key": key.secret_access_key,
        });
        Ok(v)
    }

    /// The app's selling-partner application id (what the seller consent page is opened
    /// with), derived from its LWA client id.
    pub fn application_id(&self) -> Result<String, SimError> {
        let client_id: String = self
            .store
            .with(|c| c.query_row("SELECT client_id FROM app", [], |r| r.get(0)))?;
        Ok(format!(
            "amzn1.sp.solution.{}",
            crate::store::uuid_of(&hash(&client_id))
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

    // LWA's grants, codes and access tokens (`lwa.rs` serves the token endpoint)

    /// The live grant a refresh token names.
    pub(crate) fn grant(&self, refresh: &str) -> Result<Granted, SimError> {
        let found = self.store.with(|c| {
            c.query_row(
                "SELECT kind, subject FROM grants WHERE token_hash = ?1 AND revoked = 0",
                [hash(refresh)],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
        })?;
        Ok(found.map(|(k, s)| (k, s, refresh.to_owned())))
    }

    /// Spends an authorization code (once, unexpired, for the redirect URI it was made for)
    /// on a new grant: its kind, subject and new refresh token.
    pub(crate) fn redeem_code(&self, code: &str, redirect_uri: &str) -> Result<Granted, SimError> {
        let now = chrono::Utc::now().timestamp();
        let refresh = format!("Atzr|{}", random_hex(48));
        self.store.with(|c| {
            let tx = c.unchecked_transaction()?;
            let spent = tx
                .query_row(
                    "UPDATE codes SET used = 1 WHERE code_hash = ?1 AND used = 0 AND expires_at > ?2
                     RETURNING kind, subject, redirect_uri",
                    rusqlite::params![hash(code), now],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
                )
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })?;
            // a code is spent by its first exchange, whatever that exchange's fate
            let granted = match spent {
                Some((kind, subject, uri)) if uri == redirect_uri => {
                    tx.execute(
                        "INSERT INTO grants (token_hash, kind, subject) VALUES (?1, ?2, ?3)",
                        rusqlite::params![hash(&refresh), kind, subject],
                    )?;
                    Some((kind, subject, refresh))
                }
                _ => None,
            };
            tx.commit()?;
            Ok(granted)
        })
    }

    /// The caller an unexpired access token of `kind` speaks for.
    pub fn caller(&self, token: &str) -> Option<Caller> {
        let now = chrono::Utc::now().timestamp();
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT kind, subject FROM access_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                    rusqlite::params![hash(token), now],
                    |r| Ok(Caller { kind: r.get(0)?, subject: r.get(1)? }),
                )
            })
            .ok()
    }

    // Selling-side reports (`reports.rs`: their rows and states)

    /// Stores a new report of `family` for `owner`.
    pub fn create_report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
        key: &str,
        request: &Value,
        fatal: bool,
    ) -> Result<ReportRow, SimError> {
        let created = now_ms();
        let r = ReportRow {
            id: id.to_owned(),
            created_ms: created,
            ready_ms: created + self.config.report_ms as i64,
            outcome: if fatal { "fatal" } else { "done" }.into(),
            request: request.clone(),
            document: None,
        };
        self.store.with(|c| {
            c.execute(
                "INSERT INTO reports (id, family, owner, request_key, created_at, ready_at, outcome, request) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![r.id, family, owner, key, r.created_ms, r.ready_ms, r.outcome, request.to_string()],
            )
        })?;
        Ok(r)
    }

    /// Records a report the provider made by itself (a scheduled one), done at `at_ms`;
    /// nothing when it is recorded already.
    pub fn schedule_report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
        request: &Value,
        at_ms: i64,
    ) -> Result<(), SimError> {
        self.store.with(|c| {
            c.execute(
                "INSERT INTO reports (id, family, owner, request_key, created_at, ready_at, outcome, request)
                 VALUES (?1, ?2, ?3, ?1, ?4, ?4, 'done', ?5) ON CONFLICT DO NOTHING",
                rusqlite::params![id, family, owner, at_ms, request.to_string()],
            )
        })?;
        Ok(())
    }

    /// `owner`'s report `id` of `family`.
    pub fn report(
        &self,
        family: &str,
        owner: &str,
        id: &str,
    ) -> Result<Option<ReportRow>, SimError> {
        self.store.with(|c| {
            c.query_row(
                &format!("SELECT {COLS} FROM reports WHERE family = ?1 AND owner = ?2 AND id = ?3"),
                rusqlite::params![family, owner, id],
                row,
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
        })
    }

    /// `owner`'s reports of `family`, newest first; with `key`, only identical requests.
    pub fn reports(
        &self,
        family: &str,
        owner: &str,
        key: Option<&str>,
    ) -> Result<Vec<ReportRow>, SimError> {
        self.store.with(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLS} FROM reports WHERE family = ?1 AND owner = ?2 AND (?3 IS NULL OR request_key = ?3) ORDER BY created_at DESC, id DESC"
            ))?;
            let rows = st.query_map(rusqlite::params![family, owner, key], row)?;
            rows.collect()
        })
    }

    /// How many reports the provider holds, by family (what a duplicate create would add to).
    pub fn report_counts(&self) -> Result<Vec<(String, i64)>, SimError> {
        self.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT family, count(*) FROM reports GROUP BY family ORDER BY family",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })
    }

    /// Records the document built for report `id`, unless another look built one first
    /// (two looks at a report made at once both build it; the provider has one document a
    /// report): the document the report has, the loser's dropped.
    pub fn set_report_document(&self, id: &str, document: &str) -> Result<String, SimError> {
        self.store.with(|c| {
            c.execute(
                "UPDATE reports SET document = ?2 WHERE id = ?1 AND document IS NULL",
                rusqlite::params![id, document],
            )?;
            let kept: String = c.query_row(
                "SELECT document FROM reports WHERE id = ?1",
                rusqlite::params![id],
                |r| r.get(0),
            )?;
            if kept != document {
                c.execute(
                    "DELETE FROM documents WHERE id = ?1",
                    rusqlite::params![document],
                )?;
            }
            Ok(kept)
        })
    }

    /// Cancels report `id` (only while it runs); whether it was.
    pub fn cancel_report(&self, r: &ReportRow) -> Result<bool, SimError> {
        if !r.in_flight(now_ms()) {
            return Ok(false);
        }
        self.store.with(|c| {
            c.execute(
                "UPDATE reports SET outcome = 'cancelled' WHERE id = ?1",
                [&r.id],
            )
        })?;
        Ok(true)
    }

    // The product type definitions' version (`spapi/definitions.rs`)

    /// The current `PRODUCT` schema version (`U1`, `U2` …).
    pub fn product_type_version(&self) -> Result<String, SimError> {
        let n: i64 = self.store.with(|c| {
            c.query_row(
                "SELECT COALESCE((SELECT value FROM counters WHERE name = 'ptd-version'), 1)",
                [],
                |r| r.get(0),
            )
        })?;
        Ok(format!("U{n}"))
    }

    /// Moves the schema version on; the new version.
    pub fn bump_product_type(&self) -> Result<String, SimError> {
        self.store.next("ptd-version", 1)?;
        self.product_type_version()
    }

    // Report documents and their presigned URLs (`documents.rs` serves them)

    /// Stores a document; its id.
    pub fn put_document(
        &self,
        content_type: &str,
        gzipped: bool,
        body: &[u8],
    ) -> Result<String, SimError> {
        let id = format!("amzn1.tortuga.4.na.{}", random_hex(12));
        self.store.with(|c| {
            c.execute(
                "INSERT INTO documents (id, content_type, gzip, body) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![id, content_type, gzipped as i64, body],
            )
        })?;
        Ok(id)
    }

    /// A presigned URL for document `id` and the unix time it expires.
    pub fn presign(&self, id: &str) -> (String, i64) {
        let expires = chrono::Utc::now().timestamp() + self.config.document_ttl_secs as i64;
        let sig = hmac(&self.url_key, format!("{id}\n{expires}").as_bytes());
        (
            format!(
                "{}/__documents/{id}?X-Amz-Expires={expires}&X-Amz-Signature={sig}",
                self.config.public_url
            ),
            expires,
        )
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

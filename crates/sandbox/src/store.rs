//! The sandbox's own state, in `sandbox.sqlite` beside the world: the LWA app, refresh-token
//! grants (kept as SHA-256 hashes), access tokens, merchant authorizations, entities created
//! or changed through the API, reports, and the queues of its SQS endpoint (`crate::sqs`) with
//! the key that signs for them (kept whole: a signature is checked with the secret itself).
//! The world's warehouse itself is never written.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::SimError;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS app (client_id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grants (
    token_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS grants_subject ON grants (subject);
CREATE TABLE IF NOT EXISTS codes (
    code_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL,
    redirect_uri TEXT NOT NULL, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS access_tokens (
    token_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL,
    grant_hash TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lapsed (subject TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS entities (
    kind TEXT NOT NULL, id TEXT NOT NULL, owner TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (kind, id));
CREATE TABLE IF NOT EXISTS reports (
    id TEXT PRIMARY KEY, family TEXT NOT NULL, owner TEXT NOT NULL, request_key TEXT NOT NULL,
    created_at INTEGER NOT NULL, ready_at INTEGER NOT NULL, outcome TEXT NOT NULL,
    request TEXT NOT NULL, document TEXT);
CREATE INDEX IF NOT EXISTS reports_dedupe ON reports (family, owner, request_key);
CREATE TABLE IF NOT EXISTS documents (id TEXT PRIMARY KEY, content_type TEXT NOT NULL, gzip INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sqs_key (access_key_id TEXT PRIMARY KEY, secret TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sqs_queues (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sqs_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, queue TEXT NOT NULL,
    body TEXT NOT NULL, sent_at INTEGER NOT NULL, visible_at INTEGER NOT NULL, receipt TEXT,
    receives INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS sqs_messages_ready ON sqs_messages (queue, visible_at, seq);
CREATE INDEX IF NOT EXISTS sqs_messages_receipt ON sqs_messages (receipt);
CREATE TABLE IF NOT EXISTS stream_subscriptions (
    id TEXT PRIMARY KEY, profile INTEGER NOT NULL, client_token TEXT NOT NULL,
    dataset TEXT NOT NULL, destination TEXT NOT NULL, notes TEXT NOT NULL, status TEXT NOT NULL,
    token TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    delivered_from TEXT, delivered_through TEXT, paused INTEGER NOT NULL DEFAULT 0, UNIQUE (profile, client_token));
CREATE TABLE IF NOT EXISTS notify_destinations (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, arn TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS notify_subscriptions (
    id TEXT PRIMARY KEY, seller TEXT NOT NULL, kind TEXT NOT NULL, destination TEXT NOT NULL,
    payload_version TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (seller, kind));
CREATE TABLE IF NOT EXISTS optimization_rules (
    id TEXT PRIMARY KEY, profile INTEGER NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
    created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS optimization_rule_campaigns (
    rule TEXT NOT NULL, campaign TEXT NOT NULL, profile INTEGER NOT NULL, created_at INTEGER NOT NULL,
    PRIMARY KEY (rule, campaign));
";

/// Brings a state file of an earlier sandbox up to this one before the schema runs: version 1
/// lets a merchant hold several grants of a kind (each consent makes one), which the first
/// schema's `UNIQUE (kind, subject)` refused.
fn upgrade(conn: &Connection) -> rusqlite::Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < 1 {
        let old: i64 = conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'grants'",
            [],
            |r| r.get(0),
        )?;
        if old > 0 {
            conn.execute_batch(
                "BEGIN;
                 CREATE TABLE grants_v1 (token_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
                 INSERT INTO grants_v1 SELECT token_hash, kind, subject, revoked FROM grants;
                 DROP TABLE grants;
                 ALTER TABLE grants_v1 RENAME TO grants;
                 COMMIT;",
            )?;
        }
        conn.execute_batch("PRAGMA user_version = 1")?;
    }
    Ok(())
}

/// The sandbox state store.
pub struct Store {
    conn: Mutex<Connection>,
}

/// SHA-256 of a secret, hex.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// `n` random bytes as lowercase hex.
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the OS random source works");
    hex::encode(buf)
}

/// The first 32 hex digits of `hex` in a UUID's groups (8-4-4-4-12).
pub fn uuid_of(hex: &str) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// A random UUID-shaped id.
pub fn random_uuid() -> String {
    uuid_of(&random_hex(16))
}

impl Store {
    /// Opens (creating) `<dir>/sandbox.sqlite`.
    pub fn open(dir: &Path) -> Result<Self, SimError> {
        // the sandbox keeps refresh tokens and app secrets: its owner's only
        let mut folder = std::fs::DirBuilder::new();
        folder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
        folder.create(dir).map_err(SimError::internal)?;
        let file = dir.join("sandbox.sqlite");
        if !file.exists() {
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
            opts.open(&file).map_err(SimError::internal)?;
        }
        let conn = Connection::open(file).map_err(SimError::internal)?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .map_err(SimError::internal)?;
        upgrade(&conn).map_err(SimError::internal)?;
        conn.execute_batch(SCHEMA).map_err(SimError::internal)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    /// Runs `f` on the connection.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, SimError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&conn).map_err(SimError::internal)
    }

    /// The next number of sequence `name`, starting after `start`.
    pub fn next(&self, name: &str, start: i64) -> Result<i64, SimError> {
        self.with(|c| {
            c.query_row(
                "INSERT INTO counters (name, value) VALUES (?1, ?2 + 1)
                 ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value",
                rusqlite::params![name, start],
                |r| r.get(0),
            )
        })
    }
}

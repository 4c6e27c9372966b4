//! The report ledger (beyond §4.4): before a report create leaves the gateway, its intent is
//! written under a canonical hash of the request. An identical request while the first is in
//! flight or done (within a day) gets the same report id instead of a second report; a caller's
//! `Idempotency-Key` gets the same answer on a retry, across restarts. A create whose outcome
//! was uncertain, or whose sender died, is reconciled on the next try from the time of its
//! *first* send (never moved by a reconcile), and is sent again only when the reconcile proves
//! nothing was made or the caller acknowledged that a second report may be (`reports.rs`).
//! A report that ended `FATAL` or cancelled is not handed to a new identical request.

use pp_core::{Error, Result, TenantId};
use pp_store::Store;
use pp_store::jobs::now_ms;
use rusqlite::{OptionalExtension, params};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// The three report families and how each is reconciled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `reports.create_report`: reconciled by listing reports of that type.
    Spapi,
    /// `reporting.create_report`: an identical in-flight resend answers 425 with the id.
    AdsV3,
    /// `reporting_v1.create_report`: no deduplication at the provider, nothing to list.
    AdsV1,
}

impl Family {
    /// The family of a create operation, if it is a report create.
    pub fn of(operation: &str) -> Option<Self> {
        match operation {
            "reports.create_report" => Some(Self::Spapi),
            "reporting.create_report" => Some(Self::AdsV3),
            "reporting_v1.create_report" => Some(Self::AdsV1),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Spapi => "spapi",
            Self::AdsV3 => "ads_v3",
            Self::AdsV1 => "ads_v1",
        }
    }

    /// The provider's report id in a create's answer.
    pub fn report_id(self, body: &Value) -> Option<String> {
        let v = match self {
            Self::AdsV1 => &body["success"][0]["report"]["reportId"],
            _ => &body["reportId"],
        };
        v.as_str().map(str::to_owned)
    }
}

/// A ledger row.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub status: String,
    pub hash: String,
    pub provider_id: Option<String>,
    /// When the first create of this request was sent (a reconcile searches from here).
    pub sent_at: i64,
    pub lease_until: i64,
    /// Why the watched report ended without data (`provider_fatal`, `cancelled` …).
    pub reason: Option<String>,
}

pub const SENDING: &str = "sending";
pub const CREATED: &str = "created";
pub const UNKNOWN: &str = "unknown";
pub const FAILED: &str = "failed";

/// How long a created report is handed to identical requests.
const REUSE_MS: i64 = 24 * 3600 * 1000;

/// Reasons a watched report ended that make it no answer to a new identical request: its own
/// error says to create it again.
const ENDED_WITHOUT_DATA: &str =
    "'provider_fatal', 'bad_window', 'retention_exceeded', 'cancelled'";

/// Objects with sorted keys and lists of plain values sorted (columns, group-bys and
/// marketplaces are sets), so the same request always hashes the same.
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) if a.iter().all(|x| x.is_string() || x.is_number()) => {
            let mut items: Vec<String> = a.iter().map(Value::to_string).collect();
            items.sort();
            Value::Array(items.into_iter().map(Value::String).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The hash of a create: family, account and the canonical request.
pub fn request_hash(family: Family, account: &str, body: &Value) -> String {
    let text = json!([family.name(), account, canonical(body)]).to_string();
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What the ledger says to do with a create.
#[derive(Debug)]
pub enum Decision {
    /// Send it; the row is ours until `lease_until`.
    Send(Entry),
    /// An identical (or same-key) create already has this report.
    Reuse(Entry),
    /// Another caller is sending it right now: wait for its row.
    Wait(Entry),
    /// An earlier try's outcome is unknown: reconcile, then send only if nothing was made.
    Reconcile(Entry),
}

fn entry(r: &rusqlite::Row) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: r.get(0)?,
        status: r.get(1)?,
        hash: r.get(2)?,
        provider_id: r.get(3)?,
        sent_at: r.get(4)?,
        lease_until: r.get(5)?,
        reason: r.get(6)?,
    })
}

const COLS: &str = "id, status, request_hash, provider_report_id, sent_at, lease_until, reason";

/// Decides, atomically, what a create does; `lease_ms` bounds how long a sender holds it.
pub fn decide(
    store: &Store,
    tenant: &TenantId,
    family: Family,
    account: &str,
    hash: &str,
    key: Option<&str>,
    lease_ms: i64,
) -> Result<Decision> {
    let now = now_ms();
    store.with_conn(|c| {
        let tx = c
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(pp_store::db_err)?;
        let by_key = match key {
            Some(k) => tx
                .query_row(
                    &format!("SELECT {COLS} FROM report_ledger WHERE tenant_id = ?1 AND idempotency_key = ?2"),
                    params![tenant.as_str(), k],
                    entry,
                )
                .optional()
                .map_err(pp_store::db_err)?,
            None => None,
        };
        if let Some(e) = &by_key
            && e.hash != hash
        {
            return Err(Error::invalid_request(
                "this Idempotency-Key was used for a different report request",
            )
            .with_fix("Use a new key for a new request; resend the original body to retry it."));
        }
        let found = match by_key {
            Some(e) => Some(e),
            None => tx
                .query_row(
                    &format!(
                        "SELECT {COLS} FROM report_ledger WHERE tenant_id = ?1 AND family = ?2 AND account = ?3 AND request_hash = ?4
                         AND status != 'failed' AND sent_at > ?5
                         AND (reason IS NULL OR reason NOT IN ({ENDED_WITHOUT_DATA}))
                         ORDER BY sent_at DESC LIMIT 1"
                    ),
                    params![tenant.as_str(), family.name(), account, hash, now - REUSE_MS],
                    entry,
                )
                .optional()
                .map_err(pp_store::db_err)?,
        };
        let decision = match found {
            Some(e) if e.status == CREATED => Decision::Reuse(e),
            Some(e) if e.status == SENDING && e.lease_until > now => Decision::Wait(e),
            Some(e) if e.status == FAILED => {
                // a refused create under this key: this try starts afresh, and a later
                // reconcile searches from this send
                claim(&tx, &e.id, now, lease_ms, true)?;
                Decision::Send(Entry { status: SENDING.into(), lease_until: now + lease_ms, sent_at: now, ..e })
            }
            Some(e) => {
                // an uncertain create (or a dead sender): its first send stays the window's start
                claim(&tx, &e.id, now, lease_ms, false)?;
                Decision::Reconcile(Entry { status: SENDING.into(), lease_until: now + lease_ms, ..e })
            }
            None => {
                let id = pp_store::random_id("rl_", 10)?;
                tx.execute(
                    "INSERT INTO report_ledger (id, tenant_id, family, account, request_hash, idempotency_key, status, sent_at, lease_until, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'sending', ?7, ?8, ?9, ?9)",
                    params![id, tenant.as_str(), family.name(), account, hash, key, now, now + lease_ms, pp_store::now_rfc3339()],
                )
                .map_err(pp_store::db_err)?;
                Decision::Send(Entry {
                    id,
                    status: SENDING.into(),
                    hash: hash.to_owned(),
                    provider_id: None,
                    sent_at: now,
                    lease_until: now + lease_ms,
                    reason: None,
                })
            }
        };
        tx.commit().map_err(pp_store::db_err)?;
        Ok(decision)
    })
}

/// Takes the row for this try; `fresh` (the earlier create was refused, so nothing exists)
/// moves the window's start to now.
fn claim(tx: &rusqlite::Transaction, id: &str, now: i64, lease_ms: i64, fresh: bool) -> Result<()> {
    tx.execute(
        "UPDATE report_ledger SET status = 'sending', lease_until = ?2,
                sent_at = CASE WHEN ?5 THEN ?3 ELSE sent_at END, updated_at = ?4 WHERE id = ?1",
        params![id, now + lease_ms, now, pp_store::now_rfc3339(), fresh],
    )
    .map_err(pp_store::db_err)?;
    Ok(())
}

/// Puts a claimed row back to `unknown` without sending (the reconcile could not prove the
/// first create failed), keeping its window and error.
pub fn release_unknown(store: &Store, id: &str) -> Result<()> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE report_ledger SET status = 'unknown', lease_until = 0, updated_at = ?2 WHERE id = ?1",
            params![id, pp_store::now_rfc3339()],
        )
        .map_err(pp_store::db_err)?;
        Ok(())
    })
}

/// Records what became of a row: `created` with the provider's id, `unknown` or `failed`.
pub fn settle(
    store: &Store,
    id: &str,
    status: &str,
    provider_id: Option<&str>,
    error: Option<&Value>,
) -> Result<()> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE report_ledger SET status = ?2, provider_report_id = COALESCE(?3, provider_report_id), error = ?4, lease_until = 0, updated_at = ?5 WHERE id = ?1",
            params![id, status, provider_id, error.map(Value::to_string), pp_store::now_rfc3339()],
        )
        .map_err(pp_store::db_err)?;
        Ok(())
    })
}

/// A row as it is now.
pub fn get(store: &Store, id: &str) -> Result<Option<(Entry, Option<Value>)>> {
    store.with_conn(|c| {
        c.query_row(
            &format!("SELECT {COLS}, error FROM report_ledger WHERE id = ?1"),
            params![id],
            |r| {
                let err: Option<String> = r.get(7)?;
                Ok((entry(r)?, err.and_then(|s| serde_json::from_str(&s).ok())))
            },
        )
        .optional()
        .map_err(pp_store::db_err)
    })
}

/// The merchant token (or profile) a tenant's report was created for, by the provider's id.
pub fn account_of(
    store: &Store,
    tenant: &TenantId,
    family: Family,
    provider_id: &str,
) -> Result<Option<String>> {
    store.with_conn(|c| {
        c.query_row(
            "SELECT account FROM report_ledger WHERE tenant_id = ?1 AND family = ?2 AND provider_report_id = ?3",
            params![tenant.as_str(), family.name(), provider_id],
            |r| r.get(0),
        )
        .optional()
        .map_err(pp_store::db_err)
    })
}

/// What the report watch saw: the provider's report and our reason for a terminal or stuck one.
pub fn record_watch(store: &Store, id: &str, report: &Value, reason: Option<&str>) -> Result<()> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE report_ledger SET provider_report = ?2, reason = ?3, checked_at = ?4 WHERE id = ?1",
            params![id, report.to_string(), reason, now_ms()],
        )
        .map_err(pp_store::db_err)?;
        Ok(())
    })
}

/// The watch's last view of a tenant's report: `(provider report, reason, checked at ms)`.
pub fn watched(
    store: &Store,
    tenant: &TenantId,
    provider_id: &str,
) -> Result<Option<(Value, Option<String>, i64)>> {
    store.with_conn(|c| {
        c.query_row(
            "SELECT provider_report, reason, checked_at FROM report_ledger
             WHERE tenant_id = ?1 AND provider_report_id = ?2 AND provider_report IS NOT NULL",
            params![tenant.as_str(), provider_id],
            |r| {
                let report: String = r.get(0)?;
                // a stored report that no longer parses is a failure to read, not "nothing"
                let report = serde_json::from_str(&report).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        0,
                        rusqlite::types::Type::Text,
                        e.into(),
                    )
                })?;
                Ok((report, r.get(1)?, r.get(2)?))
            },
        )
        .optional()
        .map_err(pp_store::db_err)
    })
}

/// Whether another row already holds this provider id (so a listing match is not adopted
/// twice).
pub fn adopted(store: &Store, tenant: &TenantId, provider_id: &str) -> Result<bool> {
    store.with_conn(|c| {
        c.query_row(
            "SELECT 1 FROM report_ledger WHERE tenant_id = ?1 AND provider_report_id = ?2",
            params![tenant.as_str(), provider_id],
            |_| Ok(()),
        )
        .optional()
        .map(|o| o.is_some())
        .map_err(pp_store::db_err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Makes tenant `t` (the ledger's rows belong to one).
    fn tenant(store: &Store, t: &TenantId) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(store.tenants().create(t, "Acme", "x")).unwrap();
    }

    #[test]
    fn the_same_request_hashes_the_same_whatever_the_order() {
        let a = json!({"reportType": "X", "marketplaceIds": ["B", "A"], "opts": {"z": 1, "a": 2}});
        let b = json!({"opts": {"a": 2, "z": 1}, "marketplaceIds": ["A", "B"], "reportType": "X"});
        assert_eq!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::Spapi, "m", &b)
        );
        assert_ne!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::Spapi, "n", &a)
        );
        assert_ne!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::AdsV3, "m", &a)
        );
    }

    /// A reconcile that could not finish leaves the window where the first create was sent,
    /// so the next reconcile still searches from there.
    #[test]
    fn the_window_starts_at_the_first_send_whatever_reconciles_follow() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        tenant(&store, &t);
        let d = || decide(&store, &t, Family::Spapi, "m", "h", Some("k"), 60_000).unwrap();
        let Decision::Send(first) = d() else { panic!() };
        settle(&store, &first.id, UNKNOWN, None, None).unwrap();
        for _ in 0..2 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            let Decision::Reconcile(e) = d() else {
                panic!()
            };
            assert_eq!(e.sent_at, first.sent_at, "the window never moves");
            release_unknown(&store, &e.id).unwrap();
        }
        let (row, _) = get(&store, &first.id).unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.sent_at), (UNKNOWN, first.sent_at));
    }

    /// A report that ended FATAL is no answer to a new identical request.
    #[test]
    fn a_failed_report_is_not_handed_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        tenant(&store, &t);
        let d = |key| decide(&store, &t, Family::Spapi, "m", "h", key, 60_000).unwrap();
        let Decision::Send(first) = d(Some("k1")) else {
            panic!()
        };
        settle(&store, &first.id, CREATED, Some("r1"), None).unwrap();
        record_watch(
            &store,
            &first.id,
            &json!({"processingStatus": "FATAL"}),
            Some("provider_fatal"),
        )
        .unwrap();
        assert!(
            matches!(d(None), Decision::Send(_)),
            "a new identical request creates"
        );
        assert!(
            matches!(d(Some("k1")), Decision::Reuse(_)),
            "its own key still answers the same"
        );
    }

    #[test]
    fn identical_creates_share_a_row_and_keys_bind_to_their_request() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        tenant(&store, &t);
        let d = |hash: &str, key: Option<&str>| {
            decide(&store, &t, Family::AdsV3, "p1", hash, key, 60_000).unwrap()
        };
        let Decision::Send(first) = d("h1", Some("k1")) else {
            panic!()
        };
        assert!(matches!(d("h1", None), Decision::Wait(_)), "in flight");
        settle(&store, &first.id, CREATED, Some("r1"), None).unwrap();
        let Decision::Reuse(e) = d("h1", None) else {
            panic!()
        };
        assert_eq!(e.provider_id.as_deref(), Some("r1"));
        assert!(matches!(d("h1", Some("k1")), Decision::Reuse(_)));
        assert!(
            decide(&store, &t, Family::AdsV3, "p1", "h2", Some("k1"), 60_000).is_err(),
            "a key names one request"
        );
        // an uncertain outcome is reconciled by the next try, which holds the row meanwhile
        let Decision::Send(second) = d("h2", Some("k2")) else {
            panic!()
        };
        settle(&store, &second.id, UNKNOWN, None, None).unwrap();
        assert!(matches!(d("h2", Some("k2")), Decision::Reconcile(_)));
        assert!(matches!(d("h2", None), Decision::Wait(_)));
        // a sender that died: its lease runs out, and the row is reconciled
        let Decision::Send(_) = decide(&store, &t, Family::Spapi, "m", "h3", None, -1).unwrap()
        else {
            panic!()
        };
        assert!(
            matches!(d("h3", None), Decision::Send(_)),
            "another family and account"
        );
        assert!(matches!(
            decide(&store, &t, Family::Spapi, "m", "h3", None, 60_000).unwrap(),
            Decision::Reconcile(_)
        ));
    }
}

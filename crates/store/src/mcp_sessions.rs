//! MCP Streamable HTTP sessions, kept in the store so a session opened through one gateway
//! instance works through every other. A session is bound to the credential that opened it
//! and stored under the SHA-256 of its id. The table is bounded per credential (its own least
//! recently used session makes room), per tenant (then refused) and in all (idle sessions go
//! first). Using a session refreshes its clock at most once per refresh interval, so a busy
//! session is not a write per request.

use pp_core::Result;
use sha2::{Digest, Sha256};

use crate::args;
use crate::db::{Db, Tx};
use crate::jobs::now_ms;

/// How many sessions the table holds at most, and how long an unused one lives.
#[derive(Debug, Clone, Copy)]
pub struct SessionCaps {
    pub per_credential: i64,
    pub per_tenant: i64,
    pub total: i64,
    pub idle_ms: i64,
}

/// What opening a session did.
#[derive(Debug, PartialEq, Eq)]
pub enum Opened {
    /// The new session's id.
    Id(String),
    /// The tenant holds its most sessions, none of them this credential's.
    TenantFull,
    /// The table is full of sessions in use.
    TableFull,
}

fn hashed(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// The MCP sessions aggregate.
pub struct McpSessions<'a>(pub(crate) &'a Db);

async fn count(tx: &mut Tx, sql: &str, v: &str) -> Result<i64> {
    let r = tx.one(sql.to_owned(), args![v]).await?;
    r.map_or(Ok(0), |r| r.i64(0))
}

/// Deletes `credential`'s least recently used session; whether there was one.
async fn evict_oldest(tx: &mut Tx, credential: &str) -> Result<bool> {
    let n = tx
        .exec(
            "DELETE FROM mcp_sessions WHERE id_hash = (SELECT id_hash FROM mcp_sessions WHERE credential_id = ?1 ORDER BY last_seen_ms LIMIT 1)",
            args![credential],
        )
        .await?;
    Ok(n > 0)
}

impl McpSessions<'_> {
    /// Opens a session for `credential` of `tenant` that agreed `version`.
    pub async fn open(
        &self,
        credential: &str,
        tenant: &str,
        version: &str,
        caps: SessionCaps,
    ) -> Result<Opened> {
        let id = hex::encode(crate::random_bytes::<16>()?);
        let (credential, tenant, version) =
            (credential.to_owned(), tenant.to_owned(), version.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    // one tenant's opens one at a time, so its caps hold across instances
                    tx.advisory_lock(&format!("mcp|{tenant}")).await?;
                    let now = now_ms();
                    let mine = "SELECT count(*) FROM mcp_sessions WHERE credential_id = ?1";
                    if count(tx, mine, &credential).await? >= caps.per_credential.max(1) {
                        evict_oldest(tx, &credential).await?;
                    }
                    let theirs = "SELECT count(*) FROM mcp_sessions WHERE tenant_id = ?1";
                    if count(tx, theirs, &tenant).await? >= caps.per_tenant.max(1)
                        && !evict_oldest(tx, &credential).await?
                    {
                        return Ok(Opened::TenantFull);
                    }
                    let all = "SELECT count(*) FROM mcp_sessions WHERE ?1 = ?1";
                    if count(tx, all, "").await? >= caps.total {
                        tx.exec(
                            "DELETE FROM mcp_sessions WHERE last_seen_ms < ?1",
                            args![now - caps.idle_ms],
                        )
                        .await?;
                        if count(tx, all, "").await? >= caps.total {
                            return Ok(Opened::TableFull);
                        }
                    }
                    tx.exec(
                        "INSERT INTO mcp_sessions (id_hash, credential_id, tenant_id, version, created_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                        args![hashed(&id), credential.as_str(), tenant.as_str(), version.as_str(), now],
                    )
                    .await?;
                    Ok(Opened::Id(id))
                })
            })
            .await
    }

    /// The version of live session `id` of `credential`, marked as used; none when it is
    /// unknown, another credential's, or idle past `idle_ms` (then it is closed).
    pub async fn touch(&self, id: &str, credential: &str, idle_ms: i64) -> Result<Option<String>> {
        let key = hashed(id);
        let Some(r) = self
            .0
            .one(
                "SELECT version, last_seen_ms FROM mcp_sessions WHERE id_hash = ?1 AND credential_id = ?2",
                args![key.as_str(), credential],
            )
            .await?
        else {
            return Ok(None);
        };
        let (version, seen) = (r.text(0)?, r.i64(1)?);
        let now = now_ms();
        if now - seen >= idle_ms {
            self.0
                .exec(
                    "DELETE FROM mcp_sessions WHERE id_hash = ?1",
                    args![key.as_str()],
                )
                .await?;
            return Ok(None);
        }
        if now - seen >= (idle_ms / 16).min(60_000) {
            self.0
                .exec(
                    "UPDATE mcp_sessions SET last_seen_ms = ?2 WHERE id_hash = ?1 AND last_seen_ms < ?2",
                    args![key.as_str(), now],
                )
                .await?;
        }
        Ok(Some(version))
    }

    /// How many sessions were used within `idle_ms` (every instance's).
    pub async fn live(&self, idle_ms: i64) -> Result<i64> {
        let r = self
            .0
            .one(
                "SELECT COUNT(*) FROM mcp_sessions WHERE last_seen_ms > ?1",
                args![now_ms() - idle_ms],
            )
            .await?;
        r.map_or(Ok(0), |r| r.i64(0))
    }

    /// Ends session `id` of `credential`; whether there was one.
    pub async fn close(&self, id: &str, credential: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "DELETE FROM mcp_sessions WHERE id_hash = ?1 AND credential_id = ?2",
                args![hashed(id), credential],
            )
            .await?
            > 0)
    }
}

//! Tenant warehouses on database servers: PostgreSQL and MySQL/MariaDB. Each engine keeps a
//! few open sessions, runs every statement inside a read-only transaction with the server's
//! own statement timeout, and kills the statement from a second session when the caller's
//! deadline passes or the caller goes away. The engines implement [`Server`] (a session, a
//! kill, one statement's run); [`bounded`] is the one query loop around them: a query slot,
//! the deadline, the kill switch, and which sessions are fit to reuse. The refusals both
//! engines answer live here too.
//!
//! The engine's read-only transaction is what stops writes; a login that can only `SELECT`
//! the warehouse's tables is the real guarantee (docs/warehouse-sql.md).

pub mod mysql;
pub mod postgres;
mod values;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Result};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::dialect::Dialect;
use crate::engine::QueryResult;
use crate::idle::Idle;
use crate::limits::Limits;
use crate::slots::{GRACE, slot, timeout_error};

/// What one statement's run gave: its result, and whether a cap left rows the server still
/// holds (the statement is then killed and its session closed).
pub(crate) struct Ran {
    pub result: QueryResult,
    pub unread: bool,
}

/// A database server as the query loop drives it.
pub(crate) trait Server: Send + Sync {
    /// An open session.
    type Session: Send;
    /// A statement as this server takes it (text, and the values of its placeholders).
    type Statement: Send + Sync;

    /// The sessions waiting for a query.
    fn idle(&self) -> &Idle<Self::Session>;
    /// Opens a new session.
    fn connect(&self) -> impl Future<Output = Result<Self::Session>> + Send;
    /// Stops whatever `session` is running, from a session of its own.
    fn kill(&self, session: &Self::Session) -> KillFuture;
    /// Runs one statement in a read-only transaction that the server ends within `ms`.
    fn run<'a>(
        &'a self,
        session: &'a mut Self::Session,
        statement: &'a Self::Statement,
        ms: u64,
        limits: &'a Limits,
    ) -> impl Future<Output = Result<Ran>> + Send + 'a;
    /// Ends a failed statement's transaction; false when the session cannot be reused.
    fn reset<'a>(
        &'a self,
        session: &'a mut Self::Session,
    ) -> impl Future<Output = bool> + Send + 'a;

    /// An idle session, or a new one.
    fn session(&self) -> impl Future<Output = Result<Self::Session>> + Send {
        async move {
            match self.idle().take() {
                Some(s) => Ok(s),
                None => self.connect().await,
            }
        }
    }
}

/// Runs `statement` on `server` within `timeout_ms` once it holds one of `slots`. Past the
/// deadline (and a grace for the server's own timeout to answer) the statement is killed and
/// its session closed; a session whose statement ended cleanly, or failed and was reset, is
/// kept for the next query.
pub(crate) async fn bounded<S: Server>(
    server: &S,
    statement: S::Statement,
    timeout_ms: u64,
    slots: &Arc<Semaphore>,
    limits: &Limits,
) -> Result<QueryResult> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let late = || timeout_error(timeout_ms, limits.max_timeout_ms);
    let _slot = slot(slots, deadline, limits.max_running).await?;
    let mut s = tokio::time::timeout_at(deadline, server.session())
        .await
        .map_err(|_| late())??;
    let left = deadline
        .saturating_duration_since(Instant::now())
        .as_millis()
        .max(1) as u64;
    // Dropped armed (a deadline, a departed caller, unread rows), it kills the statement.
    let switch = KillSwitch::armed(server.kill(&s));
    let out = tokio::time::timeout_at(
        deadline + GRACE,
        server.run(&mut s, &statement, left, limits),
    )
    .await
    .map_err(|_| late())?;
    match out {
        Ok(ran) if ran.unread => Ok(ran.result),
        Ok(ran) => {
            switch.disarm();
            server.idle().put(s);
            Ok(ran.result)
        }
        Err(e) => {
            switch.disarm();
            if server.reset(&mut s).await {
                server.idle().put(s);
            }
            Err(match e.kind {
                Kind::QueryTimeout => late(),
                _ => e,
            })
        }
    }
}

/// The refusal of a statement that is not a read.
pub(crate) fn not_a_read(what: &str) -> Error {
    Error::new(
        Kind::ReadOnlyViolation,
        format!("{what}: the warehouse is read-only"),
    )
    .with_fix("Send a single SELECT (or WITH … SELECT) statement.")
}

/// Whether the statement starts like a query: its first word (past comments and an opening
/// parenthesis) is `SELECT`, `WITH`, `VALUES` or `TABLE`.
pub(crate) fn starts_like_a_query(sql: &str, d: Dialect) -> bool {
    crate::lex::code_words(sql, d)
        .first()
        .is_some_and(|w| matches!(w.as_str(), "SELECT" | "WITH" | "VALUES" | "TABLE"))
}

/// Whether a statement the server could not read as a query names a write (`WITH … DELETE`),
/// so its syntax error is answered as the refusal it is.
pub(crate) fn names_a_write(sql: &str, d: Dialect) -> bool {
    const WRITES: &[&str] = &[
        "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "TRUNCATE", "CREATE", "DROP", "ALTER",
        "GRANT", "REVOKE", "COPY", "CALL",
    ];
    crate::lex::code_words(sql, d)
        .iter()
        .any(|w| WRITES.contains(&w.as_str()))
}

/// A boxed future that kills a running statement.
pub(crate) type KillFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Kills the statement it was armed for when dropped, unless disarmed: so a query whose
/// caller gives up (a deadline, a closed connection) does not run on in the server.
pub(crate) struct KillSwitch(Option<KillFuture>);

impl KillSwitch {
    pub fn armed(kill: KillFuture) -> Self {
        Self(Some(kill))
    }

    /// The statement ended by itself.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for KillSwitch {
    fn drop(&mut self) {
        if let Some(kill) = self.0.take()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            rt.spawn(kill);
        }
    }
}

/// `warehouse_unavailable` for a server that cannot be reached or refuses the login; the
/// cause (without the password) is logged, not sent.
pub(crate) fn unreachable(engine: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        Kind::WarehouseUnavailable,
        "the tenant's warehouse cannot be reached; the operator has been told",
    )
    .with_field("_cause", format!("{engine} warehouse: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_start_like_queries() {
        for ok in [
            "SELECT 1",
            " with x as (select 1) select * from x",
            "(SELECT 1)",
            "/* c */ ( (VALUES (1)))",
        ] {
            assert!(starts_like_a_query(ok, Dialect::MySql), "{ok}");
        }
        for bad in [
            "CREATE TABLE t (x int)",
            "SET @a = 1",
            "DO SLEEP(1)",
            "CALL p()",
        ] {
            assert!(!starts_like_a_query(bad, Dialect::MySql), "{bad}");
        }
    }
}

//! The authorizer: the statement may read tables and call ordinary functions, and nothing
//! else. Each denial is recorded so the error can say what was refused, and so is whether the
//! statement calls a function whose one call may take long (`LIKE`, `instr`, `printf` … : one
//! call is one engine step that no deadline interrupts, so such a statement never runs on an
//! async worker: see `run::quick`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pp_core::{Error, Result};
use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// The last thing the authorizer refused on a connection.
#[derive(Clone, Default)]
pub struct Denial(Arc<Mutex<Option<String>>>);

impl Denial {
    /// Takes the recorded refusal, clearing it.
    pub fn take(&self) -> Option<String> {
        self.0.lock().ok().and_then(|mut d| d.take())
    }

    fn record(&self, what: String) {
        if let Ok(mut d) = self.0.lock()
            && d.is_none()
        {
            *d = Some(what);
        }
    }
}

/// Functions whose one call costs at most a pass over its arguments, whatever they hold.
const QUICK_FUNCTIONS: &[&str] = &[
    "count",
    "sum",
    "total",
    "avg",
    "min",
    "max",
    "abs",
    "coalesce",
    "ifnull",
    "nullif",
    "iif",
    "typeof",
    "length",
    "lower",
    "upper",
    "round",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
];

/// Whether the statements prepared since the last [`Calls::take`] call a function outside
/// [`QUICK_FUNCTIONS`].
#[derive(Clone, Default)]
pub struct Calls(Arc<AtomicBool>);

impl Calls {
    /// Whether a function was seen, clearing the record.
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::AcqRel)
    }

    fn record(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// PRAGMAs that only describe the schema (their argument is a table or index name).
const INTROSPECTION_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "collation_list",
];

/// Functions no tenant query may call.
const DENIED_FUNCTIONS: &[&str] = &["load_extension", "fts3_tokenizer"];

fn verdict(action: &AuthAction<'_>) -> std::result::Result<(), String> {
    match action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => Ok(()),
        AuthAction::Function { function_name } => {
            let f = function_name.to_ascii_lowercase();
            if DENIED_FUNCTIONS.contains(&f.as_str()) {
                Err(format!("the function {f}() is not allowed"))
            } else {
                Ok(())
            }
        }
        AuthAction::Pragma { pragma_name, .. } => {
            let p = pragma_name.to_ascii_lowercase();
            if INTROSPECTION_PRAGMAS.contains(&p.as_str()) {
                Ok(())
            } else {
                Err(format!("PRAGMA {p} is not allowed"))
            }
        }
        AuthAction::Attach { .. } => Err("ATTACH is not allowed".into()),
        AuthAction::Detach { .. } => Err("DETACH is not allowed".into()),
        AuthAction::Insert { table_name } => {
            Err(format!("INSERT into {table_name} is not allowed"))
        }
        AuthAction::Update { table_name, .. } => {
            Err(format!("UPDATE of {table_name} is not allowed"))
        }
        AuthAction::Delete { table_name } => {
            Err(format!("DELETE from {table_name} is not allowed"))
        }
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
            Err("transaction control is not allowed".into())
        }
        other => Err(format!("{} is not allowed", describe(other))),
    }
}

fn describe(action: &AuthAction<'_>) -> String {
    let dbg = format!("{action:?}");
    let name = dbg
        .split([' ', '{', '('])
        .next()
        .unwrap_or("this statement");
    // CamelCase action name to words: CreateTable -> CREATE TABLE.
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Set only while the engine runs its own transaction control (the read transaction a
/// connection keeps, `reading.rs`); tenant SQL never runs with it set.
#[derive(Clone, Default)]
pub struct OwnControl(Arc<AtomicBool>);

impl OwnControl {
    pub fn set(&self, on: bool) {
        self.0.store(on, Ordering::Release);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Installs the authorizer on `conn`, returning its denial and function-call records and the
/// switch that lets the engine's own transaction control through.
pub fn install(conn: &Connection) -> Result<(Denial, Calls, OwnControl)> {
    let (denial, calls, own) = (Denial::default(), Calls::default(), OwnControl::default());
    let (rec, called, own_set) = (denial.clone(), calls.clone(), own.clone());
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if own_set.is_set() && matches!(ctx.action, AuthAction::Transaction { .. }) {
            return Authorization::Allow;
        }
        if let AuthAction::Function { function_name } = ctx.action
            && !QUICK_FUNCTIONS.contains(&function_name.to_ascii_lowercase().as_str())
        {
            called.record();
        }
        match verdict(&ctx.action) {
            Ok(()) => Authorization::Allow,
            Err(why) => {
                rec.record(why);
                Authorization::Deny
            }
        }
    }))
    .map_err(|e| Error::internal_with("authorizer", e))?;
    Ok((denial, calls, own))
}

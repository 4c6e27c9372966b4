//! Read-only SQL over tenant warehouses. [`Engine`] is the small interface every backend
//! implements (the embedded SQLite file in `sqlite/`, PostgreSQL and MySQL/MariaDB in
//! `server/`); [`Registry`] keeps one engine per tenant warehouse, opened from its locator.
//! Read-only is enforced by each engine itself (SQLite's authorizer, the servers' read-only
//! transactions); [`Dialect`] lets `/v1` write one query for all three.

mod bind;
mod caps;
mod dialect;
pub mod directory;
mod engine;
mod idle;
mod lex;
mod limits;
pub mod params;
mod registry;
pub mod row;
pub mod server;
mod slots;
pub mod sqlite;
pub mod v1;
mod warehouses;

pub use dialect::Dialect;
pub use engine::{
    ColumnInfo, Engine, IndexInfo, QueryRequest, QueryResult, TableDescription, TableSummary,
};
pub use lex::{code_words, ends_with_terminator};
pub use limits::Limits;
pub use params::Params;
pub use registry::{Registry, is_server_url, open};
pub use row::Row;
pub use warehouses::{Caps, SqlRequest, Warehouses};

//! Tenant warehouses: their schema as data ([`schema`], spelled per engine by
//! [`schema::spelling`]), the write side of a managed warehouse ([`Managed`]), and read-only
//! SQL over them. [`Engine`] is the small interface every backend
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
pub mod managed;
pub mod params;
mod registry;
pub mod row;
pub mod schema;
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
pub use managed::{Load, Managed, Slice};
pub use params::Params;
pub use registry::{Registry, is_server_url, open};
pub use row::Row;
pub use warehouses::{Caps, SqlRequest, Warehouses};

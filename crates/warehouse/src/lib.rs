//! Read-only SQL over tenant warehouses. [`Engine`] is the small interface every backend
//! implements (embedded SQLite now; MySQL/MariaDB and PostgreSQL later); [`Registry`] keeps one
//! engine per tenant warehouse. Read-only is enforced by the engine itself, never by matching
//! SQL text.

pub mod directory;
mod engine;
mod limits;
pub mod params;
mod registry;
pub mod row;
mod split;
pub mod sqlite;
pub mod v1;
mod warehouses;

pub use engine::{
    ColumnInfo, Engine, IndexInfo, QueryRequest, QueryResult, TableDescription, TableSummary,
};
pub use limits::Limits;
pub use params::Params;
pub use registry::Registry;
pub use row::Row;
pub use warehouses::{Caps, SqlRequest, Warehouses};

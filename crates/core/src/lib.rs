//! Partner Platform's shared vocabulary: the principal, scopes, validated ids, version stamps
//! and the one error type that every surface renders.

pub mod cursor;
pub mod error;
pub mod ids;
pub mod principal;
pub mod scope;
pub mod text;
pub mod wire;

pub use error::{Error, Kind, Result, Source};
pub use ids::TenantId;
pub use principal::{Actor, Principal, Surface};
pub use scope::{Scope, ScopeSet};

/// The build's version (the workspace version).
pub const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Version of the intelligence engines serving (stamped on results, shown by `/health`).
pub const ENGINE_VERSION: &str = "engine-2026.11.0";
/// Version of the evidence rules serving (stamped on results, shown by `/health`).
pub const EVIDENCE_VERSION: &str = "evidence-2026.11.0";

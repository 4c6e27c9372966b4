//! Identifiers that validate on construction.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Kind, Result};

/// A tenant id: lowercase letters, digits and hyphens, 1–64 characters, starting with a
/// letter. It names the tenant's data folder, so nothing else may pass. Shared text: every
/// request's principal carries a copy, which costs a count, not an allocation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TenantId(Arc<str>);

impl TenantId {
    /// Validates and wraps `s`.
    pub fn parse(s: &str) -> Result<Self> {
        let ok = !s.is_empty()
            && s.len() <= 64
            && s.starts_with(|c: char| c.is_ascii_lowercase())
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if ok {
            Ok(Self(s.into()))
        } else {
            Err(Error::new(
                Kind::BadParams,
                format!(
                    "'{s}' is not a valid tenant id: use 1-64 lowercase letters, digits and hyphens, starting with a letter"
                ),
            ))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_ids() {
        assert!(TenantId::parse("demo").is_ok());
        assert!(TenantId::parse("acme-2").is_ok());
        for bad in ["", "../etc", "Demo", "1abc", "a/b", &"a".repeat(65)] {
            assert!(TenantId::parse(bad).is_err(), "{bad}");
        }
    }
}

//! Brand memory (docs/brand-memory.md): per-brand context documents with their
//! revision history, the brand lifecycle (retire and restore, never delete), and the
//! timeline of native events, stakes, comments, action outcomes and corroborations. Brands
//! themselves come from the tenant's warehouse. [`service::BrandMemory`] is what every front
//! door calls; HTTP and MCP live in `pp-server`.

mod ads_changes;
pub mod answers;
mod approvals;
pub mod docs;
pub mod lifecycle;
pub mod seed;
pub mod service;
pub mod timeline;

pub(crate) use pp_core::text::one_line;
use pp_core::{Error, Kind, Result};

/// A brand of the tenant (from the warehouse's `brand` table).
#[derive(Debug, Clone)]
pub struct BrandRef {
    /// Lowercase slug, the brand's key in brand memory.
    pub slug: String,
    /// Display name.
    pub name: String,
}

/// Who is writing: the credential's name and the surface it came through.
#[derive(Debug, Clone)]
pub struct Writer<'a> {
    /// The name on the sign-in (work email, `svc:` label or client id).
    pub actor: &'a str,
    /// `api`, `mcp`, `plugin`, `partner:<id>` …
    pub surface: String,
}

impl Writer<'_> {
    /// The writer as the store records it.
    pub fn author(&self) -> pp_store::brand::Author {
        pp_store::brand::Author {
            actor: self.actor.to_owned(),
            surface: self.surface.clone(),
        }
    }
}

impl<'a> From<&'a pp_core::Principal> for Writer<'a> {
    fn from(p: &'a pp_core::Principal) -> Self {
        Self {
            actor: &p.actor,
            surface: p.surface.as_wire(),
        }
    }
}

/// A `bad_params` error.
pub(crate) fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

/// A brand slug: 1-64 lowercase letters, digits and hyphens, checked on construction.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct BrandSlug(String);

impl BrandSlug {
    /// Validates and wraps `slug`; a malformed one is `bad_params`.
    pub fn parse(slug: &str) -> Result<Self> {
        let ok = !slug.is_empty()
            && slug.len() <= 64
            && slug
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if ok {
            Ok(Self(slug.to_owned()))
        } else {
            Err(bad(format!(
                "brand_slug '{slug}' must be 1-64 lowercase letters, digits and hyphens"
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The brand named `slug`, or `404 unknown_brand`.
pub fn find<'a>(brands: &'a [BrandRef], slug: &str) -> Result<&'a BrandRef> {
    brands.iter().find(|b| b.slug == slug).ok_or_else(|| {
        Error::new(
            Kind::UnknownBrand,
            format!("no brand '{slug}' in this account"),
        )
    })
}

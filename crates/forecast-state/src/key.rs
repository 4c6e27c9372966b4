//! Forecast state keys: `fb:override:<scopeId>:<YYYY-MM-01>`, `fb:account:<scopeId>`,
//! `fb:scope_def:<scopeId>`, where `scopeId` = `src:<database>:<merchant>` with
//! `:scope:<key>` for a sub-brand. Parsing validates every part.

use pp_core::{Error, Kind, Result};

/// The three document kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// A month row of corrections.
    Override,
    /// An account setting.
    Account,
    /// A sub-brand or item-group definition.
    ScopeDef,
}

impl DocKind {
    /// The key segment and the envelope's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Override => "override",
            DocKind::Account => "account",
            DocKind::ScopeDef => "scope_def",
        }
    }
}

/// A scope: a merchant of a database, or one of its sub-brands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeId {
    pub database: String,
    pub merchant: i64,
    pub sub: Option<String>,
}

impl ScopeId {
    /// Parses `src:<database>:<merchant>[:scope:<key>]`.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = || {
            Error::new(
                Kind::BadParams,
                format!("'{s}' is not a scope id: use src:<database>:<merchant>[:scope:<key>]"),
            )
        };
        let parts: Vec<&str> = s.split(':').collect();
        let (db, merchant, sub) = match parts.as_slice() {
            ["src", db, m] => (*db, *m, None),
            ["src", db, m, "scope", k] => (*db, *m, Some(*k)),
            _ => return Err(bad()),
        };
        // Only the canonical spelling: `01` or `+1` would name merchant 1 under a second key.
        let merchant = merchant
            .parse::<i64>()
            .ok()
            .filter(|m| *m > 0 && m.to_string() == merchant)
            .ok_or_else(bad)?;
        if !ident(db) || sub.is_some_and(|k| !ident(k)) {
            return Err(bad());
        }
        Ok(Self {
            database: db.to_owned(),
            merchant,
            sub: sub.map(str::to_owned),
        })
    }

    /// The wire form.
    pub fn render(&self) -> String {
        match &self.sub {
            None => format!("src:{}:{}", self.database, self.merchant),
            Some(k) => format!("src:{}:{}:scope:{k}", self.database, self.merchant),
        }
    }
}

fn ident(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// A parsed document key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub kind: DocKind,
    pub scope: ScopeId,
    /// `YYYY-MM-01` on month rows.
    pub month: Option<String>,
    raw: String,
}

/// A month as forecast state names it: its first day, `YYYY-MM-01`, checked on construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Month(String);

impl Month {
    /// Validates and wraps `m`; anything but a first-of-month date is `bad_params`.
    pub fn parse(m: &str) -> Result<Self> {
        let b = m.as_bytes();
        let ok = b.len() == 10
            && m.ends_with("-01")
            && b[4] == b'-'
            && b[..4].iter().all(u8::is_ascii_digit)
            && m[5..7].parse::<u32>().is_ok_and(|v| (1..=12).contains(&v));
        if ok {
            Ok(Self(m.to_owned()))
        } else {
            Err(Error::new(
                Kind::BadParams,
                format!("'{m}' is not a month: use YYYY-MM-01"),
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Key {
    /// Parses a key. An unknown kind is `insufficient_scope` (docs/concepts/scopes.md); a malformed
    /// key is `bad_params`.
    pub fn parse(s: &str) -> Result<Self> {
        let Some(rest) = s.strip_prefix("fb:") else {
            return Err(Error::new(
                Kind::BadParams,
                format!("'{s}' is not a forecast state key (fb:<kind>:<scopeId>…)"),
            ));
        };
        let (kind, rest) = rest.split_once(':').unwrap_or((rest, ""));
        let kind = match kind {
            "override" => DocKind::Override,
            "account" => DocKind::Account,
            "scope_def" => DocKind::ScopeDef,
            other => {
                return Err(Error::new(
                    Kind::InsufficientScope,
                    format!(
                        "documents of kind '{other}' are not forecast corrections: only override, account and scope_def keys can be read or written here"
                    ),
                ));
            }
        };
        let (scope, month) = if kind == DocKind::Override {
            let (scope, month) = rest.rsplit_once(':').ok_or_else(|| {
                Error::new(
                    Kind::BadParams,
                    format!("'{s}' lacks its month (fb:override:<scopeId>:<YYYY-MM-01>)"),
                )
            })?;
            let month = Month::parse(month).map_err(|_| {
                Error::new(
                    Kind::BadParams,
                    format!("'{month}' in '{s}' is not a month: use YYYY-MM-01"),
                )
            })?;
            (ScopeId::parse(scope)?, Some(month.as_str().to_owned()))
        } else {
            (ScopeId::parse(rest)?, None)
        };
        if kind == DocKind::ScopeDef && scope.sub.is_none() {
            return Err(Error::new(
                Kind::BadParams,
                format!("'{s}': a scope_def key names a sub-brand scope (…:scope:<key>)"),
            ));
        }
        Ok(Self {
            kind,
            scope,
            month,
            raw: s.to_owned(),
        })
    }

    /// The key as given.
    pub fn as_str(&self) -> &str {
        &self.raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let k = Key::parse("fb:override:src:acme:1:2026-03-01").unwrap();
        assert_eq!(
            (k.kind, k.scope.merchant, k.month.as_deref()),
            (DocKind::Override, 1, Some("2026-03-01"))
        );
        let k = Key::parse("fb:override:src:acme:1:scope:sb_1a:2026-03-01").unwrap();
        assert_eq!(k.scope.sub.as_deref(), Some("sb_1a"));
        assert_eq!(k.scope.render(), "src:acme:1:scope:sb_1a");
        assert!(Key::parse("fb:account:src:acme:1").is_ok());
        assert_eq!(
            Key::parse("fb:plan:src:acme:1").unwrap_err().kind,
            Kind::InsufficientScope
        );
        for bad in [
            "fb:override:src:acme:1:2026-03-02",
            "fb:override:src:acme:1",
            "fb:account:src:acme:x",
            "fb:account:src:ACME:1",
            "fb:scope_def:src:acme:1",
            "x:account:src:a:1",
            "fb:override:src:acme:1:2026-13-01",
        ] {
            assert_eq!(Key::parse(bad).unwrap_err().kind, Kind::BadParams, "{bad}");
        }
        for alias in [
            "fb:override:src:acme:01:2026-03-01",
            "fb:override:src:acme:+1:2026-03-01",
        ] {
            assert_eq!(
                Key::parse(alias).unwrap_err().kind,
                Kind::BadParams,
                "{alias}"
            );
        }
    }
}

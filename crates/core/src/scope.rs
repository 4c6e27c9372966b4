//! The scope vocabulary (docs/concepts/scopes.md), the "full read set" and the default bundle a service
//! credential gets when it is minted with no scope list.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Kind, Result};

macro_rules! scopes {
    ($( $variant:ident => $wire:literal ),* $(,)?) => {
        /// One OAuth scope the service understands.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Scope { $( $variant ),* }

        impl Scope {
            /// Every scope, in spec order.
            pub const ALL: &'static [Scope] = &[ $( Scope::$variant ),* ];

            /// The wire value (`sql:query`).
            pub fn as_str(self) -> &'static str { match self { $( Scope::$variant => $wire ),* } }
        }

        impl FromStr for Scope {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                match s { $( $wire => Ok(Scope::$variant), )* other => Err(Error::new(
                    Kind::BadParams,
                    format!("unknown scope '{other}'"),
                ).with_fix(format!("Known scopes: {}", Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")))) }
            }
        }
    };
}

scopes! {
    AccountRead => "account:read",
    RetailRead => "retail:read",
    AdsRead => "ads:read",
    BrandAnalyticsRead => "brand_analytics:read",
    SqlQuery => "sql:query",
    ContextRead => "context:read",
    TimelineRead => "timeline:read",
    IntelligenceRead => "intelligence:read",
    CorrectionsWrite => "corrections:write",
    AppstateWrite => "appstate:write",
    ContextWrite => "context:write",
    TimelineWrite => "timeline:write",
    AdsWrite => "ads:write",
    ListingsWrite => "listings:write",
    WebhooksWrite => "webhooks:write",
    SyncWrite => "sync:write",
    CostsWrite => "costs:write",
}

impl Scope {
    /// What the scope lets a holder do, in plain words (consent pages, the console).
    pub fn plain(self) -> &'static str {
        match self {
            Scope::AccountRead => "See your accounts and merchants",
            Scope::RetailRead => {
                "Read selling data: orders, inventory, catalog, finances, reports and pricing"
            }
            Scope::AdsRead => {
                "Read advertising data: campaigns, reports, budgets and recommendations"
            }
            Scope::BrandAnalyticsRead => "Read brand analytics",
            Scope::SqlQuery => "Run read-only SQL over your analytics warehouse",
            Scope::ContextRead => "Read your brand context documents",
            Scope::TimelineRead => "Read your brand timeline",
            Scope::IntelligenceRead => {
                "Run intelligence requests: sales and advertising bridges, forecasts"
            }
            Scope::CorrectionsWrite => "Save forecast corrections under your name",
            Scope::AppstateWrite => "Write the service app's own state",
            Scope::ContextWrite => "Retire or restore brands and sync context documents",
            Scope::TimelineWrite => "Add events to your brand timeline",
            Scope::AdsWrite => {
                "Change advertising: bids, budgets, states and new campaigns (previewed, audited)"
            }
            Scope::ListingsWrite => {
                "Change listing content on existing products (previewed, audited)"
            }
            Scope::WebhooksWrite => {
                "Register webhook endpoints, rotate their secrets and replay deliveries"
            }
            Scope::SyncWrite => "Start the warehouse sync now (it spends the provider's quota)",
            Scope::CostsWrite => {
                "Enter product costs, exchange rates and the reporting currency (audited)"
            }
        }
    }

    /// Whether only a tenant admin may grant it to an application.
    pub fn admin_only(self) -> bool {
        matches!(
            self,
            Scope::AdsWrite | Scope::ListingsWrite | Scope::WebhooksWrite | Scope::SyncWrite
        )
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The warehouse's data domains: raw SQL sees all of them, so it needs every one of these
/// reads plus [`Scope::SqlQuery`] (docs/warehouse-sql.md, docs/concepts/scopes.md).
pub const FULL_READ_SET: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::BrandAnalyticsRead,
];

/// What a service credential minted with no scope list holds: every read a tenant's own
/// scripts use, plus `sql:query`. No write scope and no `intelligence:read` (admins grant it).
pub const DEFAULT_SERVICE_SCOPES: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::BrandAnalyticsRead,
    Scope::SqlQuery,
    Scope::ContextRead,
    Scope::TimelineRead,
];

/// What an interactive sign-in holds (docs/concepts/scopes.md): the read set, context and timeline read
/// and write, `intelligence:read` and `corrections:write`. The command-line plugin's setup
/// code and `/login?mode=direct` mint exactly these.
pub const PLUGIN_SCOPES: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::BrandAnalyticsRead,
    Scope::ContextRead,
    Scope::TimelineRead,
    Scope::IntelligenceRead,
    Scope::CorrectionsWrite,
    Scope::ContextWrite,
    Scope::TimelineWrite,
];

/// The scopes raw SQL needs: the full read set plus `sql:query`.
pub const SQL_SCOPES: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::BrandAnalyticsRead,
    Scope::SqlQuery,
];

/// A validated, ordered, de-duplicated set of scopes: one bit per scope, so a principal's
/// set is copied and checked without allocating.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct ScopeSet(u32);

// every scope has its bit
const _: () = assert!(Scope::ALL.len() <= 32);

fn bit(scope: Scope) -> u32 {
    1 << scope as u32
}

impl fmt::Debug for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl ScopeSet {
    /// Builds a set from scopes.
    pub fn from_scopes(scopes: &[Scope]) -> Self {
        Self(scopes.iter().fold(0, |set, s| set | bit(*s)))
    }

    /// Parses a list separated by spaces or commas (OAuth uses spaces, the CLI commas).
    pub fn parse(list: &str) -> Result<Self> {
        let mut set = 0;
        for part in list.split([' ', ',']).filter(|p| !p.is_empty()) {
            set |= bit(part.parse::<Scope>()?);
        }
        Ok(Self(set))
    }

    /// Checks the grant rules a credential's scope list must follow.
    pub fn validate_grant(&self) -> Result<()> {
        if self.0 == 0 {
            return Err(Error::new(
                Kind::BadParams,
                "a credential needs at least one scope",
            ));
        }
        if self.contains(Scope::ContextWrite) && !self.contains(Scope::ContextRead) {
            return Err(Error::new(
                Kind::BadParams,
                "context:write must be granted with context:read (every context call checks context:read first)",
            ));
        }
        Ok(())
    }

    /// Whether the set holds `scope`.
    pub fn contains(&self, scope: Scope) -> bool {
        self.0 & bit(scope) != 0
    }

    /// Whether every scope of `other` is in this set.
    pub fn is_superset(&self, other: &ScopeSet) -> bool {
        other.0 & !self.0 == 0
    }

    /// The scopes in both sets.
    pub fn intersection(&self, other: &ScopeSet) -> ScopeSet {
        Self(self.0 & other.0)
    }

    /// The scopes in either set.
    pub fn union(&self, other: &ScopeSet) -> ScopeSet {
        Self(self.0 | other.0)
    }

    /// Whether the set holds no scope.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The scopes of `required` this set lacks.
    pub fn missing(&self, required: &[Scope]) -> Vec<Scope> {
        required
            .iter()
            .copied()
            .filter(|s| !self.contains(*s))
            .collect()
    }

    /// Iterates the scopes in order (the spec's).
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        Scope::ALL.iter().copied().filter(|s| self.contains(*s))
    }

    /// Wire values, in order.
    pub fn to_strings(&self) -> Vec<String> {
        self.iter().map(|s| s.as_str().to_owned()).collect()
    }

    /// The OAuth form: space-separated.
    pub fn to_oauth_string(&self) -> String {
        self.to_strings().join(" ")
    }
}

/// Fails with `403 insufficient_scope` unless `granted` holds every scope of `required`.
pub fn require(granted: &ScopeSet, required: &[Scope]) -> Result<()> {
    let missing = granted.missing(required);
    if missing.is_empty() {
        return Ok(());
    }
    let req: Vec<&str> = required.iter().map(|s| s.as_str()).collect();
    let miss: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    Err(Error::insufficient_scope(&req, &miss))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_separators_and_rejects_unknown() {
        let s = ScopeSet::parse("sql:query, ads:read retail:read").unwrap();
        assert_eq!(s.to_oauth_string(), "retail:read ads:read sql:query");
        assert_eq!(
            ScopeSet::parse("sql:write").unwrap_err().kind,
            Kind::BadParams
        );
    }

    #[test]
    fn a_set_holds_each_scope_once_and_compares_as_sets_do() {
        let every = ScopeSet::from_scopes(Scope::ALL);
        assert_eq!(every.iter().collect::<Vec<_>>(), Scope::ALL);
        for s in Scope::ALL {
            let one = ScopeSet::from_scopes(&[*s, *s]);
            assert_eq!(one.iter().collect::<Vec<_>>(), [*s]);
            assert!(every.is_superset(&one) && !one.is_superset(&every));
            assert_eq!(one.missing(Scope::ALL).len(), Scope::ALL.len() - 1);
        }
        let some = ScopeSet::parse("ads:read sql:query").unwrap();
        assert!(some.is_superset(&ScopeSet::default()));
        assert!(!some.is_superset(&ScopeSet::parse("ads:read retail:read").unwrap()));
        assert_eq!(format!("{some:?}"), "{AdsRead, SqlQuery}");
    }

    #[test]
    fn context_write_needs_context_read() {
        assert!(
            ScopeSet::parse("context:write")
                .unwrap()
                .validate_grant()
                .is_err()
        );
        assert!(
            ScopeSet::parse("context:write context:read")
                .unwrap()
                .validate_grant()
                .is_ok()
        );
    }

    #[test]
    fn raw_sql_needs_the_full_read_set_and_sql_query() {
        let mut want = FULL_READ_SET.to_vec();
        want.push(Scope::SqlQuery);
        assert_eq!(SQL_SCOPES, want.as_slice());
    }

    #[test]
    fn require_reports_missing() {
        let s = ScopeSet::parse("sql:query").unwrap();
        let e = require(&s, SQL_SCOPES).unwrap_err();
        assert_eq!(e.required_scopes().len(), 5);
        assert!(e.message().contains("account:read"));
        assert!(require(&ScopeSet::from_scopes(DEFAULT_SERVICE_SCOPES), SQL_SCOPES).is_ok());
    }
}

//! Partner Platform's shared vocabulary: the principal, scopes, validated ids
//! and the one error type that every surface renders.

pub mod cursor;
pub mod epoch;
pub mod error;
pub mod events;
pub mod files;
pub mod ids;
pub mod metrics;
pub mod outcome;
pub mod principal;
pub mod scope;
pub mod strict_json;
pub mod text;
pub mod wire;

pub use epoch::{Epoch, Remembered};
pub use error::{Error, Kind, Result, Source};
pub use ids::TenantId;
pub use principal::{Actor, App, Principal, Surface};
pub use scope::{Scope, ScopeSet};

/// The build's version (the workspace version).
pub const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Gives a fieldless enum its one spelling, used on the wire and in storage: `as_str`, and
/// `parse`, whose refusal is `bad_params` naming the choices.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Color { Red, DarkBlue }
/// pp_core::spelled!(Color, "color", Red => "red", DarkBlue => "dark_blue");
/// assert_eq!(Color::parse("dark_blue").unwrap(), Color::DarkBlue);
/// assert!(Color::parse("green").unwrap_err().message().contains("red, dark_blue"));
/// ```
#[macro_export]
macro_rules! spelled {
    ($t:ty, $what:literal, $($v:ident => $s:literal),* $(,)?) => {
        impl $t {
            /// Every value, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$v),*];

            /// The stored and wire spelling.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$v => $s),* }
            }

            /// From its spelling; anything else is `bad_params` naming the choices.
            pub fn parse(s: &str) -> $crate::Result<Self> {
                match s {
                    $($s => Ok(Self::$v),)*
                    _ => Err($crate::Error::new(
                        $crate::Kind::BadParams,
                        format!(concat!($what, " must be one of {}; got '{}'"), [$($s),*].join(", "), s),
                    )),
                }
            }
        }
    };
}

//! The state URL: which database holds the service's state. `sqlite://<file>` (a relative
//! file is under the data directory) or `postgres://…` / `postgresql://…`.

use std::path::{Path, PathBuf};

use pp_core::{Error, Kind, Result};

/// A parsed state URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateUrl {
    Sqlite(PathBuf),
    Postgres(String),
}

impl StateUrl {
    /// Reads `url`; a relative SQLite file is taken under `data_dir`.
    pub fn parse(url: &str, data_dir: &Path) -> Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self::Postgres(url.to_owned()));
        }
        match url.strip_prefix("sqlite://") {
            Some("") => Err(Error::new(
                Kind::BadParams,
                "state URL sqlite:// names no file (sqlite://state.sqlite, sqlite:///var/lib/pp/state.sqlite)",
            )),
            Some(file) => {
                let file = Path::new(file);
                Ok(Self::Sqlite(if file.is_absolute() {
                    file.to_path_buf()
                } else {
                    data_dir.join(file)
                }))
            }
            None => Err(Error::new(
                Kind::BadParams,
                format!(
                    "state URL must start with sqlite:// or postgres:// (got {:?})",
                    url.split(':').next().unwrap_or("")
                ),
            )),
        }
    }

    /// The default: the embedded store in the data directory.
    pub fn default_for(data_dir: &Path) -> Self {
        Self::Sqlite(data_dir.join("state.sqlite"))
    }

    /// The URL without its password, for logs and answers.
    pub fn redacted(&self) -> String {
        match self {
            Self::Sqlite(p) => format!("sqlite://{}", p.display()),
            Self::Postgres(u) => redact_password(u),
        }
    }
}

/// A database URL with its password replaced by `***` (the last `@` ends the credentials,
/// so a password holding `@` is hidden whole); a URL without one is returned as it is.
pub fn redact_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s && url[s + 3..at].contains(':') => {
            let user = url[s + 3..at].split(':').next().unwrap_or("");
            format!("{}://{user}:***@{}", &url[..s], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_the_engine() {
        let d = Path::new("/data");
        assert_eq!(
            StateUrl::parse("sqlite://s.db", d).unwrap(),
            StateUrl::Sqlite("/data/s.db".into())
        );
        assert_eq!(
            StateUrl::parse("sqlite:///abs/s.db", d).unwrap(),
            StateUrl::Sqlite("/abs/s.db".into())
        );
        assert!(matches!(
            StateUrl::parse("postgres://u:pw@h/db", d).unwrap(),
            StateUrl::Postgres(_)
        ));
        assert!(StateUrl::parse("mysql://h/db", d).is_err());
        assert!(StateUrl::parse("sqlite://", d).is_err());
        assert_eq!(
            StateUrl::parse("postgres://u:pw@h/db", d)
                .unwrap()
                .redacted(),
            "postgres://u:***@h/db"
        );
        assert_eq!(
            redact_password("mysql://reader:p@ss:w@db:3306/wh"),
            "mysql://reader:***@db:3306/wh"
        );
        assert_eq!(redact_password("mysql://root@h/wh"), "mysql://root@h/wh");
        assert_eq!(redact_password("sqlite:/x"), "sqlite:/x");
    }
}

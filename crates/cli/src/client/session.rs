//! Where the command line's credential comes from, and its token. A credential is
//! `PP_CLIENT_ID` and `PP_CLIENT_SECRET` with `PP_BASE_URL` from the environment (what the dev
//! server's `dev.env` exports), or else a profile saved by `login` in the user's config
//! directory (`$PARTNER_PLATFORM_CONFIG`, or `$XDG_CONFIG_HOME/partner-platform`, or
//! `~/.config/partner-platform`; `profiles/<name>.json`, owner-only). Tokens are cached beside
//! the profile (`tokens/<name>.json`; an environment credential's as `tokens/env-<client id>.json`)
//! and minted again when less than five minutes are left or the gateway refuses one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::exit;
use super::http::Failure;

/// A credential the command line signs in with.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Profile {
    pub base_url: String,
    pub client_id: String,
    pub client_secret: String,
    /// What the credential holds (as the gateway said at login).
    #[serde(default)]
    pub scope: String,
}

#[derive(Serialize, Deserialize)]
struct CachedToken {
    client_id: String,
    /// Which credential minted it: a hash of the gateway, the client id and the secret, so a
    /// token is never used for a secret other than the one that minted it.
    #[serde(default)]
    credential: String,
    access_token: String,
    expires_at: i64,
}

/// The hash `CachedToken::credential` holds for `p`.
fn fingerprint(p: &Profile) -> String {
    use sha2::Digest;
    let bytes = sha2::Sha256::digest(format!(
        "{}\n{}\n{}",
        p.base_url, p.client_id, p.client_secret
    ));
    hex::encode(bytes)
}

/// The config directory.
pub fn config_dir() -> Result<PathBuf, Failure> {
    if let Some(d) = std::env::var_os("PARTNER_PLATFORM_CONFIG") {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME") {
        return Ok(PathBuf::from(d).join("partner-platform"));
    }
    match std::env::var_os("HOME") {
        Some(h) => Ok(PathBuf::from(h).join(".config/partner-platform")),
        None => Err(Failure::local(
            exit::NOT_SIGNED_IN,
            "no config directory: set PARTNER_PLATFORM_CONFIG or HOME",
        )),
    }
}

fn profile_path(dir: &Path, name: &str) -> PathBuf {
    dir.join("profiles").join(format!("{name}.json"))
}

fn token_path(dir: &Path, name: &str) -> PathBuf {
    dir.join("tokens").join(format!("{name}.json"))
}

/// Checks a profile name (it names files).
pub fn check_name(name: &str) -> Result<(), Failure> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Failure::local(
            exit::USAGE,
            format!("profile name '{name}' must be 1-64 letters, digits, - or _"),
        ))
    }
}

/// Writes `value` as JSON to `path`, readable by the owner only, replacing it whole.
fn write_private(path: &Path, value: &impl Serialize) -> Result<(), Failure> {
    let io = |e: std::io::Error| {
        Failure::local(exit::OTHER, format!("cannot write {}: {e}", path.display()))
    };
    if let Some(parent) = path.parent() {
        pp_core::files::private_dir(parent).map_err(io)?;
    }
    let tmp = path.with_extension("tmp");
    let bytes =
        serde_json::to_vec_pretty(value).map_err(|e| Failure::local(exit::OTHER, e.to_string()))?;
    {
        use std::io::Write;
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut f = opts.open(&tmp).map_err(io)?;
        f.write_all(&bytes).map_err(io)?;
        f.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

/// Saves a profile (and forgets its cached token).
pub fn save(name: &str, p: &Profile) -> Result<PathBuf, Failure> {
    let dir = config_dir()?;
    let path = profile_path(&dir, name);
    write_private(&path, p)?;
    let _ = std::fs::remove_file(token_path(&dir, name));
    Ok(path)
}

/// Forgets a profile and its token; whether there was one.
pub fn forget(name: &str) -> Result<bool, Failure> {
    let dir = config_dir()?;
    let _ = std::fs::remove_file(token_path(&dir, name));
    Ok(std::fs::remove_file(profile_path(&dir, name)).is_ok())
}

/// The credential to use: the environment's, else the profile's.
pub fn credential(name: &str) -> Result<(Profile, Option<PathBuf>), Failure> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if let (Some(id), Some(secret)) = (env("PP_CLIENT_ID"), env("PP_CLIENT_SECRET")) {
        let base = env("PP_BASE_URL").ok_or_else(|| {
            Failure::local(
                exit::NOT_SIGNED_IN,
                "PP_CLIENT_ID is set but PP_BASE_URL is not",
            )
        })?;
        // Its token is cached too, under its client id, so a script of many commands mints
        // one token rather than one per command (and is not throttled at the token endpoint).
        let cache = config_dir().ok().filter(|_| {
            id.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
        let cache = cache.map(|dir| token_path(&dir, &format!("env-{id}")));
        let p = Profile {
            base_url: base.trim_end_matches('/').to_owned(),
            client_id: id,
            client_secret: secret,
            scope: String::new(),
        };
        return Ok((p, cache));
    }
    let dir = config_dir()?;
    let path = profile_path(&dir, name);
    let bytes = std::fs::read(&path).map_err(|_| {
        Failure::local(
            exit::NOT_SIGNED_IN,
            format!(
                "not signed in (no profile '{name}'): run `partner-platform login --setup-code <code> --base-url <url>`, or set PP_BASE_URL, PP_CLIENT_ID and PP_CLIENT_SECRET"
            ),
        )
    })?;
    let p: Profile = serde_json::from_slice(&bytes).map_err(|e| {
        Failure::local(
            exit::OTHER,
            format!("{} is not a profile: {e}", path.display()),
        )
    })?;
    Ok((p, Some(token_path(&dir, name))))
}

/// A cached token for `p`, if `p` minted it and it has five minutes left.
pub fn cached(p: &Profile, path: Option<&Path>) -> Option<String> {
    let t: CachedToken = serde_json::from_slice(&std::fs::read(path?).ok()?).ok()?;
    (t.client_id == p.client_id && t.credential == fingerprint(p) && t.expires_at > now() + 300)
        .then_some(t.access_token)
}

/// Remembers a token for `p`.
pub fn remember(p: &Profile, path: Option<&Path>, token: &str, expires_in: i64) {
    if let Some(path) = path {
        let t = CachedToken {
            client_id: p.client_id.clone(),
            credential: fingerprint(p),
            access_token: token.to_owned(),
            expires_at: now() + expires_in,
        };
        let _ = write_private(path, &t);
    }
}

/// Forgets a cached token (the gateway refused it).
pub fn drop_cached(path: Option<&Path>) {
    if let Some(path) = path {
        let _ = std::fs::remove_file(path);
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

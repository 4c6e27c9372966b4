//! Random secrets and their hashes. Client secrets are 256-bit random values, so a fast keyed
//! hash (HMAC-SHA-256 under the store's `client-secret` key, compared in constant time)
//! protects them as well as a slow one would, and lets the token endpoint answer a flood of
//! wrong secrets without spending memory or CPU on each. The key is one of the store's
//! service keys, read once by whoever authenticates many clients (the server's state). argon2id stays for what people
//! choose (passwords) and to verify credentials created before the keyed hash, which are
//! moved to it on their next successful use. Access tokens are stored as their SHA-256.

use argon2::Argon2;
use argon2::password_hash::PasswordVerifier;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use pp_core::Result;
use sha2::{Digest, Sha256};

/// The prefix of a keyed secret hash.
const KEYED: &str = "hmac-sha256$";

/// The key client secrets are hashed under.
#[derive(Clone)]
pub struct SecretKey([u8; 32]);

impl SecretKey {
    /// The store's key (made on first use, shared by every instance on the store).
    pub async fn of(store: &pp_store::Store) -> Result<Self> {
        store.keys().get("client-secret").await.map(Self)
    }

    fn mac(&self, secret: &str) -> hmac::Hmac<Sha256> {
        let mut m = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes any key length");
        m.update(secret.as_bytes());
        m
    }
}

/// A prefixed random string carrying 256 bits (`pps_…`, `ppat_…`).
pub fn random_token(prefix: &str) -> Result<String> {
    let bytes: [u8; 32] = pp_store::random_bytes()?;
    Ok(format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

pub use pp_store::random_id;

/// The stored form of a client secret: `hmac-sha256$<hex>`.
pub fn hash_secret(key: &SecretKey, secret: &str) -> String {
    format!(
        "{KEYED}{}",
        hex::encode(key.mac(secret).finalize().into_bytes())
    )
}

/// How a presented secret compares with a stored hash.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It matches the keyed hash.
    Matches,
    /// It matches a hash from before the keyed one; store [`hash_secret`] in its place.
    MatchesLegacy,
    /// It does not match.
    Wrong,
}

/// Whether `secret` matches `stored` (constant-time comparison either way).
pub fn verify_secret(key: &SecretKey, secret: &str, stored: &str) -> Verdict {
    if let Some(hex_mac) = stored.strip_prefix(KEYED) {
        return match hex::decode(hex_mac) {
            Ok(expected) if key.mac(secret).verify_slice(&expected).is_ok() => Verdict::Matches,
            _ => Verdict::Wrong,
        };
    }
    if stored.starts_with("$argon2")
        && Argon2::default()
            .verify_password(secret.as_bytes(), stored)
            .is_ok()
    {
        return Verdict::MatchesLegacy;
    }
    Verdict::Wrong
}

/// SHA-256 of an access token, the only form the store keeps.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let a = random_token("ppat_").unwrap();
        let b = random_token("ppat_").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 5 + 43);
    }

    #[test]
    fn secrets_verify_only_themselves() {
        let key = SecretKey([7; 32]);
        let h = hash_secret(&key, "s3cret");
        assert!(h.starts_with("hmac-sha256$"));
        assert_eq!(verify_secret(&key, "s3cret", &h), Verdict::Matches);
        assert_eq!(verify_secret(&key, "s3cres", &h), Verdict::Wrong);
        assert_eq!(
            verify_secret(&SecretKey([8; 32]), "s3cret", &h),
            Verdict::Wrong
        );
        assert_eq!(verify_secret(&key, "s3cret", "not a hash"), Verdict::Wrong);
    }

    #[test]
    fn argon2_hashes_from_before_still_verify() {
        use argon2::password_hash::PasswordHasher;
        let phc = Argon2::default().hash_password(b"old").unwrap().to_string();
        let key = SecretKey([7; 32]);
        assert_eq!(verify_secret(&key, "old", &phc), Verdict::MatchesLegacy);
        assert_eq!(verify_secret(&key, "new", &phc), Verdict::Wrong);
    }
}

//! Random secrets and their hashes: argon2id for client secrets (slow on purpose, compared in
//! constant time by the verifier) and SHA-256 for high-entropy access tokens.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use pp_core::{Error, Result};
use sha2::{Digest, Sha256};

/// A prefixed random string carrying 256 bits (`pps_…`, `ppat_…`).
pub fn random_token(prefix: &str) -> Result<String> {
    let bytes: [u8; 32] = pp_store::random_bytes()?;
    Ok(format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

pub use pp_store::random_id;

/// The argon2id PHC string of a secret.
pub fn hash_secret(secret: &str) -> Result<String> {
    Argon2::default()
        .hash_password(secret.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| Error::internal(format!("argon2: {e}")))
}

/// Whether `secret` matches the stored PHC string (constant-time comparison inside argon2).
pub fn verify_secret(secret: &str, phc: &str) -> bool {
    Argon2::default()
        .verify_password(secret.as_bytes(), phc)
        .is_ok()
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
        let h = hash_secret("s3cret").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_secret("s3cret", &h));
        assert!(!verify_secret("s3cres", &h));
        assert!(!verify_secret("s3cret", "not a phc string"));
    }
}

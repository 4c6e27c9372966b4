//! Sealing secrets at rest (provider refresh tokens, webhook signing secrets): XChaCha20-Poly1305
//! under the service's secret key (32 bytes from configuration), a fresh random nonce per seal,
//! the row's identity (tenant and merchant, or endpoint) bound in as associated data so a
//! sealed secret cannot be moved to another row.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use pp_core::{Error, Kind, Result};

/// The key that seals and opens refresh tokens.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(..)")
    }
}

impl Sealer {
    /// A sealer from a 64-character hex key.
    pub fn from_hex(hex_key: &str) -> Result<Self> {
        let bytes = hex::decode(hex_key.trim())
            .ok()
            .filter(|b| b.len() == 32)
            .ok_or_else(|| {
                Error::new(
                    Kind::BadParams,
                    "the secret key must be 64 hex characters (32 bytes)",
                )
            })?;
        Ok(Self {
            cipher: XChaCha20Poly1305::new(Key::from_slice(&bytes)),
        })
    }

    /// A new random key, hex.
    pub fn generate_hex() -> Result<String> {
        Ok(hex::encode(crate::random_bytes::<32>()?))
    }

    /// `nonce || ciphertext` of `plain`, bound to `context`.
    pub fn seal(&self, context: &str, plain: &str) -> Result<Vec<u8>> {
        let nonce = crate::random_bytes::<24>()?;
        let ct = self
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plain.as_bytes(),
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| Error::internal("sealing failed"))?;
        let mut out = nonce.to_vec();
        out.extend(ct);
        Ok(out)
    }

    /// The plain text of `sealed`, which must have been sealed with `context` under this key.
    pub fn open(&self, context: &str, sealed: &[u8]) -> Result<String> {
        if sealed.len() < 24 {
            return Err(Error::internal("sealed token is too short"));
        }
        let (nonce, ct) = sealed.split_at(24);
        let plain = self
            .cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: ct,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| {
                Error::internal("a sealed token does not open under the configured secret key")
            })?;
        String::from_utf8(plain).map_err(Error::internal_from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_tokens_open_only_with_their_key_and_context() {
        let key = Sealer::generate_hex().unwrap();
        let s = Sealer::from_hex(&key).unwrap();
        let sealed = s.seal("acme/seller/A1", "Atzr|secret").unwrap();
        assert!(
            !sealed.windows(6).any(|w| w == b"secret"),
            "not stored in the clear"
        );
        assert_eq!(s.open("acme/seller/A1", &sealed).unwrap(), "Atzr|secret");
        assert!(
            s.open("beta/seller/A1", &sealed).is_err(),
            "bound to its row"
        );
        let other = Sealer::from_hex(&Sealer::generate_hex().unwrap()).unwrap();
        assert!(
            other.open("acme/seller/A1", &sealed).is_err(),
            "bound to its key"
        );
        assert_ne!(
            s.seal("c", "x").unwrap(),
            s.seal("c", "x").unwrap(),
            "fresh nonce each time"
        );
        assert!(Sealer::from_hex("abcd").is_err());
    }
}

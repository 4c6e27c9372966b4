//! The OAuth 2.0 server's logic, free of HTTP: service credentials (create, rotate, revoke),
//! client authentication, `client_credentials` token minting, and turning a bearer token back
//! into a [`Principal`]. Client secrets are stored under a keyed hash (`secret.rs`); tokens are
//! opaque 256-bit random strings stored as SHA-256. Nothing here logs a secret or a token.

mod credentials;
mod secret;
mod tokens;

pub use credentials::{CreatedCredential, create_credential, rotate_credential};
pub use secret::SecretKey;
pub use tokens::{
    OAuthError, TOKEN_TTL_SECS, TokenResponse, authenticate_client, mint_token, verify_bearer,
};

//! The OAuth 2.0 server's logic, free of HTTP: service credentials (create, rotate, revoke),
//! people (created, signed in by password, disabled, reset), client authentication,
//! `client_credentials` token minting, and turning a bearer token back into a [`Principal`]. Client secrets are stored under a keyed hash (`secret.rs`); tokens are
//! opaque 256-bit random strings stored as SHA-256. Nothing here logs a secret or a token.

mod credentials;
mod people;
mod secret;
mod tokens;

pub use credentials::{CreatedCredential, create_credential, rotate_credential};
pub use people::{
    CreatedPerson, MIN_PASSWORD, PersonDetails, Role, create_person, disable_person, hash_password,
    normalize_email, reset_password, sign_in,
};
pub use secret::SecretKey;
pub use tokens::{
    OAuthError, TOKEN_TTL_SECS, TokenResponse, authenticate_client, mint_token, verify_bearer,
};

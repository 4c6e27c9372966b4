//! The OAuth 2.0 server's logic, free of HTTP: service credentials (create, rotate, revoke),
//! people (created, signed in by password, disabled, reset) and their browser sessions,
//! OAuth clients (partner applications, dynamically registered MCP clients), the
//! authorization code flow with PKCE, refresh rotation, revocation, tokens minted by hand,
//! setup codes, `client_credentials` minting, and turning a bearer token back into a
//! [`Principal`](pp_core::Principal) (remembered by the [`Verifier`] while nothing that could
//! end it has changed). Client secrets are stored under a keyed hash
//! (`secret.rs`); tokens, codes and session ids are opaque 256-bit random strings stored as
//! SHA-256. Nothing here logs a secret or a token.

pub mod authorize;
pub mod clients;
mod credentials;
pub mod grants;
mod people;
mod secret;
pub mod sessions;
pub mod setup;
mod tokens;
pub mod verifier;

pub use credentials::{
    CreatedCredential, create_credential, credential_of, revoke_credential_of, rotate_credential,
    rotate_credential_of,
};
pub use people::{
    CreatedPerson, MIN_PASSWORD, PersonDetails, Role, change_password, create_person,
    disable_person, disable_person_of, find_person, hash_password, normalize_email, reset_password,
    sign_in,
};
pub use secret::SecretKey;
pub use tokens::{
    OAuthError, TOKEN_TTL_SECS, TokenResponse, authenticate_client, mint_token, verify_bearer,
};
pub use verifier::Verifier;

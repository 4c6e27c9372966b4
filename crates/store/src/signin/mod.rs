//! What sign-in keeps: browser sessions of people, OAuth clients (partner applications and
//! dynamically registered MCP clients), grants (a person's consent to a client, or a token
//! they minted by hand) with their codes and tokens, and one-time setup codes. Every secret is
//! stored as its SHA-256; disabling a person, revoking a client or revoking a grant stops what
//! hangs from it in the same transaction, so every instance refuses it on the next request.

mod clients;
mod grants;
mod sessions;
mod setup_codes;

pub use clients::{ClientRow, Clients, NewClient};
pub use grants::{
    CodeRow, GrantAccess, GrantToken, Grants, NewCode, NewGrant, Redeemed, RefreshRow, Rotated,
};
pub use sessions::{SessionRow, Sessions};
pub use setup_codes::{SetupCodeRow, SetupCodes, SetupCredential};

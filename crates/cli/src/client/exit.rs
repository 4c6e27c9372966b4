//! Exit codes (0 is success): one per family of failure, stable, so a script branches on `$?` without
//! parsing text (the table is `docs/cli.md`). The spec fixes one: 12 for a provider's
//! `bad_request` (docs/errors.md).

/// Anything not classified below (a local file that cannot be read, an answer that is not JSON).
pub const OTHER: u8 = 1;
/// The command line itself was misused (clap's own code).
pub const USAGE: u8 = 2;
/// No credential: not signed in, and none in the environment.
pub const NOT_SIGNED_IN: u8 = 3;
/// The gateway refused the credential or token (401).
pub const AUTH: u8 = 10;
/// The credential lacks a scope or the account is not allowed this (403).
pub const SCOPE: u8 = 11;
/// The provider rejected the request's own parameters (`bad_request`, docs/errors.md).
pub const BAD_REQUEST: u8 = 12;
/// The gateway refused the request as malformed or against a rule (400, 405, 413, 422).
pub const INVALID: u8 = 13;
/// What was named does not exist (404).
pub const NOT_FOUND: u8 = 14;
/// A conflict with the current state (409): re-read, then decide.
pub const CONFLICT: u8 = 15;
/// Throttled or busy (429): retry after a pause.
pub const THROTTLED: u8 = 16;
/// The provider or a warehouse is unavailable (502, 503, 504): retry later.
pub const UPSTREAM: u8 = 17;
/// The gateway failed (500).
pub const SERVICE: u8 = 18;
/// The gateway could not be reached at all.
pub const UNREACHABLE: u8 = 19;
/// A wait (`--wait`, `reports wait`, `pricing follow`) passed its `--timeout`; the work goes
/// on at the gateway, and waiting again picks it up.
pub const TIMED_OUT: u8 = 20;

/// The exit code for a failure of `kind` answered with HTTP `status`.
pub fn for_failure(kind: &str, status: u16) -> u8 {
    match kind {
        "bad_request" => BAD_REQUEST,
        "invalid_token" | "invalid_client" | "invalid_grant" | "unauthorized" => AUTH,
        "insufficient_scope" | "scope_not_yours" | "not_enrolled" | "merchant_not_connected" => {
            SCOPE
        }
        "throttled" | "busy" | "rate_limited" | "temporarily_unavailable" => THROTTLED,
        "upstream_unavailable" | "host_unreachable" | "unavailable" => UPSTREAM,
        _ => match status {
            401 => AUTH,
            403 => SCOPE,
            404 => NOT_FOUND,
            409 => CONFLICT,
            429 => THROTTLED,
            400 | 405 | 413 | 415 | 422 => INVALID,
            502..=504 => UPSTREAM,
            500..=599 => SERVICE,
            _ => OTHER,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_their_family() {
        assert_eq!(for_failure("bad_request", 400), 12);
        assert_eq!(for_failure("invalid_request", 400), INVALID);
        assert_eq!(for_failure("read_only_violation", 400), INVALID);
        assert_eq!(for_failure("insufficient_scope", 403), SCOPE);
        assert_eq!(for_failure("restricted_report", 403), SCOPE);
        assert_eq!(for_failure("not_found", 404), NOT_FOUND);
        assert_eq!(for_failure("conflict", 409), CONFLICT);
        assert_eq!(for_failure("throttled", 429), THROTTLED);
        assert_eq!(for_failure("upstream_unavailable", 502), UPSTREAM);
        assert_eq!(for_failure("unknown", 500), SERVICE);
        assert_eq!(for_failure("invalid_grant", 400), AUTH);
    }
}

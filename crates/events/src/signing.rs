//! Standard Webhooks signatures (the `standardwebhooks` crate): a secret is `whsec_` and 32
//! random bytes in base64; a delivery carries `webhook-id` (the event's id, the same on every
//! retry and replay, so a receiver can drop repeats), `webhook-timestamp` (unix seconds of the
//! attempt) and `webhook-signature`, one `v1,` signature per secret still signing (the current
//! one and, during a rotation's grace period, the previous one), separated by spaces.

use base64::Engine;
use pp_core::{Error, Result};
use standardwebhooks::Webhook;
use standardwebhooks::{HEADER_WEBHOOK_ID, HEADER_WEBHOOK_SIGNATURE, HEADER_WEBHOOK_TIMESTAMP};

/// A new signing secret.
pub fn new_secret() -> Result<String> {
    let bytes: [u8; 32] = pp_store::random_bytes()?;
    Ok(format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

/// The three headers of one attempt at sending `body` as message `id`, signed with each of
/// `secrets`.
pub fn headers(
    id: &str,
    timestamp: i64,
    body: &[u8],
    secrets: &[String],
) -> Result<[(&'static str, String); 3]> {
    let mut signatures = Vec::new();
    for secret in secrets {
        let hook = Webhook::new(secret)
            .map_err(|e| Error::internal(format!("a webhook secret does not read: {e}")))?;
        signatures.push(
            hook.sign(id, timestamp, body)
                .map_err(|e| Error::internal(format!("signing a webhook: {e}")))?,
        );
    }
    Ok([
        (HEADER_WEBHOOK_ID, id.to_owned()),
        (HEADER_WEBHOOK_TIMESTAMP, timestamp.to_string()),
        (HEADER_WEBHOOK_SIGNATURE, signatures.join(" ")),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_secret_verifies_during_a_rotation_and_a_change_does_not() {
        let (old, new) = (new_secret().unwrap(), new_secret().unwrap());
        let now = chrono::Utc::now().timestamp();
        let body = br#"{"type":"report.done"}"#;
        let h = headers("evt_1", now, body, &[new.clone(), old.clone()]).unwrap();
        let mut map = reqwest::header::HeaderMap::new();
        for (k, v) in &h {
            map.insert(*k, v.parse().unwrap());
        }
        for secret in [&old, &new] {
            Webhook::new(secret).unwrap().verify(body, &map).unwrap();
        }
        let stranger = Webhook::new(&new_secret().unwrap()).unwrap();
        assert!(stranger.verify(body, &map).is_err());
        assert!(
            Webhook::new(&new).unwrap().verify(b"{}", &map).is_err(),
            "another body"
        );
    }
}

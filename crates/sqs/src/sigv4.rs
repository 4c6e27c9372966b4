//! AWS Signature Version 4 for a JSON-protocol POST (`Authorization` header form): the
//! canonical request, the string to sign and the derived key, as the AWS documentation gives
//! them. Held to botocore's own signer by a vector in the tests below.

use chrono::{DateTime, Utc};
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};

/// An access key, its secret, and the session token of temporary credentials.
#[derive(Clone)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the secret and the session token never reach a log
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut m = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
    m.update(data.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// The signature of a POST of `body` to `path` whose signed headers are `signed` (lower-case
/// names, sorted, `host` and `x-amz-date` among them) at `amz_date`: the credential scope, the
/// signed header names and the signature.
fn signature(
    secret: &str,
    region: &str,
    service: &str,
    path: &str,
    signed: &[(String, String)],
    body: &[u8],
    amz_date: &str,
) -> (String, String, String) {
    let day = &amz_date[..8.min(amz_date.len())];
    let canonical_headers: String = signed.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let signed_names = signed
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical = format!(
        "POST\n{path}\n\n{canonical_headers}\n{signed_names}\n{}",
        hex::encode(Sha256::digest(body))
    );
    let scope = format!("{day}/{region}/{service}/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    let key = [region, service, "aws4_request"]
        .iter()
        .fold(hmac(format!("AWS4{secret}").as_bytes(), day), |k, part| {
            hmac(&k, part)
        });
    (scope, signed_names, hex::encode(hmac(&key, &to_sign)))
}

/// What signs a request: its endpoint's place and the request's own parts.
pub struct Request<'a> {
    pub region: &'a str,
    pub service: &'a str,
    pub host: &'a str,
    pub path: &'a str,
    /// The other headers to sign, lower-case names (the content type, `x-amz-target`).
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// The headers a signed POST carries besides those in `req.headers`: `x-amz-date`, the
/// session token if any, and `authorization`.
pub fn sign(
    creds: &Credentials,
    req: &Request<'_>,
    at: DateTime<Utc>,
) -> Vec<(&'static str, String)> {
    let amz_date = at.format("%Y%m%dT%H%M%SZ").to_string();
    let mut signed: Vec<(String, String)> = req
        .headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    signed.push(("host".into(), req.host.to_owned()));
    signed.push(("x-amz-date".into(), amz_date.clone()));
    if let Some(t) = &creds.session_token {
        signed.push(("x-amz-security-token".into(), t.clone()));
    }
    signed.sort();
    let (scope, names, sig) = signature(
        &creds.secret_access_key,
        req.region,
        req.service,
        req.path,
        &signed,
        req.body,
        &amz_date,
    );
    let mut out = vec![
        ("x-amz-date", amz_date),
        (
            "authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={names}, Signature={sig}",
                creds.access_key_id
            ),
        ),
    ];
    if let Some(t) = &creds.session_token {
        out.push(("x-amz-security-token", t.clone()));
    }
    out
}

/// A signed POST as a server received it.
pub struct Received<'a> {
    /// The server's region and service.
    pub region: &'a str,
    pub service: &'a str,
    pub path: &'a str,
    /// Its `Authorization` header.
    pub authorization: &'a str,
    pub body: &'a [u8],
}

/// Checks a signed POST as the service would: its `Authorization` names `creds`' key and the
/// scope of the server's region and service, the request's time (`x-amz-date`, read through
/// `header`) is within 15 minutes of `now`, and the signature over the headers it names and
/// the body is the one `creds`' secret gives. Why not, if not.
pub fn verify(
    creds: &Credentials,
    req: &Received<'_>,
    header: impl Fn(&str) -> Option<String>,
    now: DateTime<Utc>,
) -> Result<(), String> {
    let (region, service, path, body) = (req.region, req.service, req.path, req.body);
    let rest = req
        .authorization
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or("the Authorization header is not AWS4-HMAC-SHA256")?;
    let mut parts = std::collections::BTreeMap::new();
    for p in rest.split(',') {
        if let Some((k, v)) = p.trim().split_once('=') {
            parts.insert(k, v);
        }
    }
    let (Some(credential), Some(names), Some(given)) = (
        parts.get("Credential"),
        parts.get("SignedHeaders"),
        parts.get("Signature"),
    ) else {
        return Err("the Authorization header lacks Credential, SignedHeaders or Signature".into());
    };
    let (key_id, scope) = credential.split_once('/').ok_or("a malformed Credential")?;
    if key_id != creds.access_key_id {
        return Err(format!("the access key {key_id} is not known"));
    }
    let amz_date = header("x-amz-date").ok_or("no x-amz-date header")?;
    let at = chrono::NaiveDateTime::parse_from_str(&amz_date, "%Y%m%dT%H%M%SZ")
        .map_err(|_| "x-amz-date is not a basic ISO 8601 time")?
        .and_utc();
    if (now - at).num_minutes().abs() > 15 {
        return Err("the request's time is more than 15 minutes from the server's".into());
    }
    let mut signed = Vec::new();
    for name in names.split(';') {
        let v = header(name).ok_or_else(|| format!("the signed header {name} is missing"))?;
        signed.push((name.to_owned(), v.trim().to_owned()));
    }
    if !signed.iter().any(|(k, _)| k == "host") {
        return Err("the host header is not signed".into());
    }
    let (want_scope, _, want) = signature(
        &creds.secret_access_key,
        region,
        service,
        path,
        &signed,
        body,
        &amz_date,
    );
    if *scope != want_scope {
        return Err(format!("the credential scope {scope} is not {want_scope}"));
    }
    if *given != want {
        return Err("the signature does not match".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What botocore 1.44.18 (`botocore.auth.SigV4Auth`) signs for this request: an SQS JSON
    /// `ReceiveMessage` POST with the documentation's example key, with a session token, at 2026-12-06 00:27:35 UTC.
    #[test]
    fn signs_as_botocore_does() {
        let creds = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: Some("session-token-example".into()),
        };
        let body = br#"{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/q","MaxNumberOfMessages":10}"#;
        let at = DateTime::parse_from_rfc3339("2026-12-06T00:27:35Z")
            .unwrap()
            .with_timezone(&Utc);
        let headers = [
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", "AmazonSQS.ReceiveMessage"),
        ];
        let req = Request {
            region: "us-east-1",
            service: "sqs",
            host: "sqs.us-east-1.amazonaws.com",
            path: "/",
            headers: &headers,
            body,
        };
        let out = sign(&creds, &req, at);
        assert_eq!(out[0], ("x-amz-date", "20261206T002735Z".to_owned()));
        assert_eq!(out[1].1, BOTOCORE);
        // and the server side takes what botocore signed, and nothing changed
        let header = |extra: &'static str| {
            move |name: &str| match name {
                "host" => Some("sqs.us-east-1.amazonaws.com".to_owned()),
                "x-amz-date" => Some("20261206T002735Z".to_owned()),
                "x-amz-security-token" => Some("session-token-example".to_owned()),
                "content-type" => Some("application/x-amz-json-1.0".to_owned()),
                "x-amz-target" => Some(format!("AmazonSQS.{extra}")),
                _ => None,
            }
        };
        let check = |target, body: &[u8], now| {
            let got = Received {
                region: "us-east-1",
                service: "sqs",
                path: "/",
                authorization: BOTOCORE,
                body,
            };
            verify(&creds, &got, header(target), now)
        };
        assert_eq!(check("ReceiveMessage", body, at), Ok(()));
        assert!(check("DeleteQueue", body, at).is_err(), "another action");
        assert!(check("ReceiveMessage", b"{}", at).is_err(), "another body");
        let later = at + chrono::Duration::minutes(16);
        assert!(
            check("ReceiveMessage", body, later)
                .unwrap_err()
                .contains("15 minutes")
        );
    }

    const BOTOCORE: &str = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261206/us-east-1/sqs/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=29f45f8a03ab062f4310ea7ac9e7986bda6a6be96685f82d4adf4ee88c76f22e";
}

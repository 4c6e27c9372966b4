//! Report documents and their presigned download URLs, as an object store serves them: the
//! URL carries its expiry and an HMAC signature, answers 403 once expired or tampered with,
//! and refuses a request that also carries an `Authorization` header (one auth mechanism per
//! request). Documents may be stored gzip-compressed.

use std::io::Write;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::sim::Sim;

pub(crate) fn hmac(key: &[u8], msg: &[u8]) -> String {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let ipad: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new()
        .chain_update(&ipad)
        .chain_update(msg)
        .finalize();
    hex::encode(
        Sha256::new()
            .chain_update(&opad)
            .chain_update(inner)
            .finalize(),
    )
}

/// Gzip of `bytes`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

fn s3_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message></Error>"
    );
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

/// `GET /__documents/{id}?X-Amz-Expires=…&X-Amz-Signature=…`.
pub async fn download(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    if headers.contains_key(header::AUTHORIZATION) {
        return s3_error(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified",
        );
    }
    let q: std::collections::HashMap<String, String> =
        form_urlencoded::parse(q.unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let expires: i64 = q
        .get("X-Amz-Expires")
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let sig = q.get("X-Amz-Signature").map(String::as_str).unwrap_or("");
    if sig != hmac(&sim.url_key, format!("{id}\n{expires}").as_bytes()) {
        return s3_error(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided.",
        );
    }
    if chrono::Utc::now().timestamp() > expires {
        return s3_error(StatusCode::FORBIDDEN, "AccessDenied", "Request has expired");
    }
    let doc = sim.store.with(|c| {
        c.query_row(
            "SELECT content_type, gzip, body FROM documents WHERE id = ?1",
            [&id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            },
        )
    });
    match doc {
        Ok((ct, gz, body)) => {
            let ct = if gz == 1 {
                "application/x-gzip".to_owned()
            } else {
                ct
            };
            (StatusCode::OK, [(header::CONTENT_TYPE, ct)], body).into_response()
        }
        Err(_) => s3_error(
            StatusCode::NOT_FOUND,
            "NoSuchKey",
            "The specified key does not exist.",
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        assert_eq!(
            super::hmac(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}

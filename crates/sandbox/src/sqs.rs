//! The sandbox's own SQS endpoint, speaking the SQS JSON protocol at `POST /sqs` (any SQS
//! client pointed at `<sandbox>/sqs` with the sandbox's key works): create and find queues,
//! send, receive with a long poll and a visibility timeout, delete (one or a batch) by the
//! receipt handle of the latest receive, and the queue's depth. Requests are signed with
//! Signature Version 4 by the key in `sandbox-credentials.json` (`sqs`), and checked as AWS
//! checks them. Messages live in `sandbox.sqlite`, so a restart loses none. The streams
//! (`crate::ads::streams`) deliver here when a subscription's destination is one of these
//! queues.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use md5::Digest;
use pp_sqs::wire;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Family, SimError};
use crate::reports::now_ms;
use crate::sim::Sim;
use crate::store::{random_hex, random_uuid};

/// The account the sandbox's queues belong to (one of the AWS documentation's examples).
pub const ACCOUNT: &str = "111122223333";
/// Its region.
pub const REGION: &str = "us-east-1";
/// Most messages one receive returns.
const MOST: u32 = 10;

fn err(status: u16, code: &str, message: impl Into<String>) -> SimError {
    SimError::new(status, code, message).for_family(Family::Sqs)
}

/// The ARN of the sandbox queue `name`.
pub fn arn(name: &str) -> String {
    format!("arn:aws:sqs:{REGION}:{ACCOUNT}:{name}")
}

/// The URL of the sandbox queue `name`.
pub fn queue_url(sim: &Sim, name: &str) -> String {
    format!("{}/sqs/{ACCOUNT}/{name}", sim.config.public_url)
}

/// The sandbox queue a URL names, if it is one of the sandbox's.
fn queue_of_url(sim: &Sim, url: &str) -> Option<String> {
    let prefix = format!("{}/sqs/{ACCOUNT}/", sim.config.public_url);
    url.strip_prefix(&prefix)
        .filter(|n| valid_name(n))
        .map(str::to_owned)
}

/// SQS's rule for a queue name: 1–80 letters, digits, hyphens and underscores.
fn valid_name(name: &str) -> bool {
    (1..=80).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The sandbox's SQS key: made on first use and kept.
pub fn key(sim: &Sim) -> Result<pp_sqs::Credentials, SimError> {
    sim.store.with(|c| {
        let have: Option<(String, String)> = c
            .query_row("SELECT access_key_id, secret FROM sqs_key", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        let (id, secret) = match have {
            Some(k) => k,
            None => {
                let id = format!("AKIASANDBOX{}", random_hex(5).to_uppercase());
                let secret = random_hex(20);
                c.execute(
                    "INSERT INTO sqs_key (access_key_id, secret) VALUES (?1, ?2)",
                    params![id, secret],
                )?;
                (id, secret)
            }
        };
        Ok(pp_sqs::Credentials {
            access_key_id: id,
            secret_access_key: secret,
            session_token: None,
        })
    })
}

/// Makes queue `name` (an existing one is kept as it is).
pub fn create(sim: &Sim, name: &str) -> Result<(), SimError> {
    if !valid_name(name) {
        return Err(err(
            400,
            "InvalidParameterValue",
            "Queue name can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        ));
    }
    sim.store.with(|c| {
        c.execute(
            "INSERT OR IGNORE INTO sqs_queues (name, created_at) VALUES (?1, ?2)",
            params![name, now_ms()],
        )
    })?;
    Ok(())
}

/// Whether the sandbox has queue `name`.
pub fn exists(sim: &Sim, name: &str) -> Result<bool, SimError> {
    sim.store
        .with(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM sqs_queues WHERE name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
        })
        .map(|n| n > 0)
}

/// Puts `bodies` on queue `name` in one transaction.
pub fn enqueue(sim: &Sim, name: &str, bodies: &[String]) -> Result<(), SimError> {
    let now = now_ms();
    sim.store.with(|c| {
        let tx = c.unchecked_transaction()?;
        {
            let mut ins = tx.prepare_cached(
                "INSERT INTO sqs_messages (id, queue, body, sent_at, visible_at) VALUES (?1, ?2, ?3, ?4, ?4)",
            )?;
            for b in bodies {
                ins.execute(params![random_uuid(), name, b, now])?;
            }
        }
        tx.commit()
    })
}

fn md5_hex(body: &str) -> String {
    hex::encode(md5::Md5::digest(body.as_bytes()))
}

fn queue(sim: &Sim, url: &str) -> Result<String, SimError> {
    let missing = || {
        err(
            400,
            "QueueDoesNotExist",
            "The specified queue does not exist.",
        )
    };
    let name = queue_of_url(sim, url).ok_or_else(missing)?;
    if exists(sim, &name)? {
        Ok(name)
    } else {
        Err(missing())
    }
}

/// `POST /sqs`: one action of the JSON protocol, named by `X-Amz-Target`.
pub async fn endpoint(
    State(sim): State<Arc<Sim>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, SimError> {
    authenticate(&sim, &headers, &body)?;
    let action = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .and_then(|t| t.strip_prefix(wire::TARGET_PREFIX))
        .ok_or_else(|| {
            err(
                400,
                "InvalidAction",
                "X-Amz-Target names no AmazonSQS action",
            )
        })?
        .to_owned();
    match action.as_str() {
        "CreateQueue" => {
            let r: wire::CreateQueue = read(&body)?;
            create(&sim, &r.queue_name)?;
            answer(&wire::QueueUrl {
                queue_url: queue_url(&sim, &r.queue_name),
            })
        }
        "GetQueueUrl" => {
            let r: wire::GetQueueUrl = read(&body)?;
            if !exists(&sim, &r.queue_name)? {
                return Err(err(
                    400,
                    "QueueDoesNotExist",
                    "The specified queue does not exist.",
                ));
            }
            answer(&wire::QueueUrl {
                queue_url: queue_url(&sim, &r.queue_name),
            })
        }
        "SendMessage" => {
            let r: wire::SendMessage = read(&body)?;
            let name = queue(&sim, &r.queue_url)?;
            enqueue(&sim, &name, std::slice::from_ref(&r.message_body))?;
            answer(&wire::Sent {
                message_id: random_uuid(),
                md5_of_message_body: md5_hex(&r.message_body),
            })
        }
        "SendMessageBatch" => {
            let r: wire::SendMessageBatch = read(&body)?;
            let name = queue(&sim, &r.queue_url)?;
            if r.entries.is_empty() || r.entries.len() > 10 {
                return Err(err(
                    400,
                    "TooManyEntriesInBatchRequest",
                    "A batch holds 1 to 10 entries",
                ));
            }
            let bodies: Vec<String> = r.entries.iter().map(|e| e.message_body.clone()).collect();
            enqueue(&sim, &name, &bodies)?;
            answer(&wire::BatchResult {
                successful: r
                    .entries
                    .into_iter()
                    .map(|e| wire::BatchOk {
                        id: e.id,
                        message_id: Some(random_uuid()),
                    })
                    .collect(),
                failed: Vec::new(),
            })
        }
        "ReceiveMessage" => receive(&sim, read(&body)?).await,
        "DeleteMessageBatch" => {
            let r: wire::DeleteMessageBatch = read(&body)?;
            let name = queue(&sim, &r.queue_url)?;
            let mut out = wire::BatchResult::default();
            for e in r.entries {
                if delete(&sim, &name, &e.receipt_handle)? {
                    out.successful.push(wire::BatchOk {
                        id: e.id,
                        message_id: None,
                    });
                } else {
                    out.failed.push(wire::BatchFailed {
                        id: e.id,
                        code: "ReceiptHandleIsInvalid".into(),
                        message: "The receipt handle is not the latest receive's".into(),
                        sender_fault: true,
                    });
                }
            }
            answer(&out)
        }
        "DeleteMessage" => {
            let r: wire::DeleteEntry = read_delete(&body)?;
            let name = queue(&sim, &r.id)?;
            if !delete(&sim, &name, &r.receipt_handle)? {
                return Err(err(
                    400,
                    "ReceiptHandleIsInvalid",
                    "The receipt handle is not the latest receive's",
                ));
            }
            answer(&serde_json::json!({}))
        }
        "GetQueueAttributes" => {
            let r: wire::GetQueueAttributes = read(&body)?;
            let name = queue(&sim, &r.queue_url)?;
            let now = now_ms();
            let (ready, hidden) = sim.store.with(|c| {
                c.query_row(
                    "SELECT COALESCE(SUM(visible_at <= ?2), 0), COALESCE(SUM(visible_at > ?2), 0) FROM sqs_messages WHERE queue = ?1",
                    params![name, now],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
                )
            })?;
            let mut a = wire::Attributes::default();
            a.attributes
                .insert("ApproximateNumberOfMessages".into(), ready.to_string());
            a.attributes.insert(
                "ApproximateNumberOfMessagesNotVisible".into(),
                hidden.to_string(),
            );
            a.attributes.insert("QueueArn".into(), arn(&name));
            answer(&a)
        }
        other => Err(err(
            400,
            "InvalidAction",
            format!("The action {other} is not valid for this endpoint."),
        )),
    }
}

/// `DeleteMessage`'s body, read into a delete entry: `QueueUrl` in `id`.
fn read_delete(body: &[u8]) -> Result<wire::DeleteEntry, SimError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct One {
        queue_url: String,
        receipt_handle: String,
    }
    let one: One = read(body)?;
    Ok(wire::DeleteEntry {
        id: one.queue_url,
        receipt_handle: one.receipt_handle,
    })
}

fn read<T: DeserializeOwned>(body: &[u8]) -> Result<T, SimError> {
    serde_json::from_slice(body).map_err(|e| err(400, "InvalidParameterValue", e.to_string()))
}

fn answer(v: &impl Serialize) -> Result<Response, SimError> {
    let body = serde_json::to_vec(v).map_err(SimError::internal)?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, wire::CONTENT_TYPE)],
        body,
    )
        .into_response())
}

/// Checks the request's Signature Version 4 against the sandbox's key.
fn authenticate(sim: &Sim, headers: &HeaderMap, body: &[u8]) -> Result<(), SimError> {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            err(
                403,
                "MissingAuthenticationToken",
                "The request must be signed (Signature Version 4)",
            )
        })?;
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let path = url::Url::parse(&sim.config.public_url)
        .map(|u| format!("{}/sqs", u.path().trim_end_matches('/')))
        .unwrap_or_else(|_| "/sqs".into());
    let got = pp_sqs::sigv4::Received {
        region: REGION,
        service: "sqs",
        path: &path,
        authorization: auth,
        body,
    };
    pp_sqs::sigv4::verify(&key(sim)?, &got, header, chrono::Utc::now())
        .map_err(|why| err(403, "InvalidSignatureException", why))
}

/// Receives up to `MaxNumberOfMessages`, polling until `WaitTimeSeconds` for the first.
async fn receive(sim: &Arc<Sim>, r: wire::ReceiveMessage) -> Result<Response, SimError> {
    let name = queue(sim, &r.queue_url)?;
    let max = r.max_number_of_messages.unwrap_or(1);
    if !(1..=MOST).contains(&max) {
        return Err(err(
            400,
            "InvalidParameterValue",
            "MaxNumberOfMessages is 1 to 10",
        ));
    }
    let wait = Duration::from_secs(u64::from(r.wait_time_seconds.unwrap_or(0).min(20)));
    let visibility = i64::from(r.visibility_timeout.unwrap_or(30).min(43_200)) * 1_000;
    let all = r.message_system_attribute_names.iter().any(|a| a == "All");
    let wants = |a: &str| all || r.message_system_attribute_names.iter().any(|x| x == a);
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let got = take(sim, &name, max, visibility)?;
        if !got.is_empty() || tokio::time::Instant::now() >= deadline {
            let messages = got
                .into_iter()
                .map(|(id, body, receipt, sent, receives)| {
                    let mut attributes = std::collections::BTreeMap::new();
                    if wants("SentTimestamp") {
                        attributes.insert("SentTimestamp".into(), sent.to_string());
                    }
                    if wants("ApproximateReceiveCount") {
                        attributes.insert("ApproximateReceiveCount".into(), receives.to_string());
                    }
                    wire::Message {
                        md5_of_body: md5_hex(&body),
                        message_id: id,
                        receipt_handle: receipt,
                        body,
                        attributes,
                    }
                })
                .collect();
            return answer(&wire::Received { messages });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

type Taken = (String, String, String, i64, i64);

/// Hides up to `max` visible messages of `queue` for `visibility` ms under new receipt handles.
fn take(sim: &Sim, queue: &str, max: u32, visibility: i64) -> Result<Vec<Taken>, SimError> {
    let now = now_ms();
    sim.store.with(|c| {
        let tx = c.unchecked_transaction()?;
        let rows: Vec<(i64, String, String, i64, i64)> = tx
            .prepare_cached(
                "SELECT seq, id, body, sent_at, receives FROM sqs_messages
                 WHERE queue = ?1 AND visible_at <= ?2 ORDER BY visible_at, seq LIMIT ?3",
            )?
            .query_map(params![queue, now, max], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for (seq, id, body, sent, receives) in rows {
            let receipt = random_hex(24);
            tx.execute(
                "UPDATE sqs_messages SET receipt = ?2, visible_at = ?3, receives = receives + 1 WHERE seq = ?1",
                params![seq, receipt, now + visibility],
            )?;
            out.push((id, body, receipt, sent, receives + 1));
        }
        tx.commit()?;
        Ok(out)
    })
}

/// Deletes the message whose latest receive gave `receipt`; whether there was one.
fn delete(sim: &Sim, queue: &str, receipt: &str) -> Result<bool, SimError> {
    sim.store
        .with(|c| {
            c.execute(
                "DELETE FROM sqs_messages WHERE queue = ?1 AND receipt = ?2",
                params![queue, receipt],
            )
        })
        .map(|n| n > 0)
}

//! A small Amazon SQS client: the JSON protocol's few actions a queue consumer and a
//! publisher need (create and find a queue, send, receive with a long poll, delete in batches,
//! read the queue's attributes), each request signed with Signature Version 4 and sent with
//! reqwest to a configured endpoint — AWS's, a local SQS server's, or the sandbox's own queue.
//!
//! Why not the AWS SDK: `docs/decisions.md` ("Marketing Stream: a small SQS client") has the
//! compile times measured on this project's two-core machine. The tests hold this client to a
//! real SQS server (moto's) and to botocore's signer.

#[cfg(feature = "moto")]
pub mod moto;
pub mod sigv4;
pub mod wire;

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub use sigv4::Credentials;
pub use wire::Message;

/// What can go wrong talking to a queue.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The service refused: its code (`QueueDoesNotExist`, `AccessDenied` …) and message.
    #[error("SQS refused {action}: {code}: {message}")]
    Refused {
        action: &'static str,
        status: u16,
        code: String,
        message: String,
    },
    /// The endpoint could not be reached or answered something that is not the protocol.
    #[error("SQS {action}: {0}", .detail)]
    Transport {
        action: &'static str,
        detail: String,
    },
}

impl Error {
    /// The service's error code, if it answered with one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Refused { code, .. } => Some(code),
            Error::Transport { .. } => None,
        }
    }
}

/// Where a client sends and as whom.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// `https://sqs.us-east-1.amazonaws.com`, `http://127.0.0.1:5000` …
    pub url: url::Url,
    /// The signing region: `us-east-1`.
    pub region: String,
    pub credentials: Credentials,
}

/// An SQS client over one endpoint.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    endpoint: Endpoint,
}

impl Client {
    /// A client of `endpoint` over `http` (which sets its own timeouts: a long poll holds a
    /// request up to 20 s, so its timeout must be longer).
    pub fn new(http: reqwest::Client, endpoint: Endpoint) -> Self {
        Self { http, endpoint }
    }

    /// The endpoint's URL.
    pub fn endpoint(&self) -> &url::Url {
        &self.endpoint.url
    }

    async fn call<T: DeserializeOwned>(
        &self,
        action: &'static str,
        body: &impl Serialize,
    ) -> Result<T, Error> {
        let transport = |detail: String| Error::Transport { action, detail };
        let body = serde_json::to_vec(body).map_err(|e| transport(e.to_string()))?;
        let url = &self.endpoint.url;
        let host = match (url.host_str(), url.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_owned(),
            (None, _) => return Err(transport(format!("{url} names no host"))),
        };
        let target = format!("{}{action}", wire::TARGET_PREFIX);
        let headers = [
            ("content-type", wire::CONTENT_TYPE),
            ("x-amz-target", target.as_str()),
        ];
        let signed = sigv4::sign(
            &self.endpoint.credentials,
            &sigv4::Request {
                region: &self.endpoint.region,
                service: "sqs",
                host: &host,
                path: url.path(),
                headers: &headers,
                body: &body,
            },
            chrono::Utc::now(),
        );
        let mut req = self
            .http
            .post(url.clone())
            .header("content-type", wire::CONTENT_TYPE)
            .header("x-amz-target", &target);
        for (k, v) in signed {
            req = req.header(k, v);
        }
        let res = req
            .body(body)
            .send()
            .await
            .map_err(|e| transport(e.without_url().to_string()))?;
        let status = res.status().as_u16();
        let bytes = res.bytes().await.map_err(|e| transport(e.to_string()))?;
        if status >= 400 {
            return Err(match serde_json::from_slice::<wire::Fault>(&bytes) {
                Ok(f) => Error::Refused {
                    action,
                    status,
                    code: f.code().to_owned(),
                    message: f.message(),
                },
                Err(_) => transport(format!(
                    "HTTP {status}: {}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                )),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| transport(format!("unreadable answer: {e}")))
    }

    /// Creates the queue `name` (an existing one is answered as it is); its URL.
    pub async fn create_queue(&self, name: &str) -> Result<String, Error> {
        let q: wire::QueueUrl = self
            .call(
                "CreateQueue",
                &wire::CreateQueue {
                    queue_name: name.into(),
                },
            )
            .await?;
        Ok(q.queue_url)
    }

    /// The URL of the queue `name`.
    pub async fn queue_url(&self, name: &str) -> Result<String, Error> {
        let q: wire::QueueUrl = self
            .call(
                "GetQueueUrl",
                &wire::GetQueueUrl {
                    queue_name: name.into(),
                },
            )
            .await?;
        Ok(q.queue_url)
    }

    /// Sends `body`; the message's id.
    pub async fn send(&self, queue_url: &str, body: &str) -> Result<String, Error> {
        let sent: wire::Sent = self
            .call(
                "SendMessage",
                &wire::SendMessage {
                    queue_url: queue_url.into(),
                    message_body: body.into(),
                },
            )
            .await?;
        Ok(sent.message_id)
    }

    /// Sends up to ten `bodies` in one request, in order; an error names the first refused.
    pub async fn send_batch(&self, queue_url: &str, bodies: &[String]) -> Result<(), Error> {
        if bodies.is_empty() {
            return Ok(());
        }
        let out: wire::BatchResult = self
            .call(
                "SendMessageBatch",
                &wire::SendMessageBatch {
                    queue_url: queue_url.into(),
                    entries: bodies
                        .iter()
                        .enumerate()
                        .map(|(i, b)| wire::SendEntry {
                            id: i.to_string(),
                            message_body: b.clone(),
                        })
                        .collect(),
                },
            )
            .await?;
        match out.failed.into_iter().next() {
            None => Ok(()),
            Some(f) => Err(Error::Refused {
                action: "SendMessageBatch",
                status: 200,
                code: f.code,
                message: format!("entry {}: {}", f.id, f.message),
            }),
        }
    }

    /// Receives up to `max` (1–10) messages, waiting up to `wait` (at most 20 s) for the first;
    /// each is hidden from other receivers for `visibility`. Asks for each message's sent time
    /// and receive count.
    pub async fn receive(
        &self,
        queue_url: &str,
        max: u32,
        wait: Duration,
        visibility: Duration,
    ) -> Result<Vec<Message>, Error> {
        let got: wire::Received = self
            .call(
                "ReceiveMessage",
                &wire::ReceiveMessage {
                    queue_url: queue_url.into(),
                    max_number_of_messages: Some(max.clamp(1, 10)),
                    wait_time_seconds: Some(wait.as_secs().min(20) as u32),
                    visibility_timeout: Some(visibility.as_secs() as u32),
                    message_system_attribute_names: vec![
                        "SentTimestamp".into(),
                        "ApproximateReceiveCount".into(),
                    ],
                },
            )
            .await?;
        Ok(got.messages)
    }

    /// Deletes the messages of these receipt handles (at most 10); the handles the queue
    /// refused, with its reason (an expired handle's message is received again later).
    pub async fn delete(
        &self,
        queue_url: &str,
        receipts: &[&str],
    ) -> Result<Vec<(String, String)>, Error> {
        if receipts.is_empty() {
            return Ok(Vec::new());
        }
        let out: wire::BatchResult = self
            .call(
                "DeleteMessageBatch",
                &wire::DeleteMessageBatch {
                    queue_url: queue_url.into(),
                    entries: receipts
                        .iter()
                        .enumerate()
                        .map(|(i, r)| wire::DeleteEntry {
                            id: i.to_string(),
                            receipt_handle: (*r).into(),
                        })
                        .collect(),
                },
            )
            .await?;
        Ok(out
            .failed
            .into_iter()
            .map(|f| {
                let i: usize = f.id.parse().unwrap_or(usize::MAX);
                let handle = receipts.get(i).map_or(f.id.clone(), |r| (*r).to_owned());
                (handle, format!("{}: {}", f.code, f.message))
            })
            .collect())
    }

    /// The queue's ARN (what a publisher is given to send to).
    pub async fn arn(&self, queue_url: &str) -> Result<String, Error> {
        let mut a: wire::Attributes = self
            .call(
                "GetQueueAttributes",
                &wire::GetQueueAttributes {
                    queue_url: queue_url.into(),
                    attribute_names: vec!["QueueArn".into()],
                },
            )
            .await?;
        a.attributes
            .remove("QueueArn")
            .ok_or_else(|| Error::Transport {
                action: "GetQueueAttributes",
                detail: "the answer has no QueueArn".into(),
            })
    }

    /// The messages waiting in the queue and those received but not deleted yet.
    pub async fn depth(&self, queue_url: &str) -> Result<(u64, u64), Error> {
        let a: wire::Attributes = self
            .call(
                "GetQueueAttributes",
                &wire::GetQueueAttributes {
                    queue_url: queue_url.into(),
                    attribute_names: vec![
                        "ApproximateNumberOfMessages".into(),
                        "ApproximateNumberOfMessagesNotVisible".into(),
                    ],
                },
            )
            .await?;
        let n = |k: &str| {
            a.attributes
                .get(k)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| Error::Transport {
                    action: "GetQueueAttributes",
                    detail: format!("the answer has no number {k}"),
                })
        };
        Ok((
            n("ApproximateNumberOfMessages")?,
            n("ApproximateNumberOfMessagesNotVisible")?,
        ))
    }
}

/// The queue name at the end of an SQS ARN (`arn:aws:sqs:us-east-1:123456789012:name`).
pub fn queue_name_of_arn(arn: &str) -> Option<&str> {
    let parts: Vec<&str> = arn.split(':').collect();
    match parts.as_slice() {
        ["arn", _, "sqs", _, _, name] if !name.is_empty() => Some(name),
        _ => None,
    }
}

//! The SQS JSON protocol's requests and answers (`X-Amz-Target: AmazonSQS.<Action>`, content
//! type `application/x-amz-json-1.0`): the actions this project speaks, named and spelled as
//! the service does. The client sends these; the sandbox's queue reads them.

use serde::{Deserialize, Serialize};

/// The protocol's content type.
pub const CONTENT_TYPE: &str = "application/x-amz-json-1.0";
/// The prefix of every action's `X-Amz-Target`.
pub const TARGET_PREFIX: &str = "AmazonSQS.";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateQueue {
    pub queue_name: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueUrl {
    pub queue_name: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueueUrl {
    pub queue_url: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessage {
    pub queue_url: String,
    pub message_body: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Sent {
    pub message_id: String,
    #[serde(rename = "MD5OfMessageBody")]
    pub md5_of_message_body: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendMessageBatch {
    pub queue_url: String,
    pub entries: Vec<SendEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SendEntry {
    pub id: String,
    pub message_body: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReceiveMessage {
    pub queue_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_number_of_messages: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_time_seconds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility_timeout: Option<u32>,
    /// `SentTimestamp`, `ApproximateReceiveCount` … or `All`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_system_attribute_names: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Received {
    #[serde(default)]
    pub messages: Vec<Message>,
}

/// One received message.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Message {
    pub message_id: String,
    pub receipt_handle: String,
    pub body: String,
    #[serde(rename = "MD5OfBody", default)]
    pub md5_of_body: String,
    /// System attributes asked for: `SentTimestamp` (epoch milliseconds, as text),
    /// `ApproximateReceiveCount`.
    #[serde(default)]
    pub attributes: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteMessageBatch {
    pub queue_url: String,
    pub entries: Vec<DeleteEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteEntry {
    pub id: String,
    pub receipt_handle: String,
}

/// A batch's answer (`SendMessageBatch`, `DeleteMessageBatch`): each entry's id, done or not.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchResult {
    #[serde(default)]
    pub successful: Vec<BatchOk>,
    #[serde(default)]
    pub failed: Vec<BatchFailed>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchOk {
    pub id: String,
    /// A sent message's id (`SendMessageBatch` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchFailed {
    pub id: String,
    pub code: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub sender_fault: bool,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetQueueAttributes {
    pub queue_url: String,
    pub attribute_names: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Attributes {
    #[serde(default)]
    pub attributes: std::collections::BTreeMap<String, String>,
}

/// An error answer: `__type` is `com.amazonaws.sqs#QueueDoesNotExist` and the like (older
/// servers give the bare code), with a message.
#[derive(Debug, Serialize, Deserialize)]
pub struct Fault {
    #[serde(rename = "__type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    /// Some servers spell it `Message` (moto sends both).
    #[serde(default, rename = "Message", skip_serializing_if = "Option::is_none")]
    message_upper: Option<String>,
}

impl Fault {
    /// Its message, however the server spelled the key.
    pub fn message(&self) -> String {
        self.message
            .clone()
            .or_else(|| self.message_upper.clone())
            .unwrap_or_default()
    }

    /// The code without its namespace: `QueueDoesNotExist`.
    pub fn code(&self) -> &str {
        self.kind.rsplit('#').next().unwrap_or(&self.kind)
    }
}

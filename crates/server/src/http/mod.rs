//! HTTP plumbing shared by every route: error rendering, the JSON body extractor, request ids
//! with request logs, and bearer authentication.

pub mod auth;
pub mod error;
pub mod json;
pub mod request_log;

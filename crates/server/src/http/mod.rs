//! HTTP plumbing shared by every route: error rendering, success rendering, the JSON body and
//! query-string extractors, request ids with request logs, bearer authentication, a token
//! route's gate (`gate`, with API usage for counted routes in `usage`), and the one outer
//! layer (`frame`) that puts them around every request.

pub mod auth;
pub mod error;
pub mod frame;
pub mod gate;
pub mod headers;
pub mod json;
pub mod query;
pub mod rate;
pub mod render;
pub mod request_log;
pub mod slot;
pub mod tool_text;
pub mod usage;

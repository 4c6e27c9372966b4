//! Amazon Marketing Stream into a managed warehouse: hourly traffic, conversions and budget
//! use, pushed by the provider to SQS queues of the gateway's (one per tenant and dataset),
//! beside the daily reports the sync polls. Each part is a module:
//!
//! - `message`: what a message says (SNS envelope, record, its local hour), read strictly;
//! - `subscribe`: the queues made and each advertising profile subscribed to each dataset;
//! - `consume`: a receive from a queue — confirmations visited (only at the provider's SNS or
//!   the configured sandbox), records kept once each in the state store (`store.streams()`,
//!   by `idempotency_id`, in one transaction), unreadable messages kept with their reason, and
//!   only then the messages deleted: a consumer killed mid-batch leaves its messages to come
//!   back, and a second instance's copy of a record is a duplicate the store drops;
//! - `load`: a day's records made into the hourly tables (`ads_stream_*`), replacing the
//!   day's slice;
//! - `status`: each queue's lag and last message, and each settled day's hours beside the
//!   daily report, the difference named;
//! - `notices`: the selling side's notifications (one queue per tenant, every type), read
//!   into events for the feed and, for a finished report, the word the sync fetches by.
//!
//! `Streams` (`service.rs`, handed out by `WarehouseSync::streams`) is what the front doors and
//! the worker pool call. The consumer runs on every instance (`Streams::run`), as SQS
//! consumers do.

pub mod consume;
pub mod load;
pub mod message;
pub mod notices;
pub mod service;
pub mod status;
pub mod subscribe;

pub use service::Streams;

use std::sync::Arc;
use std::time::Duration;

/// How the gateway reaches its queues.
#[derive(Clone)]
pub struct StreamConfig {
    pub sqs: pp_sqs::Client,
    /// The region and account the queues' ARNs are in come from the queues themselves; a
    /// queue's name is `<queue_prefix>-<tenant>-<dataset>`.
    pub queue_prefix: String,
    /// Where a subscription's `SubscribeURL` may point (scheme and host, such as
    /// `https://sns.us-east-1.amazonaws.com`): any other is refused, never fetched.
    pub confirm_origins: Vec<String>,
    /// How long a receive waits for its first message, and how long a received message
    /// stays hidden from other consumers before it comes back.
    pub wait: Duration,
    pub visibility: Duration,
    /// The client confirmations are visited with (no redirects followed).
    pub http: reqwest::Client,
    /// A queue whose newest message was published longer ago than this is `lagging`.
    pub lagging_after: Duration,
    /// How often at most a merchant's intraday monitors are queued while its hours arrive.
    pub monitor_every: Duration,
}

impl StreamConfig {
    /// Queues at `endpoint`, named `pp-…`; confirmations visited at the provider's SNS (its
    /// three regions) and at `more_origins` (the sandbox's, in dev), with no redirects
    /// followed; a receive waits a second, a received message is hidden for a minute.
    pub fn new(endpoint: pp_sqs::Endpoint, more_origins: &[String]) -> pp_core::Result<Self> {
        // reqwest is built without a crypto provider: ring is the process's (a no-op once set)
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| pp_core::Error::internal_with("building the stream's HTTP client", e))?;
        let mut confirm_origins: Vec<String> = ["us-east-1", "eu-west-1", "us-west-2"]
            .iter()
            .map(|r| format!("https://sns.{r}.amazonaws.com"))
            .collect();
        confirm_origins.extend(more_origins.iter().cloned());
        Ok(Self {
            sqs: pp_sqs::Client::new(http.clone(), endpoint),
            queue_prefix: "pp".into(),
            confirm_origins,
            wait: Duration::from_secs(1),
            visibility: Duration::from_secs(60),
            http,
            lagging_after: Duration::from_millis(status::LAGGING_AFTER_MS as u64),
            monitor_every: Duration::from_secs(300),
        })
    }
}

/// The consumer's shared configuration, when the gateway has queues.
pub type Stream = Option<Arc<StreamConfig>>;

/// What one pass over every queue did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub received: u64,
    pub kept: u64,
    pub duplicates: u64,
    pub rejected: u64,
    pub confirmed: u64,
    /// Days whose hourly rows were made again.
    pub days_made: u64,
    /// Whether any queue was read (its long poll is then the pass's wait).
    pub polled: bool,
}

impl Pass {
    fn add(&mut self, o: &Pass) {
        self.received += o.received;
        self.kept += o.kept;
        self.duplicates += o.duplicates;
        self.rejected += o.rejected;
        self.confirmed += o.confirmed;
        self.days_made += o.days_made;
        self.polled |= o.polled;
    }
}

/// Runs the consumer until its task is ended (as a crash would end it: what was received
/// and not kept comes back to the next consumer): two loops, one over the stream queues and
/// one over the notification queues (so a notification never waits behind seven datasets'
/// long polls), each a pass over its queues, then (streams) the days to make; a quiet pass
/// waits a second before the next. A failing queue is logged and the others go on. Returns
/// at once when the gateway has no queues.
pub(crate) async fn run_streams(s: &Streams) {
    if s.sync.stream.is_none() {
        return;
    }
    tokio::join!(run_loop(s, Queues::Streams), run_loop(s, Queues::Notices));
}

/// Which of the tenants' queues a loop reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queues {
    Streams,
    Notices,
}

async fn run_loop(s: &Streams, which: Queues) {
    let long_polls = s.sync.stream.as_ref().is_some_and(|c| !c.wait.is_zero());
    loop {
        let quiet = match stream_pass(s, which).await {
            // a pass that long-polled its queues has waited in them already
            Ok(p) => p.received == 0 && p.days_made == 0 && !(p.polled && long_polls),
            Err(e) => {
                tracing::warn!(error = %e, "a stream pass failed");
                true
            }
        };
        if quiet {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// One pass: each of `which` queues read until a receive comes back empty (at most 20
/// receives), then (streams) up to 200 days made.
pub(crate) async fn stream_pass(s: &Streams, which: Queues) -> pp_core::Result<Pass> {
    let mut pass = Pass::default();
    let mut known = consume::Sellers::default();
    let queues = s.sync.store.streams().queues().await?;
    let mine = queues
        .into_iter()
        .filter(|(_, dataset, _)| (dataset == notices::QUEUE) == (which == Queues::Notices));
    let mut any = false;
    for (tenant, dataset, url) in mine {
        any = true;
        for _ in 0..20 {
            let got = if dataset == notices::QUEUE {
                consume::consume_notices(s, &tenant, &url).await
            } else {
                consume::consume(s, &mut known, &tenant, &dataset, &url).await
            };
            match got {
                Ok(p) => {
                    pass.add(&p);
                    if p.received == 0 {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(tenant = tenant.as_str(), dataset, error = %e, "a stream queue could not be read");
                    break;
                }
            }
        }
    }
    pass.polled = any;
    if which == Queues::Notices {
        return Ok(pass);
    }
    pass.days_made += consume::make_stream_days(s, &mut known, 200).await?;
    Ok(pass)
}

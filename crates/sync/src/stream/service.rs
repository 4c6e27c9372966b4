//! `Streams`: the Marketing Stream half of the warehouse sync, as its callers see it — the
//! consumer the worker pool runs, the status and the subscribing. Each
//! method is a short door into its module.

use pp_core::{Error, Principal, Result, Scope};

use super::status::StreamStatus;
use super::{status, subscribe};
use crate::WarehouseSync;

/// The stream half of a warehouse sync (`WarehouseSync::streams`).
#[derive(Clone)]
pub struct Streams {
    pub(crate) sync: WarehouseSync,
    /// When this consumer last queued each merchant's intraday monitors ((tenant, seller)).
    pub(crate) monitored: std::sync::Arc<
        std::sync::Mutex<std::collections::HashMap<(String, i64), std::time::Instant>>,
    >,
}

impl Streams {
    pub(crate) fn new(sync: WarehouseSync) -> Self {
        Self {
            sync,
            monitored: Default::default(),
        }
    }

    /// Runs the consumer until its task is ended; returns at once without queues.
    pub async fn run(self) {
        super::run_streams(&self).await
    }

    /// The tenant's streams (`account:read`).
    pub async fn status(&self, p: &Principal) -> Result<StreamStatus> {
        status::stream_status(self, p).await
    }

    /// The tenant's queues alone, without the days checked against the reports
    /// (`account:read`): what a page showing each queue's lag needs.
    pub async fn queues(&self, p: &Principal) -> Result<Vec<status::QueueStatus>> {
        p.require(&[Scope::AccountRead])?;
        status::queue_status(self, &p.tenant).await
    }

    /// Makes the tenant's stream queues and subscribes its advertising profiles to every
    /// dataset (`sync:write` with `account:read`, as a sync start); the status after.
    pub async fn subscribe(&self, p: &Principal) -> Result<StreamStatus> {
        p.require(&[Scope::SyncWrite, Scope::AccountRead])?;
        if self.sync.stream.is_none() {
            return Err(Error::new(
                pp_core::Kind::BadParams,
                "this gateway has no stream queues: its operator has not configured an SQS endpoint",
            )
            .with_fix("Set stream_sqs_endpoint and its key (docs/configuration.md); see docs/streams.md."));
        }
        if self.sync.store.sync().loader(&p.tenant).await?.is_none() {
            return Err(Error::new(
                pp_core::Kind::BadParams,
                "this tenant's warehouse is external: the gateway does not fill it",
            ));
        }
        subscribe::subscribe_tenant(self, &p.tenant).await?;
        self.status(p).await
    }
}

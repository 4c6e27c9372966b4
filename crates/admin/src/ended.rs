//! What ending someone's access did: revoking a credential or an application, or disabling a
//! person, also withdraws the advertising commits they asked a person to approve
//! (`pp_marketplace::service::withdraw`): a request nobody can act for any more is never sent;
//! and it disables the webhook endpoints that access registered, each with a
//! `webhook.endpoint.disabled` event: nothing is delivered for an access that has ended.

use pp_core::Result;
use pp_store::Store;
use pp_store::approvals::Whose;

use crate::Operator;

/// Whether the access was live until now, and the held commits withdrawn with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    /// False when it had already ended (nothing changed then but stragglers withdrawn).
    pub changed: bool,
    /// The approval requests withdrawn (their ids).
    pub withdrawn: Vec<String>,
    /// The webhook endpoints disabled (their ids).
    pub disabled_webhooks: Vec<String>,
}

impl Ended {
    /// Withdraws the pending requests of `whose` as `op`, `why` naming what ended.
    pub(crate) async fn withdrawing(
        store: &Store,
        op: &Operator,
        changed: bool,
        whose: Whose<'_>,
        why: &str,
    ) -> Result<Self> {
        let withdrawn = pp_marketplace::service::withdraw(store, &whose, op.actor(), why)
            .await?
            .into_iter()
            .map(|a| a.approval_id)
            .collect();
        let disabled_webhooks = store
            .webhooks()
            .disable_registered(&whose, op.actor(), why)
            .await?
            .into_iter()
            .map(|e| e.id)
            .collect();
        Ok(Self {
            changed,
            withdrawn,
            disabled_webhooks,
        })
    }
}

//! The plan service (`PLN-*` requests): answers that propose writes. A plan request reads the
//! warehouse like any catalog request, decides what to change, and answers with the
//! advertising write **dry runs** of those changes — plans with `planId` and `planHash` — made
//! through the marketplace as the caller. The request itself never writes: committing a plan
//! goes through the existing commit, the write policy's bounds and the approval queue.

pub mod allocate;
pub mod budget_pacing;
pub mod daypart;

use pp_core::{Error, Principal, Result};
use pp_marketplace::Marketplace;

/// Who asked a plan request, and the marketplace its dry runs go through.
#[derive(Clone)]
pub struct Caller {
    pub principal: Principal,
    pub market: Marketplace,
}

impl std::fmt::Debug for Caller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Caller({})", self.principal.actor.as_str())
    }
}

/// An advertising call (`marketplace_ads_call`'s arguments: `operation`, `profileId`, `query`)
/// made through the marketplace as the caller — a read, or a write's dry run; the answer as
/// `POST /api/marketplace/ads/call` gives it.
pub async fn ads_call(caller: &Caller, call: &serde_json::Value) -> Result<serde_json::Value> {
    let req = pp_core::wire::from_value(call.clone())
        .map_err(|e| Error::internal(format!("a plan's call does not read: {e}")))?;
    let answer = caller
        .market
        .calls()
        .ads_call(&caller.principal, req, None)
        .await?;
    serde_json::to_value(&answer).map_err(Error::internal_from)
}

//! The plan service (`PLN-*` requests): answers that propose writes. A plan request reads the
//! warehouse like any catalog request, decides what to change, and answers with the
//! advertising write **dry runs** of those changes — plans with `planId` and `planHash` — made
//! through the marketplace as the caller. The request itself never writes: committing a plan
//! goes through the existing commit, the write policy's bounds and the approval queue.

pub mod allocate;
pub mod budget_pacing;
pub mod daypart;

use pp_core::Principal;
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

//! Intelligence enrollment: an account switched off (its requests answer `not_enrolled`) or
//! back on — on is the default — recorded as changed by the operator; and a tenant's
//! switched-off accounts with its runs metered by request id.

use pp_core::Result;
use pp_store::Store;
use pp_store::intelligence::{Meter, OptOut};

use crate::Operator;

/// The enrollment handle ([`crate::Admin::enrollment`]).
pub struct Enrollment<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

/// A tenant's switched-off accounts, and its runs since a time by request id.
pub struct EnrollmentStatus {
    pub tenant: String,
    pub switched_off: Vec<OptOut>,
    pub runs: Vec<Meter>,
}

impl Enrollment<'_> {
    /// Switches intelligence on (or `off`, with the reason callers see) for seller row
    /// `seller` of `tenant`; whether it changed.
    pub async fn set(
        &self,
        tenant: &str,
        seller: i64,
        on: bool,
        reason: Option<&str>,
    ) -> Result<bool> {
        let t = self.op.tenant(self.store, tenant).await?;
        let by = self.op.actor();
        self.store
            .intelligence()
            .set_enrolled(&t, seller, on, reason, by)
            .await
    }

    /// `tenant`'s switched-off accounts and its runs of the last `days` days.
    pub async fn status(&self, tenant: &str, days: i64) -> Result<EnrollmentStatus> {
        let t = self.op.tenant(self.store, tenant).await?;
        let i = self.store.intelligence();
        let since = pp_store::jobs::now_ms() - days.max(0) * 86_400_000;
        Ok(EnrollmentStatus {
            tenant: t.as_str().to_owned(),
            switched_off: i.opt_outs(&t).await?,
            runs: i.meter(&t, since).await?,
        })
    }
}

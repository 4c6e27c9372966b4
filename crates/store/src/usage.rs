//! Metered API usage: one row per call, charged unless it failed with 400 or above.

use pp_core::Result;

use crate::args;
use crate::db::Db;
use crate::now_unix;

/// The usage aggregate.
pub struct Usage<'a>(pub(crate) &'a Db);

impl Usage<'_> {
    /// Records one call.
    pub async fn record(
        &self,
        tenant: &str,
        credential_id: &str,
        route: &str,
        status: u16,
    ) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO api_usage (tenant_id, credential_id, route, status, charged, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                args![
                    tenant,
                    credential_id,
                    route,
                    status as i64,
                    status < 400,
                    now_unix()
                ],
            )
            .await?;
        Ok(())
    }
}

//! Records calls of counted operations (forecast state) as API usage once the answer is
//! known; calls failing with 400 or above are recorded but not charged.

use axum::response::Response;
use pp_core::Principal;

use crate::state::SharedState;

/// A counted call: who made it and on which route.
pub struct Call {
    tenant: String,
    credential: String,
    route: &'static str,
}

impl Call {
    /// The call `p` makes on the declared route template `route`.
    pub fn of(p: &Principal, route: &'static str) -> Self {
        Self {
            tenant: p.tenant.to_string(),
            credential: p.credential_id.clone(),
            route,
        }
    }

    /// Records the call with its answer's status, and hands the answer on.
    pub async fn record(self, app: &SharedState, res: Response) -> Response {
        if let Err(e) = app
            .store
            .usage()
            .record(
                &self.tenant,
                &self.credential,
                self.route,
                res.status().as_u16(),
            )
            .await
        {
            tracing::error!(cause = %e.chain(), "usage not recorded");
        }
        res
    }
}

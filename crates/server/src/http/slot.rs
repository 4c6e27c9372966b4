//! What handling a request leaves for its answer and its log line, in one place per request:
//! who the caller turned out to be (the log line's tenant and actor) and what is left of
//! their credential's budget (the `RateLimit-*` headers), beside the caller's address. The
//! connection puts one in every request's extensions (`serve.rs`, with the peer's address;
//! `frame` adds one where none came), and the bearer check (`auth::admit`, on every door) and
//! the console's session check fill it. One extension rather than a second for the address:
//! each extension is an allocation and an insert on every request.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use super::rate::Budget;

/// The request's slot (a shared handle: `frame` keeps one, the request carries the other).
#[derive(Clone, Default)]
pub struct Slot(Arc<Shared>);

#[derive(Default)]
struct Shared {
    /// The caller's address, when the request came over a connection.
    peer: Option<SocketAddr>,
    left: Mutex<Left>,
}

/// What was left in a [`Slot`].
#[derive(Default)]
pub struct Left {
    /// The tenant and actor, once known.
    pub who: Option<(String, String)>,
    /// The credential's budget after this request, once spent.
    pub budget: Option<Budget>,
}

impl Slot {
    /// The slot of a request from `peer`.
    pub fn from_peer(peer: SocketAddr) -> Self {
        Self(Arc::new(Shared {
            peer: Some(peer),
            left: Mutex::default(),
        }))
    }

    /// The caller's address, when the request came over a connection.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.0.peer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Left> {
        self.0.left.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn with(&self, f: impl FnOnce(&mut Left)) {
        f(&mut self.lock());
    }

    /// Records the tenant and actor.
    pub fn name(&self, tenant: &str, actor: &str) {
        self.with(|l| l.who = Some((tenant.to_owned(), actor.to_owned())));
    }

    /// Records the budget left.
    pub fn spend(&self, budget: Budget) {
        self.with(|l| l.budget = Some(budget));
    }

    /// Takes what was left, leaving the slot empty.
    pub fn take(&self) -> Left {
        std::mem::take(&mut *self.lock())
    }
}

//! What handling a request leaves for its answer and its log line, in one place per request:
//! who the caller turned out to be (the log line's tenant and actor) and what is left of
//! their credential's budget (the `RateLimit-*` headers). `frame` puts one in every request's
//! extensions; the bearer check (`auth::admit`, on every door) and the console's session
//! check fill it.

use std::sync::{Arc, Mutex};

use super::rate::Budget;

/// The request's slot (a shared handle: `frame` keeps one, the request carries the other).
#[derive(Clone, Default)]
pub struct Slot(Arc<Mutex<Left>>);

/// What was left in a [`Slot`].
#[derive(Default)]
pub struct Left {
    /// The tenant and actor, once known.
    pub who: Option<(String, String)>,
    /// The credential's budget after this request, once spent.
    pub budget: Option<Budget>,
}

impl Slot {
    fn with(&self, f: impl FnOnce(&mut Left)) {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()));
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
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

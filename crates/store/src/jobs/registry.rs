//! The job kinds a worker pool runs. A service that has long work declares each kind it owns as
//! a [`Handler`] (the name its rows carry, how long one step may run, the step itself) and
//! registers it; the pool looks a claimed row's kind up here and knows no kind by name. A row
//! whose kind nobody registered is failed rather than left waiting.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Result};

use super::{Item, Job, Outcome};

/// What one step decided, and the item results it wrote.
pub type Stepped = (Outcome, Vec<Item>);

/// One step's future.
pub type StepFuture<'a> = Pin<Box<dyn Future<Output = Stepped> + Send + 'a>>;

/// One kind of job, as its owning service declares it.
pub trait Handler: Send + Sync {
    /// The name job rows of this kind carry (`jobs.kind`).
    fn name(&self) -> &'static str;

    /// How long one step may run; `None` takes the pool's step deadline (shorter than the
    /// lease). The lease is renewed meanwhile either way.
    fn deadline(&self) -> Option<Duration> {
        None
    }

    /// The event a finished job of this kind is (`outcome` is terminal), if it is one: the pool
    /// appends it in the transaction that records the outcome.
    fn ended(&self, job: &Job, outcome: &Outcome) -> Option<crate::events::NewEvent> {
        let _ = (job, outcome);
        None
    }

    /// Runs one step of `job` (a row of this kind) and says what to record. Every step must be
    /// safe to repeat: a step that passes its deadline is recorded as nothing and tried again.
    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a>;
}

/// The registered kinds, by name.
#[derive(Clone, Default)]
pub struct Registry {
    kinds: BTreeMap<&'static str, Arc<dyn Handler>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.kinds.keys()).finish()
    }
}

impl Registry {
    /// Adds `handler`; a second handler for a name already registered is refused, so two
    /// services can never both claim one kind.
    pub fn register(&mut self, handler: Arc<dyn Handler>) -> Result<()> {
        let name = handler.name();
        if self.kinds.contains_key(name) {
            return Err(Error::internal(format!(
                "job kind {name} is registered twice"
            )));
        }
        self.kinds.insert(name, handler);
        Ok(())
    }

    /// Adds every handler of `handlers` ([`Registry::register`] each).
    pub fn register_all(
        &mut self,
        handlers: impl IntoIterator<Item = Arc<dyn Handler>>,
    ) -> Result<()> {
        handlers.into_iter().try_for_each(|h| self.register(h))
    }

    /// The handler of kind `name`, if one is registered.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Handler>> {
        self.kinds.get(name)
    }

    /// Every registered kind's name, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.kinds.keys().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Named(&'static str);

    impl Handler for Named {
        fn name(&self) -> &'static str {
            self.0
        }
        fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
            Box::pin(async move {
                (
                    Outcome::Succeeded {
                        state: job.state.clone(),
                        done: job.total,
                    },
                    Vec::new(),
                )
            })
        }
    }

    #[test]
    fn a_kind_is_registered_once_and_found_by_name() {
        let mut r = Registry::default();
        r.register(Arc::new(Named("b"))).unwrap();
        r.register(Arc::new(Named("a"))).unwrap();
        let twice = r.register(Arc::new(Named("a"))).unwrap_err();
        assert!(twice.chain().contains("registered twice"), "{twice:?}");
        assert_eq!(r.names().collect::<Vec<_>>(), ["a", "b"]);
        assert!(r.get("a").is_some() && r.get("c").is_none());
    }
}

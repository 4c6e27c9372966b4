//! Progress on long work (pricing runs, report waits, queued intelligence runs): a bar when
//! the total is known, a spinner when it is not, drawn on stderr (indicatif) so stdout keeps
//! only the answer. Nothing is drawn under `--quiet` or when stderr is not a terminal (a CI
//! log, a pipe), where a bar would only be noise.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Common;

/// One piece of long work's progress.
pub struct Progress(ProgressBar);

impl Progress {
    fn target(c: &Common) -> ProgressDrawTarget {
        if c.quiet {
            ProgressDrawTarget::hidden()
        } else {
            // indicatif hides it itself when stderr is not a terminal
            ProgressDrawTarget::stderr()
        }
    }

    /// A bar of `total` steps (items, batches …) named `what`.
    pub fn bar(c: &Common, what: &str, total: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), Self::target(c));
        let style =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
                .map(|s| s.progress_chars("=> "))
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_prefix(what.to_owned());
        bar.enable_steady_tick(Duration::from_millis(250));
        Self(bar)
    }

    /// A spinner named `what`, for work whose size is not known.
    pub fn spinner(c: &Common, what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, Self::target(c));
        let style = ProgressStyle::with_template("{spinner} {prefix} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_prefix(what.to_owned());
        bar.enable_steady_tick(Duration::from_millis(250));
        Self(bar)
    }

    /// Moves the bar to `done` of `total`, saying `msg` beside it.
    pub fn set(&self, done: u64, total: u64, msg: impl Into<String>) {
        self.0.set_length(total);
        self.0.set_position(done);
        self.0.set_message(msg.into());
    }

    /// Says `msg` beside the spinner or bar.
    pub fn say(&self, msg: impl Into<String>) {
        self.0.set_message(msg.into());
    }
}

impl Drop for Progress {
    /// The bar leaves the terminal when the work ends, however it ends.
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

//! Faults a test switches on: rules per operation (or `*`) that add latency, hang past the
//! client's timeout (before or after acting), answer 500/503, throttle with or without `Retry-After`, send an
//! unreadable 200 body, reset the connection, or make reports end `FATAL`. A rule may apply to
//! the next `times` calls only, and to a share of calls chosen by a seeded generator, so a
//! run repeats exactly. Rules come from `--faults <file.toml>` or `/__sandbox/faults`.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Wait `latency_ms`, then answer normally.
    Latency,
    /// Never answer (holds the request for an hour).
    Hang,
    /// Act on the request, then never answer: the provider made the change (or report), but
    /// the caller cannot know.
    HangAfter,
    /// Answer `status` (500 or 503 …) with the provider's error body.
    Status,
    /// Answer 429, with `Retry-After: retry_after` when given.
    Throttle,
    /// Answer 200 with a body that is not JSON.
    Garbage,
    /// Close the connection without an answer.
    Reset,
    /// Reports created while the rule holds end `FATAL` (v3: `FAILED`).
    FatalReport,
}

/// One rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// An operation name (`orders.getOrders`, `sp.listKeywords` …) or `*`.
    pub op: String,
    pub effect: Effect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Calls left to affect; absent means every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// Share of matching calls affected, 0–1; absent means all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// A fault file: `seed` and `[[rules]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultFile {
    pub seed: Option<u64>,
    #[serde(default)]
    pub rules: Vec<Rule>,
}

struct Inner {
    rules: Vec<Rule>,
    rng: u64,
}

/// The active rules.
pub struct Faults {
    inner: Mutex<Inner>,
}

fn splitmix(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

impl Faults {
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Mutex::new(Inner {
                rules: Vec::new(),
                rng: seed,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Checks and adds rules.
    pub fn add(&self, rules: Vec<Rule>) -> Result<(), String> {
        for r in &rules {
            if r.effect == Effect::Status && !r.status.is_some_and(|s| (400..600).contains(&s)) {
                return Err("a status rule needs status between 400 and 599".into());
            }
            if r.effect == Effect::Latency && r.latency_ms.is_none() {
                return Err("a latency rule needs latency_ms".into());
            }
            if r.probability.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
                return Err("probability is between 0 and 1".into());
            }
        }
        self.lock().rules.extend(rules);
        Ok(())
    }

    /// Removes every rule and reseeds.
    pub fn clear(&self, seed: Option<u64>) {
        let mut i = self.lock();
        i.rules.clear();
        if let Some(s) = seed {
            i.rng = s;
        }
    }

    /// The active rules.
    pub fn list(&self) -> Vec<Rule> {
        self.lock().rules.clone()
    }

    /// The first rule that fires for a call of `op`, if any (spending one of its `times`).
    pub fn pick(&self, op: &str, effects: &[Effect]) -> Option<Rule> {
        let mut i = self.lock();
        let Inner { rules, rng } = &mut *i;
        let idx = rules.iter().position(|r| {
            (r.op == "*" || r.op == op)
                && effects.contains(&r.effect)
                && r.times != Some(0)
                && r.probability.is_none_or(|p| splitmix(rng) < p)
        })?;
        let r = &mut rules[idx];
        if let Some(t) = r.times.as_mut() {
            *t -= 1;
        }
        Some(r.clone())
    }
}

/// Effects decided before the operation runs.
pub const BEFORE: &[Effect] = &[
    Effect::Latency,
    Effect::Hang,
    Effect::HangAfter,
    Effect::Status,
    Effect::Throttle,
    Effect::Garbage,
    Effect::Reset,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(op: &str, effect: Effect) -> Rule {
        Rule {
            op: op.into(),
            effect,
            status: Some(503),
            retry_after: None,
            latency_ms: None,
            times: None,
            probability: None,
        }
    }

    #[test]
    fn rules_match_their_operation_count_down_and_repeat_under_a_seed() {
        let f = Faults::new(7);
        f.add(vec![Rule {
            times: Some(2),
            ..rule("a.op", Effect::Status)
        }])
        .unwrap();
        assert!(f.pick("b.op", BEFORE).is_none());
        assert!(f.pick("a.op", BEFORE).is_some());
        assert!(f.pick("a.op", BEFORE).is_some());
        assert!(f.pick("a.op", BEFORE).is_none(), "times ran out");
        let draw = |seed| {
            let f = Faults::new(seed);
            f.add(vec![Rule {
                probability: Some(0.5),
                ..rule("*", Effect::Throttle)
            }])
            .unwrap();
            (0..32)
                .map(|_| f.pick("x", BEFORE).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3), "the same seed fires on the same calls");
        assert_ne!(draw(3), draw(4));
        assert!(
            f.add(vec![Rule {
                status: None,
                ..rule("*", Effect::Status)
            }])
            .is_err()
        );
    }
}

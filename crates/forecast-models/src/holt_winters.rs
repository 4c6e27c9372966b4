//! Holt–Winters: exponential smoothing whose season evolves with the series (additive
//! errors; no trend or a damped trend; a multiplicative season on a positive series, else
//! additive). The initial season comes from classical decomposition, the initial level and
//! slope from a line through the first two seasonally adjusted years; the weights are
//! fitted by least squares on one-step errors.

use crate::optimize::{nelder_mead, squash, unsquash};
use crate::seasonal::Indices;
use crate::theta::line;

struct Params {
    alpha: f64,
    beta: f64,
    gamma: f64,
    phi: f64,
}

fn decode(damped: bool, p: &[f64]) -> Params {
    let alpha = squash(p[0], 1e-4, 0.9999);
    let gamma = (1.0 - alpha) * squash(p[1], 1e-4, 0.9999) * 0.5;
    if damped {
        Params {
            alpha,
            gamma,
            beta: alpha * squash(p[2], 1e-4, 0.9999),
            phi: squash(p[3], 0.8, 0.98),
        }
    } else {
        Params {
            alpha,
            gamma,
            beta: 0.0,
            phi: 0.0,
        }
    }
}

struct State {
    level: f64,
    slope: f64,
    season: Vec<f64>,
}

/// The one-step squared errors and the final states.
fn filter(
    x: &[f64],
    init: &State,
    mult: bool,
    q: &Params,
    mut fitted: Option<&mut Vec<f64>>,
) -> (f64, State) {
    let m = init.season.len();
    let (mut l, mut b) = (init.level, init.slope);
    let mut s = init.season.clone();
    let mut sse = 0.0;
    for (t, &y) in x.iter().enumerate() {
        let base = l + q.phi * b;
        let st = s[t % m];
        let fit = if mult { base * st } else { base + st };
        if let Some(f) = fitted.as_deref_mut() {
            f.push(fit);
        }
        let e = y - fit;
        sse += e * e;
        if mult {
            l = base + q.alpha * e / st;
            b = q.phi * b + q.beta * e / st;
            s[t % m] = st + q.gamma * e / base;
        } else {
            l = base + q.alpha * e;
            b = q.phi * b + q.beta * e;
            s[t % m] = st + q.gamma * e;
        }
        if !l.is_finite() || (mult && (base <= 0.0 || s[t % m] <= 0.0)) {
            return (
                f64::INFINITY,
                State {
                    level: l,
                    slope: b,
                    season: s,
                },
            );
        }
    }
    (
        sse,
        State {
            level: l,
            slope: b,
            season: s,
        },
    )
}

/// The next `h` values of `x` (scaled to about 1; two full seasons at least), with the
/// season's starting indices `season` (position 0 = `x[0]`), and the one-step in-sample
/// forecasts (`None` when the fit broke down and a fixed season was used instead).
pub fn forecast(
    x: &[f64],
    season: &Indices,
    damped: bool,
    h: usize,
) -> (Vec<f64>, Option<Vec<f64>>) {
    let m = season.values.len();
    let mult = season.multiplicative;
    let adjusted = season.adjust(&x[..(2 * m).min(x.len())], 0);
    let (a, b) = line(&adjusted);
    let init = State {
        level: a - b,
        slope: if damped { b } else { 0.0 },
        season: season.values.clone(),
    };
    let mut start = vec![unsquash(0.2, 1e-4, 0.9999), unsquash(0.1, 1e-4, 0.9999)];
    if damped {
        start.extend([unsquash(0.1, 1e-4, 0.9999), unsquash(0.95, 0.8, 0.98)]);
    }
    let best = nelder_mead(
        |p| filter(x, &init, mult, &decode(damped, p), None).0,
        &start,
        0.5,
        120 * start.len(),
    );
    let q = decode(damped, &best);
    let mut fitted = Vec::with_capacity(x.len());
    let (sse, end) = filter(x, &init, mult, &q, Some(&mut fitted));
    if !sse.is_finite() {
        // the fit broke down (a season collapsed to zero): no evolving season then
        let f =
            crate::smoothing::fit(&season.adjust(x, 0), crate::smoothing::Trend::None).forecast(h);
        return (season.restore(&f, x.len()), None);
    }
    let n = x.len();
    let (mut damp, mut p) = (0.0, 1.0);
    let f = (0..h)
        .map(|k| {
            p *= q.phi;
            damp += p;
            let base = end.level + damp * end.slope;
            let st = end.season[(n + k) % m];
            if mult { base * st } else { base + st }
        })
        .collect();
    (f, Some(fitted))
}

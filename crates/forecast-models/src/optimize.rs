//! Nelder–Mead minimisation over a few unconstrained parameters. The models map their
//! bounded parameters (smoothing weights in (0, 1), damping in [0.8, 0.98]) through
//! [`squash`], so the search itself needs no bounds.

/// The logistic map of `p` onto `(lo, hi)`.
pub fn squash(p: f64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) / (1.0 + (-p).exp())
}

/// The inverse of [`squash`] (`v` strictly inside the bounds).
pub fn unsquash(v: f64, lo: f64, hi: f64) -> f64 {
    let s = ((v - lo) / (hi - lo)).clamp(1e-6, 1.0 - 1e-6);
    (s / (1.0 - s)).ln()
}

/// The point near `x0` where `f` is least, found within `max_evals` evaluations; `step` is
/// the initial simplex's size along each axis.
pub fn nelder_mead(f: impl Fn(&[f64]) -> f64, x0: &[f64], step: f64, max_evals: usize) -> Vec<f64> {
    let n = x0.len();
    let eval = |x: &[f64]| {
        let v = f(x);
        if v.is_finite() { v } else { f64::MAX }
    };
    let mut simplex: Vec<(Vec<f64>, f64)> = Vec::with_capacity(n + 1);
    simplex.push((x0.to_vec(), eval(x0)));
    for i in 0..n {
        let mut x = x0.to_vec();
        x[i] += step;
        let v = eval(&x);
        simplex.push((x, v));
    }
    let mut evals = n + 1;
    while evals < max_evals {
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        let (best, worst) = (simplex[0].1, simplex[n].1);
        if (worst - best).abs() <= 1e-10 * (best.abs() + 1e-12) {
            break;
        }
        let mut centroid = vec![0.0; n];
        for (x, _) in &simplex[..n] {
            for (c, v) in centroid.iter_mut().zip(x) {
                *c += v / n as f64;
            }
        }
        let along = |t: f64| -> Vec<f64> {
            centroid
                .iter()
                .zip(&simplex[n].0)
                .map(|(c, w)| c + t * (w - c))
                .collect()
        };
        let reflected = along(-1.0);
        let fr = eval(&reflected);
        evals += 1;
        if fr < simplex[0].1 {
            let expanded = along(-2.0);
            let fe = eval(&expanded);
            evals += 1;
            simplex[n] = if fe < fr {
                (expanded, fe)
            } else {
                (reflected, fr)
            };
        } else if fr < simplex[n - 1].1 {
            simplex[n] = (reflected, fr);
        } else {
            let contracted = if fr < worst { along(-0.5) } else { along(0.5) };
            let fc = eval(&contracted);
            evals += 1;
            if fc < worst.min(fr) {
                simplex[n] = (contracted, fc);
            } else {
                let best = simplex[0].0.clone();
                for (x, v) in simplex.iter_mut().skip(1) {
                    for (xi, bi) in x.iter_mut().zip(&best) {
                        *xi = bi + 0.5 * (*xi - bi);
                    }
                    *v = eval(x);
                }
                evals += n;
            }
        }
    }
    simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
    simplex.swap_remove(0).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_a_bowl() {
        let x = nelder_mead(
            |p| (p[0] - 3.0).powi(2) + (p[1] + 1.0).powi(2),
            &[0.0, 0.0],
            1.0,
            500,
        );
        assert!(
            (x[0] - 3.0).abs() < 1e-3 && (x[1] + 1.0).abs() < 1e-3,
            "{x:?}"
        );
    }

    #[test]
    fn squash_round_trips() {
        let v = squash(unsquash(0.37, 0.0, 1.0), 0.0, 1.0);
        assert!((v - 0.37).abs() < 1e-9);
    }
}

//! The forecast benchmark harness: reads a long-format competition file (`series_id`,
//! `period_index`, `value`, `split`, read by name; other columns ignored), forecasts every
//! series' test months from its training months, and prints sMAPE, MASE, 95% coverage and
//! MSIS per method and for the combination the product serves, with the wall time of the
//! product's path (test for a season, backtest, fit, forecast, ranges) over all series.
//!
//! `cargo run --release -p pp-forecast-models --example benchmark -- FILE HORIZON [THREADS]`

use std::collections::BTreeMap;
use std::time::Instant;

use pp_forecast_models::{Method, Options, Study, methods, metrics, seasonal};

struct Series {
    id: String,
    train: Vec<f64>,
    test: Vec<f64>,
}

fn read(path: &str, horizon: usize) -> Vec<Series> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header")
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_owned())
        .collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{path} has no column {name}"))
    };
    let (id, idx, value, split) = (
        col("series_id"),
        col("period_index"),
        col("value"),
        col("split"),
    );
    let mut by: BTreeMap<String, Vec<(i64, f64, bool)>> = BTreeMap::new();
    let mut order = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .collect();
        let key = f[id].to_owned();
        if !by.contains_key(&key) {
            order.push(key.clone());
        }
        by.entry(key).or_default().push((
            f[idx].parse().expect("period_index"),
            f[value].parse().expect("value"),
            f[split] == "test",
        ));
    }
    order
        .into_iter()
        .map(|k| {
            let mut rows = by.remove(&k).expect("grouped");
            rows.sort_by_key(|r| r.0);
            let train: Vec<f64> = rows.iter().filter(|r| !r.2).map(|r| r.1).collect();
            let test: Vec<f64> = rows
                .iter()
                .filter(|r| r.2)
                .map(|r| r.1)
                .take(horizon)
                .collect();
            Series { id: k, train, test }
        })
        .collect()
}

#[derive(Default, Clone)]
struct Tally {
    smape: f64,
    mase: f64,
    coverage: f64,
    msis: f64,
    n: usize,
    ranged: bool,
}

impl Tally {
    fn add(&mut self, s: &Series, f: &[f64], range: Option<(&[f64], &[f64])>) {
        let scale = metrics::scale(&s.train, 12);
        self.smape += metrics::smape(&s.test, f);
        self.mase += metrics::mase(&s.test, f, scale);
        if let Some((lo, hi)) = range {
            self.coverage += metrics::coverage(&s.test, lo, hi);
            self.msis += metrics::msis(&s.test, lo, hi, scale, 0.05);
            self.ranged = true;
        }
        self.n += 1;
    }
}

const VARIANTS: [usize; 5] = [1, 2, 3, 4, 6];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: benchmark FILE HORIZON [THREADS]");
    let horizon: usize = args.get(2).expect("a horizon").parse().expect("a number");
    let threads: usize = args.get(3).map_or(2, |t| t.parse().expect("a number"));
    let series = read(path, horizon);
    let opts = Options {
        horizon,
        ..Options::default()
    };

    // The product's path, timed: everything a forecast does, for every series.
    let started = Instant::now();
    let chunk = series.len().div_ceil(threads);
    let served: Vec<_> = std::thread::scope(|sc| {
        let handles: Vec<_> = series
            .chunks(chunk)
            .map(|part| {
                sc.spawn(|| {
                    part.iter()
                        .map(|s| {
                            pp_forecast_models::forecast(&s.train, &opts)
                                .map_err(|e| format!("{}: {e}", s.id))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker"))
            .collect()
    });
    let elapsed = started.elapsed();

    let mut served_tally = Tally::default();
    let mut failures = 0;
    for (s, f) in series.iter().zip(&served) {
        match f {
            Ok(f) => served_tally.add(s, &f.mean, Some((&f.lower, &f.upper))),
            Err(e) => {
                failures += 1;
                eprintln!("{e}");
            }
        }
    }

    // Each method alone and each way of combining, from one study per series (not timed).
    let mut per_method: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut variants = vec![Tally::default(); VARIANTS.len()];
    // fixed combinations to compare, from `PP_COMBOS` (`ses+theta;ses+damped`)
    let combos: Vec<Vec<Method>> = std::env::var("PP_COMBOS")
        .unwrap_or_default()
        .split(';')
        .filter(|c| !c.is_empty())
        .map(|c| {
            c.split('+')
                .map(|n| {
                    *Method::ALL
                        .iter()
                        .find(|m| m.name() == n)
                        .unwrap_or_else(|| panic!("no method {n}"))
                })
                .collect()
        })
        .collect();
    let mut fixed = vec![Tally::default(); combos.len()];
    let mut inverse = vec![Tally::default(); 3];
    for s in &series {
        let Ok(study) = Study::new(&s.train, &opts) else {
            continue;
        };
        let season = seasonal::is_seasonal(&s.train, 12).then(|| seasonal::indices(&s.train, 12));
        for m in Method::ALL {
            let f = study
                .method_forecast(m)
                .map(<[f64]>::to_vec)
                .unwrap_or_else(|| methods::point(m, &s.train, horizon, season.as_ref(), 12));
            per_method.entry(m.name()).or_default().add(s, &f, None);
        }
        for (v, k) in variants.iter_mut().zip(VARIANTS) {
            let f = study.combine(k);
            v.add(s, &f.mean, Some((&f.lower, &f.upper)));
        }
        for (t, p) in inverse.iter_mut().zip([1.0, 2.0, 4.0]) {
            let f = study.inverse_score(p);
            t.add(s, &f.mean, Some((&f.lower, &f.upper)));
        }
        for (t, c) in fixed.iter_mut().zip(&combos) {
            let f = study.average(c.clone());
            t.add(s, &f.mean, Some((&f.lower, &f.upper)));
        }
    }

    println!(
        "{path}: {} series, horizon {horizon}, {threads} threads",
        series.len()
    );
    println!("| method | sMAPE | MASE | 95% coverage | MSIS |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, t: &Tally| {
        let n = t.n as f64;
        if t.ranged {
            println!(
                "| {name} | {:.3} | {:.3} | {:.1}% | {:.3} |",
                t.smape / n,
                t.mase / n,
                100.0 * t.coverage / n,
                t.msis / n
            );
        } else {
            println!(
                "| {name} | {:.3} | {:.3} | — | — |",
                t.smape / n,
                t.mase / n
            );
        }
    };
    for (name, t) in &per_method {
        row(name, t);
    }
    for (t, k) in variants.iter().zip(VARIANTS) {
        row(&format!("mean of the {k} best backtested"), t);
    }
    for (t, p) in inverse.iter().zip([1, 2, 4]) {
        row(&format!("weighted by backtest error^-{p}"), t);
    }
    for (t, c) in fixed.iter().zip(&combos) {
        row(
            &c.iter().map(|m| m.name()).collect::<Vec<_>>().join(" + "),
            t,
        );
    }
    row(
        "**served** (mean of the best four, calibrated ranges)",
        &served_tally,
    );
    println!(
        "\nserved: {} series forecast, {failures} refused, in {:.2} s wall ({threads} threads)",
        series.len() - failures,
        elapsed.as_secs_f64()
    );
}

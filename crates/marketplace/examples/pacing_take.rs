//! Benchmark: the cost of one pacing decision on the state store (`pacing::take`, one short
//! write transaction), the price every paced provider call pays for sharing usage plans
//! between gateway processes. Run: `cargo run --release -p pp-marketplace --example pacing_take`.

use std::time::{Duration, Instant};

fn main() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = pp_store::Store::open(dir.path()).expect("a store");
    let n: u32 = 20_000;
    let started = Instant::now();
    for i in 0..n {
        let key = format!("tenant/merchant/op{}", i % 50);
        let _ = pp_marketplace::pacing::take(&store, &key, 1e9, 1e9, Duration::from_secs(5))
            .expect("a pacing decision");
    }
    let per = started.elapsed() / n;
    println!("pacing::take on the state store: {per:?} per call ({n} calls, 50 buckets)");
}

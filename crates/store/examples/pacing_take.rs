//! Benchmark: the cost of one pacing decision on the state store (`store.pacing().take`, one
//! short write transaction), the price every paced provider call pays for sharing usage plans
//! between gateway instances. On the embedded store by default; `PARTNER_STATE_URL=postgres://…`
//! measures PostgreSQL. Run: `cargo run --release -p pp-store --example pacing_take`.

use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = match std::env::var("PARTNER_STATE_URL") {
        Ok(u) => {
            let url = pp_store::StateUrl::parse(&u, dir.path()).expect("a state URL");
            pp_store::Store::connect(&url, dir.path())
                .await
                .expect("a store")
        }
        Err(_) => pp_store::Store::open(dir.path()).expect("a store"),
    };
    let n: u32 = 5_000;
    let started = Instant::now();
    for i in 0..n {
        let key = format!("tenant/merchant/op{}", i % 50);
        let _ = store
            .pacing()
            .take(&key, 1e9, 1e9, Duration::from_secs(5))
            .await
            .expect("a pacing decision");
    }
    let per = started.elapsed() / n;
    println!(
        "pacing take on {:?}: {per:?} per call ({n} calls, 50 buckets)",
        store.dialect()
    );
}

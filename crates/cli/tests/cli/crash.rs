//! A forecast batch interrupted by a crash leaves all of it or none of it.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::process::{Server, new_credential, start_server, tiny_world_tenants, token};

fn setup(d: &Path) -> (String, String) {
    tiny_world_tenants(d, &["acme"]);
    new_credential(d, "acme", Some("corrections:write"), "planner")
}

fn start(d: &Path) -> (Server, String) {
    let s = start_server(d);
    let base = s.base.clone();
    (s, base)
}

async fn stored_in(base: &str, tok: &str, year_from: i64, year_to: i64) -> usize {
    let http = crate::http();
    let mut after = String::new();
    let mut n = 0;
    loop {
        let url = format!(
            "{base}/api/app-state/forecasting/docs?prefix=fb:override:src:acme:1&limit=500&after={after}"
        );
        let body: Value = http
            .get(url)
            .bearer_auth(tok)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        for d in body["docs"].as_array().unwrap() {
            let year: i64 = d["key"].as_str().unwrap().rsplit(':').next().unwrap()[..4]
                .parse()
                .unwrap();
            if (year_from..year_to).contains(&year) {
                n += 1;
            }
        }
        match body["next_after"].as_str() {
            Some(a) => after = a.to_owned(),
            None => return n,
        }
    }
}

#[tokio::test]
async fn a_crash_mid_batch_leaves_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (id, secret) = setup(d);
    let mut outcomes = Vec::new();
    for (attempt, delay_ms) in [2_u64, 10, 25, 45, 70, 100, 150].into_iter().enumerate() {
        let (server, base) = start(d);
        let (_, t) = token(&base, &id, &secret).await;
        let tok = t["access_token"].as_str().unwrap().to_owned();
        let first_year = 1000 + attempt as i64 * 100;
        let writes: Vec<Value> = (0..1000)
            .map(|i| json!({ "key": format!("fb:override:src:acme:1:{}-{:02}-01", first_year + i / 12, i % 12 + 1), "expected_version": 0, "doc": { "sales": { "mode": "replace", "value": i } } }))
            .collect();
        let body = json!({ "writes": writes, "reason": format!("crash attempt {attempt}") });
        let send = {
            let (url, tok) = (
                format!("{base}/api/app-state/forecasting/batch"),
                tok.clone(),
            );
            tokio::spawn(async move {
                crate::http()
                    .post(url)
                    .bearer_auth(tok)
                    .json(&body)
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
            })
        };
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.kill_hard();
        let answered = send.await.unwrap().ok();
        let (server, base) = start(d);
        let (_, t) = token(&base, &id, &secret).await;
        let tok = t["access_token"].as_str().unwrap().to_owned();
        let n = stored_in(&base, &tok, first_year, first_year + 100).await;
        assert!(
            n == 0 || n == 1000,
            "attempt {attempt} after {delay_ms} ms left {n} of 1000 writes"
        );
        if answered == Some(200) {
            assert_eq!(n, 1000, "an acknowledged batch is never lost");
        }
        outcomes.push(n);
        server.stop();
    }
    eprintln!("writes found after each crash: {outcomes:?}");
}

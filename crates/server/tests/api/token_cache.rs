//! The bearer check remembers verified tokens, and never serves one whose credential was
//! revoked or rotated: under load on two instances over one store, a credential is revoked
//! (and another rotated) in the console of the first, and no request that started after the
//! console answered succeeds with the old tokens, on either instance.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pp_auth::Role;
use tokio::sync::Mutex;

use crate::common::{Client, TestApp};
use crate::signin_support::{Browser, PASSWORD, person};

/// Requests `GET /v1/me` with `token` on each base in a loop until `stop`; every answer with
/// the instant its request started.
fn hammer(
    app: &TestApp,
    bases: &[String],
    token: &str,
    stop: &Arc<AtomicBool>,
    seen: &Arc<Mutex<Vec<(Instant, u16)>>>,
) -> Vec<tokio::task::JoinHandle<()>> {
    bases
        .iter()
        .flat_map(|base| std::iter::repeat_n(base.clone(), 4))
        .map(|base| {
            let (http, token, stop, seen) = (
                app.http.clone(),
                token.to_owned(),
                stop.clone(),
                seen.clone(),
            );
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let started = Instant::now();
                    let status = http
                        .get(format!("{base}/v1/me"))
                        .bearer_auth(&token)
                        .send()
                        .await
                        .map(|r| r.status().as_u16())
                        .unwrap_or(0);
                    seen.lock().await.push((started, status));
                }
            })
        })
        .collect()
}

/// Runs `change` in the console while `token` is used on both instances; the answers that
/// succeeded although their request started after the console answered, and how many
/// succeeded before.
async fn under_load(
    app: &TestApp,
    bases: &[String],
    token: &str,
    change: impl AsyncFnOnce(),
) -> (usize, usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let loops = hammer(app, bases, token, &stop, &seen);
    tokio::time::sleep(Duration::from_millis(300)).await;
    change().await;
    let changed_at = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    for l in loops {
        l.await.unwrap();
    }
    let seen = seen.lock().await;
    let after = seen
        .iter()
        .filter(|(started, status)| *started > changed_at && *status == 200)
        .count();
    let before = seen
        .iter()
        .filter(|(started, status)| *started < changed_at && *status == 200)
        .count();
    assert!(
        seen.iter().filter(|(s, _)| *s > changed_at).count() > 10,
        "too few requests after the change"
    );
    (after, before)
}

#[tokio::test]
async fn no_instance_serves_a_revoked_or_rotated_credentials_token() {
    let app = TestApp::start().await;
    let second = app.restarted_gateway().await;
    let bases = [app.base.clone(), second];
    let email = person(&app, "rae@acme.example", Role::Admin).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;

    for action in ["revoke", "rotate"] {
        let c: Client = app.credential("acme", None).await;
        let token = app.token(&c).await;
        let path = format!("/console/credentials/{}/{action}", c.credential_id);
        let (after, before) = under_load(&app, &bases, &token, async || {
            let csrf = b.csrf("/console/credentials").await;
            let page = b.post(&path, &[("csrf", csrf.as_str())]).await;
            assert!(page.status < 400, "{action}: {} {}", page.status, page.body);
        })
        .await;
        assert!(before > 10, "{action}: the token worked before ({before})");
        assert_eq!(
            after, 0,
            "{action}: {after} requests succeeded after the change"
        );
    }
}

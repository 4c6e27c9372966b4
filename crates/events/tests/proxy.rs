//! Issue 66, finding 4: a proxy in the environment skipped the delivery-time check.
//! Reproduced on the old main against the release binary: with `HTTP_PROXY` set, the delivery
//! client sent through that proxy, so the endpoint's address was resolved by the proxy and
//! never checked by the guard. This file is its own test process, so the proxy variables it
//! sets reach nothing else.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pp_events::Settings;
use pp_events::guard::Guard;
use pp_events::sender::Sender;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A "proxy" that answers 200 to whatever reaches it, and counts the connections.
async fn proxy() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf).await;
            let _ = conn
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        }
    });
    (url, seen)
}

fn headers() -> [(&'static str, String); 3] {
    [
        ("webhook-id", "evt_test".into()),
        ("webhook-timestamp", "0".into()),
        ("webhook-signature", "v1,x".into()),
    ]
}

fn hook(host: &str) -> reqwest::Url {
    reqwest::Url::parse(&format!("http://{host}:9/hook")).unwrap()
}

#[tokio::test]
async fn the_environments_proxy_is_never_used_and_a_set_proxy_is_still_guarded() {
    let (env_proxy, env_seen) = proxy().await;
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        // SAFETY: this process's only test; nothing else reads the environment meanwhile
        unsafe { std::env::set_var(name, &env_proxy) };
    }
    let strict = Guard::new(&Settings::default()).unwrap();
    let direct = Sender::new(strict.clone(), Duration::from_secs(5), None).unwrap();
    let refused = direct
        .post(hook("localhost"), headers(), b"{}".to_vec())
        .await;
    let why = refused.expect_err("a loopback name is refused");
    assert!(why.contains("loopback"), "{why}");
    assert_eq!(
        env_seen.load(Ordering::SeqCst),
        0,
        "the environment's proxy was used"
    );

    // the operator's proxy: the guard checks the endpoint's address before asking it
    let (set_proxy, set_seen) = proxy().await;
    let proxied = Sender::new(strict, Duration::from_secs(5), Some(&set_proxy)).unwrap();
    for host in ["localhost", "127.0.0.1", "10.0.0.1", "192.0.2.10"] {
        let why = proxied
            .post(hook(host), headers(), b"{}".to_vec())
            .await
            .expect_err(host);
        assert!(why.starts_with("refused"), "{host}: {why}");
    }
    assert_eq!(
        set_seen.load(Ordering::SeqCst),
        0,
        "a refused address reached the proxy"
    );
    // a host the operator allows goes through the proxy
    let allowing = Guard::new(&Settings {
        allow_hosts: vec!["localhost".into()],
        ..Settings::default()
    })
    .unwrap();
    let proxied = Sender::new(allowing, Duration::from_secs(5), Some(&set_proxy)).unwrap();
    let status = proxied
        .post(hook("localhost"), headers(), b"{}".to_vec())
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(set_seen.load(Ordering::SeqCst), 1);
    assert_eq!(env_seen.load(Ordering::SeqCst), 0);
}

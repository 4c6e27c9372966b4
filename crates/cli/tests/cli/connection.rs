//! `admin connection`: connecting a merchant by hand into a running dev server's data
//! directory. A wrong refresh token makes that merchant need re-authorization; connecting the
//! right one makes its calls work again, and no listing ever shows a token.

use serde_json::{Value, json};

use crate::process::{Server, run, token};

async fn account(base: &str, token: &str, legacy_seller_id: u32) -> (u16, Value) {
    let r = crate::http()
        .post(format!("{base}/api/marketplace/spapi/call"))
        .bearer_auth(token)
        .json(&json!({"operation": "sellers.get_account", "legacySellerId": legacy_seller_id}))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_merchant_connected_by_hand_is_used_for_its_calls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = Server::start(
        d,
        &["server", "--dev", "--listen", "127.0.0.1:0"],
        "dev server is up at ",
        "Stop with Ctrl-C",
    );
    let cred: Value =
        serde_json::from_slice(&std::fs::read(d.join(".partner-dev/dev-credential.json")).unwrap())
            .unwrap();
    let (_, t) = token(
        &server.base,
        cred["client_id"].as_str().unwrap(),
        cred["client_secret"].as_str().unwrap(),
    )
    .await;
    let t = t["access_token"].as_str().unwrap().to_owned();
    let mx = "A1DEMOSELLERMX"; // legacySellerId 3
    let add = |refresh: &str| {
        run(
            d,
            &[
                "admin",
                "connection",
                "add",
                "--tenant",
                "demo",
                "--merchant",
                mx,
                "--region",
                "na",
                "--refresh-token",
                refresh,
            ],
        )
    };
    assert!(add("Atzr|wrong-grant-0123456789abcdef").status.success());
    let (s, r) = account(&server.base, &t, 3).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );
    assert_eq!(account(&server.base, &t, 1).await.0, 200);

    let right = cred["sandbox"]["merchants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["merchant"] == mx)
        .unwrap()["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = add(&right);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(account(&server.base, &t, 3).await.0, 200);

    let out = run(
        d,
        &["admin", "connection", "list", "--tenant", "demo", "--json"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let list: Value = serde_json::from_str(&text).unwrap();
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["merchant"] == mx && c["kind"] == "seller")
        .unwrap();
    assert_eq!(row["status"], "active");
    assert!(!text.contains(&right), "tokens are never listed");
    // what cannot be a provider's refresh token, and a merchant the tenant lacks, are refused
    // with a reason, and nothing is stored
    for placeholder in [
        "…",
        "Atzr|…",
        "Atzr",
        "not-a-grant",
        "Atzr|<paste the token here>",
    ] {
        let out = add(placeholder);
        assert!(!out.status.success(), "{placeholder} was taken");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a refresh token"), "{placeholder}: {err}");
    }
    assert_eq!(
        account(&server.base, &t, 3).await.0,
        200,
        "the stored grant is untouched"
    );
    let out = run(
        d,
        &[
            "admin",
            "connection",
            "add",
            "--tenant",
            "demo",
            "--merchant",
            "A9NOSUCHSELLER",
            "--refresh-token",
            "Atzr|0123456789abcdef0123456789",
        ],
    );
    assert!(
        !out.status.success(),
        "a merchant the tenant lacks was taken"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no merchant A9NOSUCHSELLER") && err.contains(mx),
        "{err}"
    );
    // a bad key is refused before anything is stored
    let out = run(
        d,
        &[
            "admin",
            "connection",
            "add",
            "--tenant",
            "demo",
            "--merchant",
            mx,
            "--refresh-token",
            "Atzr|0123456789abcdef0123456789",
            "--secret-key",
            "00",
        ],
    );
    assert!(!out.status.success());
    assert_eq!(account(&server.base, &t, 3).await.0, 200);
    server.stop();
}

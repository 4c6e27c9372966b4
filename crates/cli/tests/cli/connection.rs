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
    // what cannot be a provider's refresh token, a merchant the tenant lacks and a bad key
    // are refused with a reason, and nothing is stored (the listing, with its update times,
    // is the same after every refusal)
    let listing = || {
        run(
            d,
            &["admin", "connection", "list", "--tenant", "demo", "--json"],
        )
        .stdout
    };
    let before = listing();
    let refused = |merchant: &str, token: &str, extra: &[&str]| {
        let mut args = vec![
            "admin",
            "connection",
            "add",
            "--tenant",
            "demo",
            "--merchant",
            merchant,
            "--refresh-token",
            token,
        ];
        args.extend_from_slice(extra);
        let out = run(d, &args);
        assert!(
            !out.status.success(),
            "{merchant} {token} {extra:?} was taken"
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for placeholder in [
        "…",
        "Atzr|…",
        "Atzr",
        "not-a-grant",
        "Atzr|<paste the token here>",
    ] {
        let err = refused(mx, placeholder, &[]);
        assert!(err.contains("not a refresh token"), "{placeholder}: {err}");
    }
    let well_formed = "Atzr|0123456789abcdef0123456789";
    let err = refused("A9NOSUCHSELLER", well_formed, &[]);
    assert!(
        err.contains("has no merchant A9NOSUCHSELLER") && err.contains(mx),
        "{err}"
    );
    refused(mx, well_formed, &["--secret-key", "00"]);
    assert_eq!(listing(), before, "a refusal stored something");
    assert_eq!(account(&server.base, &t, 3).await.0, 200);
    server.stop();
}

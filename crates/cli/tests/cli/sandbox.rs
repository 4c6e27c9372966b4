//! The sandbox as a person meets it: `sim` over a generated world, and the sandbox the dev
//! server starts, called as the provider with the secrets the credential files hold.

use serde_json::Value;

use crate::process::{Server, run_ok};

/// LWA exchange and one selling-side read; the participations' country codes.
async fn provider_call(url: &str, client_id: &str, secret: &str, refresh: &str) -> Vec<String> {
    let http = crate::http();
    let token: Value = http
        .post(format!("{url}/auth/o2/token"))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client_id),
            ("client_secret", secret),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let access = token["access_token"].as_str().expect("an access token");
    let p: Value = http
        .get(format!("{url}/sellers/v1/marketplaceParticipations"))
        .header("x-amz-access-token", access)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    p["payload"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["marketplace"]["countryCode"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn sim_serves_a_generated_world_and_prints_how_to_call_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_ok(
        d,
        &[
            "world",
            "generate",
            "--scale",
            "tiny",
            "--out",
            "w",
            "--today",
            "2026-11-22",
        ],
    );
    let s = Server::start(
        d,
        &["sim", "--world", "w", "--listen", "127.0.0.1:0"],
        "Sandbox provider is up at ",
        "Try it",
    );
    assert!(
        s.stdout.contains("sandbox-credentials.json"),
        "{}",
        s.stdout
    );
    let creds: Value = serde_json::from_slice(
        &std::fs::read(d.join("w/sandbox/sandbox-credentials.json")).unwrap(),
    )
    .unwrap();
    let m = &creds["merchants"][0];
    assert_eq!(m["merchant"], "A2DEMOSELLER01", "the US seller comes first");
    let countries = provider_call(
        &s.base,
        creds["client_id"].as_str().unwrap(),
        creds["client_secret"].as_str().unwrap(),
        m["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(countries, ["US", "CA"]);
}

#[tokio::test]
async fn the_dev_server_starts_the_sandbox_and_writes_its_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(
        dir.path(),
        &["server", "--dev", "--listen", "127.0.0.1:0"],
        "dev server is up at ",
        "Stop with Ctrl-C",
    );
    assert!(s.stdout.contains("sandbox "), "{}", s.stdout);
    let cred: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join(".partner-dev/dev-credential.json")).unwrap(),
    )
    .unwrap();
    let sb = &cred["sandbox"];
    let url = sb["url"].as_str().unwrap();
    assert_ne!(url, s.base);
    assert_eq!(sb["token_url"], format!("{url}/auth/o2/token"));
    assert!(
        sb["advertising"][0]["refresh_token"]
            .as_str()
            .unwrap()
            .starts_with("Atzr|")
    );
    let countries = provider_call(
        url,
        sb["client_id"].as_str().unwrap(),
        sb["client_secret"].as_str().unwrap(),
        sb["merchants"][0]["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(countries, ["US", "CA"]);
    // the gateway says which kind of provider it uses, and never where it is or its secret
    let health: Value = reqwest::get(format!("{}/health", s.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["upstream"]["kind"], "sandbox");
    assert!(!health.to_string().contains(url), "{health}");
    assert!(
        !health
            .to_string()
            .contains(sb["client_secret"].as_str().unwrap())
    );
    let env = std::fs::read_to_string(dir.path().join(".partner-dev/dev.env")).unwrap();
    assert!(env.contains(&format!("PP_SANDBOX_URL={url}")));
}

#[tokio::test]
async fn sim_takes_fault_rules_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_ok(
        d,
        &[
            "world",
            "generate",
            "--scale",
            "tiny",
            "--out",
            "w",
            "--today",
            "2026-11-22",
        ],
    );
    std::fs::write(
        d.join("faults.toml"),
        "seed = 7\n\n[[rules]]\nop = \"sellers.getMarketplaceParticipations\"\neffect = \"status\"\nstatus = 503\ntimes = 1\n",
    )
    .unwrap();
    let s = Server::start(
        d,
        &[
            "sim",
            "--world",
            "w",
            "--listen",
            "127.0.0.1:0",
            "--faults",
            "faults.toml",
        ],
        "Sandbox provider is up at ",
        "Try it",
    );
    let creds: Value = serde_json::from_slice(
        &std::fs::read(d.join("w/sandbox/sandbox-credentials.json")).unwrap(),
    )
    .unwrap();
    let http = crate::http();
    let rules: Value = http
        .get(format!("{}/__sandbox/faults", s.base))
        .bearer_auth(creds["client_secret"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(rules["rules"][0]["status"], 503);
    let token: Value = http
        .post(format!("{}/auth/o2/token", s.base))
        .form(&[
            ("grant_type", "refresh_token"),
            (
                "refresh_token",
                creds["merchants"][0]["refresh_token"].as_str().unwrap(),
            ),
            ("client_id", creds["client_id"].as_str().unwrap()),
            ("client_secret", creds["client_secret"].as_str().unwrap()),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let call = || {
        http.get(format!("{}/sellers/v1/marketplaceParticipations", s.base))
            .header(
                "x-amz-access-token",
                token["access_token"].as_str().unwrap(),
            )
            .send()
    };
    assert_eq!(
        call().await.unwrap().status(),
        503,
        "the file's rule fires once"
    );
    assert_eq!(call().await.unwrap().status(), 200);
    // a bad file is refused with its name
    std::fs::write(
        d.join("bad.toml"),
        "[[rules]]\nop = \"x\"\neffect = \"explode\"\n",
    )
    .unwrap();
    let out = crate::process::run(
        d,
        &[
            "sim",
            "--world",
            "w",
            "--listen",
            "127.0.0.1:0",
            "--faults",
            "bad.toml",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.toml"));
}

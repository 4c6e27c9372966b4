//! A world on the sandbox provider, as the process tests that call the marketplace need it:
//! the tiny world, the `sim` serving it, the tenant `acme` on its warehouse with a credential
//! and its merchant connected (through the admin commands), and gateways configured for that
//! provider.

use std::path::Path;

use serde_json::Value;

use crate::process::{Server, cmd, run_ok, start_server_with, token};

/// The provider, the tenant's credential and the sealing key.
pub struct Provider {
    pub sim: Server,
    /// The sandbox's own credentials (its LWA app and merchants).
    pub creds: Value,
    pub key: String,
    /// The tenant credential's client id and secret.
    pub client: (String, String),
    /// Flags every admin command and gateway gets (`--state-url …`, or none for the embedded
    /// store in `state`).
    state: Vec<String>,
}

impl Provider {
    /// Sets the world up in `d`: `sim_flags` go to the sandbox, `state` to every admin command
    /// and gateway, `scopes` (default: the default bundle) to the tenant's credential.
    pub fn start(d: &Path, sim_flags: &[&str], state: &[&str], scopes: Option<&str>) -> Self {
        run_ok(
            d,
            &[
                "world",
                "generate",
                "--scale",
                "tiny",
                "--seed",
                "1",
                "--today",
                "2026-11-22",
                "--out",
                "w",
            ],
        );
        let sim_args = [
            &[
                "sim",
                "--world",
                "w",
                "--data-dir",
                "sim",
                "--listen",
                "127.0.0.1:0",
            ][..],
            sim_flags,
        ]
        .concat();
        let sim = Server::start(d, &sim_args, "Sandbox provider is up at ", "Try it");
        let creds: Value =
            serde_json::from_slice(&std::fs::read(d.join("sim/sandbox-credentials.json")).unwrap())
                .unwrap();
        let mut p = Self {
            sim,
            creds,
            key: "ab".repeat(32),
            client: (String::new(), String::new()),
            state: state.iter().map(|s| s.to_string()).collect(),
        };
        p.admin(
            d,
            &[
                "tenant",
                "create",
                "acme",
                "--warehouse",
                "w/warehouse.sqlite",
            ],
        );
        let mut create = vec!["credential", "create", "--tenant", "acme", "--json"];
        if let Some(s) = scopes {
            create.extend_from_slice(&["--scopes", s]);
        }
        let cred: Value = serde_json::from_slice(&p.admin(d, &create)).unwrap();
        let text = |k: &str| cred[k].as_str().unwrap().to_owned();
        p.client = (text("client_id"), text("client_secret"));
        let merchant = &p.creds["merchants"][0];
        let (m, refresh) = (
            merchant["merchant"].as_str().unwrap().to_owned(),
            merchant["refresh_token"].as_str().unwrap().to_owned(),
        );
        let key = p.key.clone();
        p.admin(
            d,
            &[
                "connection",
                "add",
                "--tenant",
                "acme",
                "--merchant",
                &m,
                "--refresh-token",
                &refresh,
                "--secret-key",
                &key,
            ],
        );
        p
    }

    /// Runs an admin command on the world's state; its output.
    pub fn admin(&self, d: &Path, args: &[&str]) -> Vec<u8> {
        let mut all: Vec<&str> = vec!["admin", "--data-dir", "state"];
        all.extend(self.state.iter().map(String::as_str));
        all.extend_from_slice(args);
        run_ok(d, &all)
    }

    /// A gateway on the world's state that calls the sandbox, with `extra` flags.
    pub fn gateway(&self, d: &Path, extra: &[&str]) -> Server {
        let text = |k: &str| self.creds[k].as_str().unwrap().to_owned();
        let (id, secret) = (text("client_id"), text("client_secret"));
        let token_url = format!("{}/auth/o2/token", self.sim.base);
        let mut args: Vec<&str> = self.state.iter().map(String::as_str).collect();
        args.extend_from_slice(&[
            "--lwa-client-id",
            &id,
            "--lwa-client-secret",
            &secret,
            "--lwa-token-url",
            &token_url,
            "--spapi-url",
            &self.sim.base,
            "--ads-url",
            &self.sim.base,
            "--secret-key",
            &self.key,
        ]);
        args.extend_from_slice(extra);
        start_server_with(cmd(d), d, &args)
    }

    /// An access token of the tenant's credential from the gateway at `base`.
    pub async fn token(&self, base: &str) -> String {
        let (s, t) = token(base, &self.client.0, &self.client.1).await;
        assert_eq!(s, 200, "{t}");
        t["access_token"].as_str().unwrap().to_owned()
    }

    /// How many times the sandbox was called for `op`.
    pub async fn calls(&self, op: &str) -> u64 {
        let v: Value = crate::http()
            .get(format!("{}/__sandbox/calls", self.sim.base))
            .bearer_auth(self.creds["client_secret"].as_str().unwrap())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["calls"][op].as_u64().unwrap_or(0)
    }

    /// Adds fault rules on the sandbox (`{"rules": […]}`).
    pub async fn faults(&self, rules: Value) {
        let r = crate::http()
            .post(format!("{}/__sandbox/faults", self.sim.base))
            .bearer_auth(self.creds["client_secret"].as_str().unwrap())
            .json(&rules)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }
}

//! Starting and stopping the real binary.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_partner-platform");

/// A command for the binary with no `PARTNER_*` settings leaking in from the environment.
pub fn cmd(cwd: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(cwd);
    for (k, _) in std::env::vars() {
        if k.starts_with("PARTNER_") || k.starts_with("PP_") {
            c.env_remove(k);
        }
    }
    c
}

/// Runs the binary to completion.
pub fn run(cwd: &Path, args: &[&str]) -> Output {
    cmd(cwd).args(args).output().unwrap()
}

/// Runs the binary and asserts it succeeded; returns its standard output.
pub fn run_ok(cwd: &Path, args: &[&str]) -> Vec<u8> {
    let out = run(cwd, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A non-dev server over `<cwd>/state` on an ephemeral port; `base` is its URL.
pub fn start_server(cwd: &Path) -> Server {
    start_server_with(cmd(cwd), cwd, &[])
}

/// As `start_server`, from a prepared command (extra environment, say) and with `extra` flags.
pub fn start_server_with(command: Command, cwd: &Path, extra: &[&str]) -> Server {
    let mut args = vec![
        "server",
        "--data-dir",
        "state",
        "--listen",
        "127.0.0.1:0",
        "--public-url",
        "http://gateway.test",
    ];
    args.extend_from_slice(extra);
    let mut s = Server::start_with(command, cwd, &args, "listening on ", "listening on ");
    s.base = format!("http://{}", s.base);
    s
}

/// The tiny demo world under `<cwd>/world` (anchored on 2026-11-22), and `tenants` on its
/// warehouse in `<cwd>/state`.
pub fn tiny_world_tenants(cwd: &Path, tenants: &[&str]) {
    run_ok(
        cwd,
        &[
            "world",
            "generate",
            "--scale",
            "tiny",
            "--out",
            "world",
            "--today",
            "2026-11-22",
        ],
    );
    for tenant in tenants {
        run_ok(
            cwd,
            &[
                "admin",
                "--data-dir",
                "state",
                "tenant",
                "create",
                tenant,
                "--warehouse",
                "world/warehouse.sqlite",
            ],
        );
    }
}

/// A new credential of `tenant` (the default bundle, or `scopes`): its client id and secret.
pub fn new_credential(
    cwd: &Path,
    tenant: &str,
    scopes: Option<&str>,
    label: &str,
) -> (String, String) {
    let mut args = vec![
        "admin",
        "--data-dir",
        "state",
        "credential",
        "create",
        "--tenant",
        tenant,
        "--label",
        label,
        "--json",
    ];
    if let Some(s) = scopes {
        args.extend_from_slice(&["--scopes", s]);
    }
    let c: serde_json::Value = serde_json::from_slice(&run_ok(cwd, &args)).unwrap();
    let text = |k: &str| c[k].as_str().unwrap().to_owned();
    (text("client_id"), text("client_secret"))
}

/// A server process; stopped with SIGTERM on drop.
pub struct Server {
    pub child: Child,
    pub base: String,
    pub stdout: String,
    pub log: PathBuf,
}

impl Server {
    /// Starts `partner-platform <args>` in `cwd`, takes its URL from the word after `marker`
    /// and reads its output up to the line holding `until`.
    pub fn start(cwd: &Path, args: &[&str], marker: &str, until: &str) -> Self {
        Self::start_with(cmd(cwd), cwd, args, marker, until)
    }

    /// As `start`, from a prepared command (extra environment, say).
    pub fn start_with(
        mut command: Command,
        cwd: &Path,
        args: &[&str],
        marker: &str,
        until: &str,
    ) -> Self {
        let log = cwd.join(format!("server-{}.log", rand_suffix()));
        let mut child = command
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut stdout = String::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut base = None;
        loop {
            let mut line = String::new();
            assert!(Instant::now() < deadline, "server did not start: {stdout}");
            if reader.read_line(&mut line).unwrap() == 0 {
                panic!(
                    "server exited: {stdout}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            stdout.push_str(&line);
            if let Some(rest) = line.split(marker).nth(1) {
                base = Some(rest.split_whitespace().next().unwrap().to_owned());
            }
            if base.is_some() && line.contains(until) {
                break;
            }
        }
        let base = base.unwrap();
        // Keep draining stdout so the server never blocks on a full pipe.
        let drain = std::thread::spawn(move || {
            let mut rest = String::new();
            for line in reader.lines().map_while(Result::ok) {
                rest.push_str(&line);
                rest.push('\n');
            }
            rest
        });
        std::mem::forget(drain);
        Self {
            child,
            base,
            stdout,
            log,
        }
    }

    /// Stops the server with SIGTERM and waits for it.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill_hard(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn logs(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn rand_suffix() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed) as u128
}

/// Mints a token with client credentials.
pub async fn token(base: &str, id: &str, secret: &str) -> (u16, serde_json::Value) {
    let res = crate::http()
        .post(format!("{base}/oauth/token"))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// GET with a bearer token; returns the status.
/// `GET base + path` with a bearer token: the status and the JSON body (`null` when it has
/// none).
pub async fn get_json(base: &str, token: &str, path: &str) -> (u16, serde_json::Value) {
    let r = crate::http()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (
        r.status().as_u16(),
        r.json().await.unwrap_or(serde_json::Value::Null),
    )
}

pub async fn get_status(base: &str, path: &str, token: &str) -> u16 {
    crate::http()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A person signed in to a gateway's console over HTTP (cookies kept by hand, redirects not
/// followed), as a browser would be.
pub struct Console {
    http: reqwest::Client,
    base: String,
    cookie: String,
    /// Where the sign-in sent the browser.
    pub landed: String,
}

/// The value of the first `name="<field>" value="…"` input of a page.
fn input(html: &str, field: &str) -> String {
    let marker = format!("name=\"{field}\" value=\"");
    html.split(&marker)
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned()
}

/// The `name=value` of the `name` cookie a response sets.
fn set_cookie(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
        .find(|kv| kv.starts_with(&format!("{name}=")))
}

impl Console {
    /// Signs in through the sign-in page as `who` (`email`, `password`).
    pub async fn sign_in(base: &str, who: &serde_json::Value) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let page = http.get(format!("{base}/login")).send().await.unwrap();
        let login_cookie = set_cookie(&page, "pp_login").unwrap();
        let csrf = input(&page.text().await.unwrap(), "csrf");
        let done = http
            .post(format!("{base}/login"))
            .header("cookie", login_cookie)
            .form(&[
                ("csrf", csrf.as_str()),
                ("next", "/console"),
                ("email", who["email"].as_str().unwrap()),
                ("password", who["password"].as_str().unwrap()),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(done.status(), 303);
        Self {
            cookie: set_cookie(&done, "pp_session").unwrap(),
            landed: done.headers()["location"].to_str().unwrap().to_owned(),
            http,
            base: base.to_owned(),
        }
    }

    /// Makes a one-time setup code in the console; the code.
    pub async fn setup_code(&self) -> String {
        let url = format!("{}/console/setup-codes", self.base);
        let page = self
            .http
            .get(&url)
            .header("cookie", &self.cookie)
            .send()
            .await
            .unwrap();
        let csrf = input(&page.text().await.unwrap(), "csrf");
        let made = self
            .http
            .post(&url)
            .header("cookie", &self.cookie)
            .form(&[("csrf", csrf.as_str()), ("label", "command line")])
            .send()
            .await
            .unwrap();
        let html = made.text().await.unwrap();
        html.split("id=\"setup-code\">")
            .nth(1)
            .unwrap()
            .split('<')
            .next()
            .unwrap()
            .trim()
            .to_owned()
    }
}

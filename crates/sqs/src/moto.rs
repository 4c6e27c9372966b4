//! A real SQS server for tests: moto's (`moto_server`, at `PP_MOTO_SERVER`, which `.ci/run`
//! installs), on a free port of this machine, stopped when dropped. Only built with the
//! `moto` feature, which test crates turn on.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::{Client, Credentials, Endpoint};

/// A running moto server.
pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Starts one, or says why it cannot (`None`: `PP_MOTO_SERVER` is not set).
    pub fn start() -> Option<Moto> {
        let Ok(bin) = std::env::var("PP_MOTO_SERVER") else {
            eprintln!(
                "skipped: PP_MOTO_SERVER is not set (.ci/run installs moto[server] and sets it)"
            );
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(&bin)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{bin} does not start: {e}"));
        let moto = Moto { child, port };
        for _ in 0..400 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(moto);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("moto_server did not listen on {port} within 20 s");
    }

    /// Its endpoint, with a key it takes (moto checks no signature).
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            url: format!("http://127.0.0.1:{}/", self.port)
                .parse()
                .expect("a URL"),
            region: "us-east-1".into(),
            credentials: Credentials {
                access_key_id: "AKIDMOTO".into(),
                secret_access_key: "moto".into(),
                session_token: None,
            },
        }
    }

    /// A client of it.
    pub fn client(&self) -> Client {
        Client::new(
            reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("a client (install a rustls provider first)"),
            self.endpoint(),
        )
    }

    /// The ARN of its queue `name` (moto's default account).
    pub fn arn(name: &str) -> String {
        format!("arn:aws:sqs:us-east-1:123456789012:{name}")
    }
}

//! What the sign-in tests share: a person to sign in as, a browser over plain HTTP (its own
//! cookie jar, no redirects followed, the CSRF token read off each page), and the steps of the
//! authorization code flow as a client and a person take them.

use std::collections::HashMap;

use pp_core::TenantId;
use serde_json::Value;

use crate::common::TestApp;

/// A password for every test person.
pub const PASSWORD: &str = "correct horse battery staple";

/// Creates a person in acme with `role`; their email.
pub async fn person(app: &TestApp, email: &str, role: pp_auth::Role) -> String {
    person_in(app, "acme", email, role).await
}

/// Creates a person in `tenant` with `role`; their email.
pub async fn person_in(app: &TestApp, tenant: &str, email: &str, role: pp_auth::Role) -> String {
    pp_auth::create_person(
        &app.store,
        &TenantId::parse(tenant).unwrap(),
        &pp_auth::PersonDetails {
            email,
            display_name: "Test Person",
            role,
        },
        Some(PASSWORD),
    )
    .await
    .unwrap();
    email.to_owned()
}

/// An answer as the browser saw it.
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

impl Page {
    /// The value of the first `name="<field>" value="…"` input (HTML entities decoded).
    pub fn input(&self, field: &str) -> String {
        let marker = format!("name=\"{field}\" value=\"");
        let start = self
            .body
            .find(&marker)
            .unwrap_or_else(|| panic!("no input {field} in {}", self.body))
            + marker.len();
        let end = self.body[start..].find('"').unwrap() + start;
        unescape(&self.body[start..end])
    }

    /// The text of the element with `id` (up to the next `<`).
    pub fn text_of(&self, id: &str) -> String {
        let marker = format!("id=\"{id}\">");
        let start = self
            .body
            .find(&marker)
            .unwrap_or_else(|| panic!("no #{id} in {}", self.body))
            + marker.len();
        let end = self.body[start..].find('<').unwrap() + start;
        unescape(self.body[start..end].trim())
    }

    /// A query parameter of the `Location` this answer redirects to.
    pub fn location_param(&self, name: &str) -> Option<String> {
        let loc = self.location.as_deref()?;
        let query = loc.split_once('?')?.1;
        form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

/// `s` with HTML character references (`&amp;`, `&#38;`, `&#x2f;` …) decoded.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(end) = tail.find(';') else {
            out.push_str(tail);
            return out;
        };
        let name = &tail[1..end];
        let ch = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ if name.starts_with("#x") || name.starts_with("#X") => {
                u32::from_str_radix(&name[2..], 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            _ if name.starts_with('#') => name[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A browser: cookies kept, redirects not followed.
pub struct Browser {
    base: String,
    http: reqwest::Client,
    jar: HashMap<String, String>,
}

impl Browser {
    pub fn new(app: &TestApp) -> Self {
        Self::at(app, None)
    }

    /// A browser whose connections come from `address` (a loopback address other than
    /// 127.0.0.1 stands for another machine).
    pub fn from_address(app: &TestApp, address: &str) -> Self {
        Self::at(app, Some(address.parse().unwrap()))
    }

    fn at(app: &TestApp, address: Option<std::net::IpAddr>) -> Self {
        Self {
            base: app.base.clone(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .local_address(address)
                .build()
                .unwrap(),
            jar: HashMap::new(),
        }
    }

    async fn read(&mut self, res: reqwest::Response) -> Page {
        for c in res.headers().get_all("set-cookie") {
            let c = c.to_str().unwrap();
            let (kv, _) = c.split_once(';').unwrap_or((c, ""));
            let (k, v) = kv.split_once('=').unwrap();
            if c.contains("Max-Age=0") {
                self.jar.remove(k);
            } else {
                self.jar.insert(k.to_owned(), v.to_owned());
            }
        }
        Page {
            status: res.status().as_u16(),
            location: res
                .headers()
                .get("location")
                .map(|v| v.to_str().unwrap().to_owned()),
            body: res.text().await.unwrap(),
        }
    }

    fn cookies(&self) -> String {
        self.jar
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_owned()
        } else {
            format!("{}{path}", self.base)
        }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let res = self
            .http
            .get(self.url(path))
            .header("cookie", self.cookies())
            .send()
            .await
            .unwrap();
        self.read(res).await
    }

    pub async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Page {
        let res = self
            .http
            .post(self.url(path))
            .header("cookie", self.cookies())
            .form(form)
            .send()
            .await
            .unwrap();
        self.read(res).await
    }

    /// Signs in through the sign-in page; the page it sends the browser on to.
    pub async fn sign_in(&mut self, email: &str, password: &str) -> Page {
        let form = self.get("/login").await;
        assert_eq!(form.status, 200, "{}", form.body);
        let csrf = form.input("csrf");
        self.post(
            "/login",
            &[
                ("csrf", &csrf),
                ("next", "/console"),
                ("email", email),
                ("password", password),
            ],
        )
        .await
    }

    /// The CSRF token of a signed-in page.
    pub async fn csrf(&mut self, path: &str) -> String {
        let p = self.get(path).await;
        assert_eq!(p.status, 200, "{}", p.body);
        p.input("csrf")
    }
}

/// A PKCE verifier and its S256 challenge.
pub fn pkce() -> (String, String) {
    let verifier = "v".repeat(20) + &pp_store::random_id("", 16).unwrap();
    let challenge = pp_auth::authorize::s256(&verifier);
    (verifier, challenge)
}

pub const REDIRECT: &str = "http://127.0.0.1:45678/callback";

/// Registers an MCP client (RFC 7591) with one redirect URI; its client id.
pub async fn register(app: &TestApp, redirect: &str) -> String {
    let res = app
        .http
        .post(app.url("/oauth/register"))
        .json(&serde_json::json!({"client_name": "Test MCP client", "redirect_uris": [redirect]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    body["client_id"].as_str().unwrap().to_owned()
}

/// The authorization request's query.
pub fn authorize_query(
    client_id: &str,
    redirect: &str,
    challenge: &str,
    method: &str,
) -> Vec<(String, String)> {
    [
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", redirect),
        ("state", "st-123"),
        ("code_challenge", challenge),
        ("code_challenge_method", method),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect()
}

pub fn with_query(path: &str, q: &[(String, String)]) -> String {
    let mut ser = form_urlencoded::Serializer::new(String::new());
    for (k, v) in q {
        ser.append_pair(k, v);
    }
    format!("{path}?{}", ser.finish())
}

/// Presses **Allow** on the consent `page` a signed-in browser was shown for the request
/// `q`; where the browser is sent.
pub async fn allow(b: &mut Browser, page: &Page, q: &[(String, String)]) -> Page {
    let csrf = page.input("csrf");
    let mut form: Vec<(&str, &str)> = q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    form.push(("csrf", &csrf));
    form.push(("decision", "allow"));
    b.post("/oauth/authorize", &form).await
}

/// A signed-in browser consents to `client_id`; the code it is sent back with.
pub async fn consent(b: &mut Browser, client_id: &str, challenge: &str) -> String {
    let q = authorize_query(client_id, REDIRECT, challenge, "S256");
    let page = b.get(&with_query("/oauth/authorize", &q)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let back = allow(b, &page, &q).await;
    assert_eq!(back.status, 303, "{}", back.body);
    assert!(back.location.as_deref().unwrap().starts_with(REDIRECT));
    assert_eq!(back.location_param("state").as_deref(), Some("st-123"));
    back.location_param("code").unwrap()
}

/// Exchanges a code at the token endpoint; status and body.
pub async fn exchange(
    app: &TestApp,
    client_id: &str,
    code: &str,
    redirect: &str,
    verifier: Option<&str>,
) -> (u16, Value) {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("client_id", client_id),
        ("code", code),
        ("redirect_uri", redirect),
    ];
    if let Some(v) = verifier {
        form.push(("code_verifier", v));
    }
    let res = app.token_form(None, &form).await;
    (res.status().as_u16(), res.json().await.unwrap())
}

/// Spends a refresh token; status and body.
pub async fn refresh(app: &TestApp, client_id: &str, token: &str) -> (u16, Value) {
    let res = app
        .token_form(
            None,
            &[
                ("grant_type", "refresh_token"),
                ("client_id", client_id),
                ("refresh_token", token),
            ],
        )
        .await;
    (res.status().as_u16(), res.json().await.unwrap())
}

/// The status of `GET /v1/me` with `token`.
pub async fn me(app: &TestApp, token: &str) -> (u16, Value) {
    app.get(token, "/v1/me").await
}

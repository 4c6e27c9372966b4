//! The provider's consent pages, as simple as a test or a person trying the dev server needs:
//! the selling-side website authorization (`/apps/authorize/consent?application_id&state`,
//! answered with `state`, `selling_partner_id` and `spapi_oauth_code`) and Login with Amazon's
//! authorization-code page for advertising (`/ap/oa?client_id&scope&response_type=code&
//! redirect_uri&state`, answered with `code`, `scope` and `state`). The page lists the world's
//! merchants; approving one makes a code that the token endpoint exchanges once, within five
//! minutes, for a new refresh token (`lwa.rs`). The pages send the browser back only to a
//! redirect URI registered for the app (`SimConfig::redirect_uris`); anything else is refused
//! on the page itself, as the provider does.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use crate::error::SimError;
use crate::sim::Sim;
use crate::store::{hash, random_hex};

/// The scope an advertising authorization must ask for.
pub const ADS_SCOPE: &str = "advertising::campaign_management";
/// How long a code from a consent page stays good.
const CODE_TTL_SECS: i64 = 300;

/// Which consent page.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Seller,
    Ads,
}

impl Side {
    fn kind(self) -> &'static str {
        match self {
            Side::Seller => "seller",
            Side::Ads => "ads",
        }
    }
    fn path(self) -> &'static str {
        match self {
            Side::Seller => "/apps/authorize/consent",
            Side::Ads => "/ap/oa",
        }
    }
}

/// A validated authorization request: where to send the browser back, and what to carry.
struct Ask {
    side: Side,
    /// The app id as the page was opened with (`application_id` or `client_id`).
    app: String,
    redirect_uri: String,
    state: String,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{t}</title></head>\
         <body style=\"font-family:sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem\"><p><small>Sandbox provider</small></p><h1>{t}</h1>{body}</body></html>",
        t = escape(title)
    );
    let mut r = (status, Html(html)).into_response();
    r.headers_mut()
        .insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    r
}

fn refused(text: &str) -> Response {
    page(
        StatusCode::BAD_REQUEST,
        "This authorization cannot go on",
        &format!("<p id=\"refused\">{}</p>", escape(text)),
    )
}

/// Checks what an authorization request names: the app, the redirect URI (registered), the
/// scope and response type (advertising).
fn ask(sim: &Sim, side: Side, q: &HashMap<String, String>) -> Result<Ask, String> {
    let get = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    let registered = &sim.config.redirect_uris;
    let app = match side {
        Side::Seller => {
            let id = sim.application_id().map_err(|e| e.message)?;
            if get("application_id") != id {
                return Err("application_id does not name a registered application".into());
            }
            id
        }
        Side::Ads => {
            if !sim.is_app(get("client_id")) {
                return Err("client_id does not name a registered application".into());
            }
            if get("response_type") != "code" {
                return Err("response_type must be code".into());
            }
            if !get("scope").split_whitespace().any(|s| s == ADS_SCOPE) {
                return Err(format!("scope must include {ADS_SCOPE}"));
            }
            get("client_id").to_owned()
        }
    };
    let redirect_uri = match (get("redirect_uri"), side) {
        // the selling-side page may leave it out: the first registered one is used
        ("", Side::Seller) => registered.first().cloned().ok_or(
            "the application has no redirect URI registered (the sandbox's redirect_uris)",
        )?,
        ("", Side::Ads) => return Err("redirect_uri is required".into()),
        (uri, _) if registered.iter().any(|r| r == uri) => uri.to_owned(),
        (uri, _) => {
            return Err(format!(
                "redirect_uri {uri} is not registered for this application"
            ));
        }
    };
    if side == Side::Seller && get("state").is_empty() {
        return Err("state is required".into());
    }
    Ok(Ask {
        side,
        app,
        redirect_uri,
        state: get("state").to_owned(),
    })
}

/// The merchants a page offers: `(token, label)` — every seller, or for advertising every
/// seller with advertising profiles.
fn merchants(sim: &Sim, side: Side) -> Result<Vec<(String, String)>, SimError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for s in sim.world().sellers()? {
        if out.iter().any(|(t, _)| *t == s.token) {
            continue;
        }
        if side == Side::Ads
            && sim
                .world()
                .rows(
                    "SELECT ProfileID FROM ads_profile WHERE MarketplaceSellerID = ?1 LIMIT 1",
                    &[&s.token],
                )?
                .is_empty()
        {
            continue;
        }
        out.push((s.token.clone(), format!("{} ({})", s.name, s.account_type)));
    }
    Ok(out)
}

fn show(sim: &Sim, side: Side, q: HashMap<String, String>) -> Response {
    let a = match ask(sim, side, &q) {
        Ok(a) => a,
        Err(why) => return refused(&why),
    };
    let list = match merchants(sim, side) {
        Ok(l) => l,
        Err(e) => return e.into_response(),
    };
    let mut choices = String::new();
    for (i, (token, label)) in list.iter().enumerate() {
        choices.push_str(&format!(
            "<p><label><input type=\"radio\" name=\"merchant\" id=\"merchant-{t}\" value=\"{t}\"{c}> {l} <code>{t}</code></label></p>",
            t = escape(token),
            l = escape(label),
            c = if i == 0 { " checked" } else { "" },
        ));
    }
    let mut hidden = String::new();
    for (k, v) in &q {
        hidden.push_str(&format!(
            "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
            escape(k),
            escape(v)
        ));
    }
    let (title, what) = match side {
        Side::Seller => (
            "Authorize a selling partner application",
            "to call the Selling Partner API for the seller account you choose",
        ),
        Side::Ads => (
            "Login with Amazon",
            "to manage the advertising campaigns of the account you choose",
        ),
    };
    let body = format!(
        "<p>Application <code>{app}</code> asks for permission {what}. It will send you back to <code>{uri}</code>.</p>\
         <form method=\"post\" action=\"{path}\">{hidden}{choices}\
         <p><button type=\"submit\" name=\"decision\" value=\"approve\" id=\"approve\">Confirm</button> \
         <button type=\"submit\" name=\"decision\" value=\"deny\" id=\"deny\">Cancel</button></p></form>",
        app = escape(&a.app),
        uri = escape(&a.redirect_uri),
        path = side.path(),
    );
    page(StatusCode::OK, title, &body)
}

/// `GET /apps/authorize/consent`: the selling-side consent page.
pub async fn seller_page(
    State(sim): State<Arc<Sim>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    show(&sim, Side::Seller, q)
}

/// `GET /ap/oa`: Login with Amazon's consent page for advertising.
pub async fn ads_page(
    State(sim): State<Arc<Sim>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    show(&sim, Side::Ads, q)
}

/// `POST /apps/authorize/consent`: the seller's decision.
pub async fn seller_decide(State(sim): State<Arc<Sim>>, body: Bytes) -> Response {
    decide(&sim, Side::Seller, body)
}

/// `POST /ap/oa`: the advertiser's decision.
pub async fn ads_decide(State(sim): State<Arc<Sim>>, body: Bytes) -> Response {
    decide(&sim, Side::Ads, body)
}

/// `uri` with `params` appended to its query.
fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", q.finish())
}

fn found(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(l) => (StatusCode::FOUND, [(header::LOCATION, l)]).into_response(),
        Err(_) => refused("the redirect URI cannot be sent as a header"),
    }
}

fn decide(sim: &Sim, side: Side, body: Bytes) -> Response {
    let q: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let a = match ask(sim, side, &q) {
        Ok(a) => a,
        Err(why) => return refused(&why),
    };
    let state = a.state.as_str();
    if q.get("decision").map(String::as_str) != Some("approve") {
        return found(&with_query(
            &a.redirect_uri,
            &[
                ("error", "access_denied"),
                ("error_description", "The user denied the request"),
                ("state", state),
            ],
        ));
    }
    let merchant = q.get("merchant").map(String::as_str).unwrap_or("");
    match merchants(sim, side) {
        Ok(list) if list.iter().any(|(t, _)| t == merchant) => {}
        Ok(_) => return refused("choose one of the accounts listed"),
        Err(e) => return e.into_response(),
    }
    let code = format!("ANB{}", random_hex(20));
    let expires = chrono::Utc::now().timestamp() + CODE_TTL_SECS;
    let made = sim.store.with(|c| {
        c.execute(
            "INSERT INTO codes (code_hash, kind, subject, redirect_uri, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![hash(&code), side.kind(), merchant, a.redirect_uri, expires],
        )
    });
    if let Err(e) = made {
        return e.into_response();
    }
    // authorizing again is what ends a lapsed authorization
    if let Err(e) = sim.set_lapsed(merchant, false) {
        return e.into_response();
    }
    let back = match a.side {
        Side::Seller => with_query(
            &a.redirect_uri,
            &[
                ("state", state),
                ("selling_partner_id", merchant),
                ("spapi_oauth_code", &code),
            ],
        ),
        Side::Ads => with_query(
            &a.redirect_uri,
            &[("code", &code), ("scope", ADS_SCOPE), ("state", state)],
        ),
    };
    found(&back)
}

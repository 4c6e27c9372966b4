//! Sign-in for people and applications, over HTTP as browsers and clients use it: the
//! authorization code flow with PKCE from a dynamically registered client, code and refresh
//! reuse, exact redirect URIs, revocation, setup codes, the token minted by hand, CSRF, and
//! what the discovery document says.

use pp_auth::Role;
use pp_core::ScopeSet;
use pp_core::scope::PLUGIN_SCOPES;
use serde_json::{Value, json};

use crate::common::TestApp;
use crate::signin_support::*;

/// A registered client, a signed-in person, and the tokens their consent minted.
async fn signed_in_client(app: &TestApp) -> (String, String, serde_json::Value) {
    let email = person(app, "ana@acme.example", Role::Member).await;
    let client = register(app, REDIRECT).await;
    let mut b = Browser::new(app);
    assert_eq!(b.sign_in(&email, PASSWORD).await.status, 303);
    let (verifier, challenge) = pkce();
    let code = consent(&mut b, &client, &challenge).await;
    let (status, tokens) = exchange(app, &client, &code, REDIRECT, Some(&verifier)).await;
    assert_eq!(status, 200, "{tokens}");
    (client, code, tokens)
}

#[tokio::test]
async fn a_consent_mints_tokens_that_act_as_the_person() {
    let app = TestApp::start().await;
    let (_, _, tokens) = signed_in_client(&app).await;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 43_200);
    assert!(
        tokens["refresh_token"]
            .as_str()
            .unwrap()
            .starts_with("pprt_")
    );
    let (status, body) = me(&app, tokens["access_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["person_label"], "ana@acme.example");
    assert_eq!(body["tenant_id"], "acme");
}

#[tokio::test]
async fn a_code_used_twice_is_refused_and_revokes_what_it_minted() {
    let app = TestApp::start().await;
    let (client, code, tokens) = signed_in_client(&app).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(me(&app, access).await.0, 200);
    let (_, verifier_unknown) = pkce();
    // the same code again (any verifier): refused, and the first exchange's tokens die
    let (status, body) = exchange(&app, &client, &code, REDIRECT, Some(&verifier_unknown)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant")),
        "{body}"
    );
    assert_eq!(me(&app, access).await.0, 401);
    let (status, _) = refresh(&app, &client, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn plain_pkce_and_a_missing_verifier_are_refused() {
    let app = TestApp::start().await;
    let email = person(&app, "bo@acme.example", Role::Member).await;
    let client = register(&app, REDIRECT).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let (verifier, challenge) = pkce();
    // a person's consent makes the registered address one errors may go back to
    consent(&mut b, &client, &challenge).await;

    // plain: back to the client with invalid_request, and no code
    let q = authorize_query(&client, REDIRECT, &verifier, "plain");
    let back = b.get(&with_query("/oauth/authorize", &q)).await;
    assert_eq!(back.status, 303);
    assert_eq!(
        back.location_param("error").as_deref(),
        Some("invalid_request")
    );
    assert_eq!(back.location_param("state").as_deref(), Some("st-123"));
    assert!(back.location_param("code").is_none());
    // no method at all is plain by RFC 7636's default: refused the same way
    let mut q = authorize_query(&client, REDIRECT, &challenge, "S256");
    q.retain(|(k, _)| k != "code_challenge_method");
    let back = b.get(&with_query("/oauth/authorize", &q)).await;
    assert_eq!(
        back.location_param("error").as_deref(),
        Some("invalid_request")
    );

    // a code exchanged without its verifier, then with a wrong one, then rightly
    let code = consent(&mut b, &client, &challenge).await;
    let (status, body) = exchange(&app, &client, &code, REDIRECT, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
    let (wrong, _) = pkce();
    let (status, body) = exchange(&app, &client, &code, REDIRECT, Some(&wrong)).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant")),
        "{body}"
    );
    let (status, body) = exchange(&app, &client, &code, REDIRECT, Some(&verifier)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_redirect_uri_one_character_off_is_refused() {
    let app = TestApp::start().await;
    let email = person(&app, "cy@acme.example", Role::Member).await;
    let client = register(&app, REDIRECT).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let (verifier, challenge) = pkce();
    for off in [
        "http://127.0.0.1:45678/callbacK",
        "http://127.0.0.1:45678/callback/",
        "http://127.0.0.1:45679/callback",
    ] {
        let q = authorize_query(&client, off, &challenge, "S256");
        let page = b.get(&with_query("/oauth/authorize", &q)).await;
        // shown to the person, never sent to the unregistered address
        assert_eq!(
            (page.status, page.location.as_deref()),
            (400, None),
            "{off}"
        );
        assert!(page.body.contains("did not register"), "{}", page.body);
    }
    // at the token endpoint, the code's redirect URI must be repeated exactly
    let code = consent(&mut b, &client, &challenge).await;
    let (status, body) = exchange(
        &app,
        &client,
        &code,
        "http://127.0.0.1:45678/callbacK",
        Some(&verifier),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant")),
        "{body}"
    );
}

#[tokio::test]
async fn a_refresh_token_used_twice_revokes_its_family() {
    let app = TestApp::start().await;
    let (client, _, first) = signed_in_client(&app).await;
    let old = first["refresh_token"].as_str().unwrap();
    let (status, second) = refresh(&app, &client, old).await;
    assert_eq!(status, 200, "{second}");
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    let new_access = second["access_token"].as_str().unwrap();
    assert_eq!(me(&app, new_access).await.0, 200);

    // the spent token again: refused, and every token of the sign-in dies
    let (status, body) = refresh(&app, &client, old).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant")),
        "{body}"
    );
    assert_eq!(me(&app, new_access).await.0, 401);
    assert_eq!(
        me(&app, first["access_token"].as_str().unwrap()).await.0,
        401
    );
    let (status, _) = refresh(&app, &client, second["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn revoke_stops_a_token_at_once() {
    let app = TestApp::start().await;
    let (client, _, tokens) = signed_in_client(&app).await;
    let access = tokens["access_token"].as_str().unwrap();
    let revoke = async |token: &str, client_id: &str| {
        app.http
            .post(app.url("/oauth/revoke"))
            .form(&[("token", token), ("client_id", client_id)])
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    // another client cannot revoke it (the answer is the same 200)
    let other = register(&app, REDIRECT).await;
    assert_eq!(revoke(access, &other).await, 200);
    assert_eq!(me(&app, access).await.0, 200);
    assert_eq!(revoke(access, &client).await, 200);
    assert_eq!(me(&app, access).await.0, 401);
    // the refresh token still works once, and revoking it ends the sign-in
    let (status, again) = refresh(&app, &client, tokens["refresh_token"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(
        revoke(again["refresh_token"].as_str().unwrap(), &client).await,
        200
    );
    assert_eq!(
        me(&app, again["access_token"].as_str().unwrap()).await.0,
        401
    );

    // a service credential revokes its own access token
    let token = app.token(&app.acme).await;
    let res = app
        .http
        .post(app.url("/oauth/revoke"))
        .basic_auth(&app.acme.client_id, Some(&app.acme.client_secret))
        .form(&[("token", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(me(&app, &token).await.0, 401);
}

#[tokio::test]
async fn a_setup_code_exchanged_twice_is_refused() {
    let app = TestApp::start().await;
    let email = person(&app, "dee@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let csrf = b.csrf("/console/setup-codes").await;
    let made = b
        .post(
            "/console/setup-codes",
            &[("csrf", &csrf), ("label", "laptop plugin")],
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.body);
    let code = made.text_of("setup-code");
    let swap = async || {
        let res = app
            .http
            .post(app.url("/oauth/setup-code"))
            .form(&[("code", code.as_str())])
            .send()
            .await
            .unwrap();
        (
            res.status().as_u16(),
            res.json::<serde_json::Value>().await.unwrap(),
        )
    };
    let (status, cred) = swap().await;
    assert_eq!(status, 200, "{cred}");
    let (status, body) = swap().await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant")),
        "{body}"
    );

    // the plugin's credential mints tokens that act as the person, with the plugin's scopes
    let (status, tok) = app
        .token_raw(
            cred["client_id"].as_str().unwrap(),
            cred["client_secret"].as_str().unwrap(),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{tok}");
    let (_, who) = me(&app, tok["access_token"].as_str().unwrap()).await;
    assert_eq!(who["person_label"], "dee@acme.example");
    assert_eq!(
        ScopeSet::parse(tok["scope"].as_str().unwrap()).unwrap(),
        ScopeSet::from_scopes(PLUGIN_SCOPES)
    );
}

#[tokio::test]
async fn a_direct_mint_holds_exactly_the_plugin_scopes() {
    let app = TestApp::start().await;
    let email = person(&app, "eli@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    // signed out, the page asks for a sign-in that comes back here
    let page = b.get("/login?mode=direct").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("mint a token"), "{}", page.body);
    b.sign_in(&email, PASSWORD).await;
    let csrf = b.csrf("/login?mode=direct").await;
    let minted = b.post("/login/direct", &[("csrf", &csrf)]).await;
    assert_eq!(minted.status, 200, "{}", minted.body);
    let token = minted.text_of("token");
    let (status, who) = me(&app, &token).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["person_label"], "eli@acme.example");
    let held: Vec<String> = serde_json::from_value(who["scopes"].clone()).unwrap();
    assert_eq!(
        ScopeSet::parse(&held.join(" ")).unwrap(),
        ScopeSet::from_scopes(PLUGIN_SCOPES)
    );
}

#[tokio::test]
async fn a_form_without_its_csrf_token_is_refused_and_changes_nothing() {
    let app = TestApp::start().await;
    let email = person(&app, "fay@acme.example", Role::Admin).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let before = app
        .store
        .credentials()
        .list(Some("acme"))
        .await
        .unwrap()
        .len();
    for csrf in [None, Some("forged")] {
        let mut form = vec![("label", "sneaky")];
        if let Some(c) = csrf {
            form.push(("csrf", c));
        }
        let page = b.post("/console/credentials", &form).await;
        assert_eq!(page.status, 403, "{}", page.body);
    }
    assert_eq!(
        app.store
            .credentials()
            .list(Some("acme"))
            .await
            .unwrap()
            .len(),
        before
    );
    // the sign-in form refuses a post without its own token too
    let mut fresh = Browser::new(&app);
    let page = fresh
        .post(
            "/login",
            &[("email", email.as_str()), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(page.status, 403);
}

#[tokio::test]
async fn a_member_cannot_open_admin_pages_or_grant_admin_scopes() {
    let app = TestApp::start().await;
    let email = person(&app, "gus@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    for path in [
        "/console/credentials",
        "/console/people",
        "/console/apps",
        "/console/connections",
        "/console/policy",
        "/console/sync",
    ] {
        assert_eq!(b.get(path).await.status, 403, "{path}");
    }
    assert_eq!(b.get("/console").await.status, 200);
}

#[tokio::test]
async fn disabling_a_person_ends_their_sessions_and_tokens() {
    let app = TestApp::start().await;
    let (_, _, tokens) = signed_in_client(&app).await;
    let mut b = Browser::new(&app);
    b.sign_in("ana@acme.example", PASSWORD).await;
    assert_eq!(b.get("/console").await.status, 200);
    pp_auth::disable_person(&app.store, "ana@acme.example")
        .await
        .unwrap();
    assert_eq!(
        me(&app, tokens["access_token"].as_str().unwrap()).await.0,
        401
    );
    let page = b.get("/console").await;
    assert_eq!(page.status, 303);
    assert!(page.location.unwrap().starts_with("/login"));
}

#[tokio::test]
async fn registration_refuses_what_it_cannot_keep_safe() {
    let app = TestApp::start().await;
    let post = async |body: serde_json::Value| {
        let res = app
            .http
            .post(app.url("/oauth/register"))
            .json(&body)
            .send()
            .await
            .unwrap();
        (
            res.status().as_u16(),
            res.json::<serde_json::Value>().await.unwrap(),
        )
    };
    let (status, body) = post(json!({"redirect_uris": ["http://evil.example/cb"]})).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_redirect_uri"))
    );
    let (status, body) = post(json!({"redirect_uris": [REDIRECT], "scope": "ads:write"})).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client_metadata"))
    );
    let (status, body) = post(
        json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic"}),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client_metadata"))
    );
    // the metadata is an object: an array is not read by position as its fields
    let (status, body) = post(json!([
        "Positional",
        ["https://app.example/cb"],
        null,
        null,
        null,
        null
    ]))
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client_metadata")),
        "{body}"
    );
    let (status, body) = post(json!({"redirect_uris": ["https://app.example/cb"]})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        ScopeSet::parse(body["scope"].as_str().unwrap()).unwrap(),
        ScopeSet::from_scopes(PLUGIN_SCOPES)
    );
    assert_eq!(body["token_endpoint_auth_method"], "none");
}

#[tokio::test]
async fn the_discovery_document_describes_what_is_served() {
    let app = TestApp::start().await;
    let doc: serde_json::Value = app
        .http
        .get(app.url("/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["issuer"], app.base);
    for (k, path) in [
        ("authorization_endpoint", "/oauth/authorize"),
        ("token_endpoint", "/oauth/token"),
        ("revocation_endpoint", "/oauth/revoke"),
        ("registration_endpoint", "/oauth/register"),
    ] {
        assert_eq!(doc[k], app.url(path), "{k}");
    }
    assert_eq!(doc["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(doc["response_types_supported"], json!(["code"]));
    assert_eq!(
        doc["grant_types_supported"],
        json!(["authorization_code", "refresh_token", "client_credentials"])
    );
}

#[tokio::test]
async fn the_console_shows_the_audit_log_to_admins() {
    let app = TestApp::start().await;
    let admin = person(&app, "hal@acme.example", Role::Admin).await;
    let member = person(&app, "ivy@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    b.sign_in(&admin, PASSWORD).await;
    let empty = b.get("/console/audit").await;
    assert_eq!(empty.status, 200, "{}", empty.body);
    assert!(empty.body.contains("No change has been committed yet"));

    let row = pp_store::ads_writes::AuditRow {
        id: "aud_1".into(),
        tenant: pp_core::TenantId::parse("acme").unwrap(),
        plan_id: "plan_1".into(),
        credential_id: "cred_x".into(),
        actor: "ops@acme.example".into(),
        surface: "api".into(),
        operation: "sp.update_keyword_bids".into(),
        merchant: "ENTITYDEMO".into(),
        profile_id: Some("1234".into()),
        plan_hash: "h".into(),
        idempotency_key: None,
        snapshot: json!({}),
        sent: None,
        answer: None,
        status: "sending".into(),
        created_ms: 1_700_000_000_000,
        finished_ms: None,
        approved_by: None,
        previewed_by: None,
        previewed_credential_id: None,
    };
    app.store.ads_writes().begin(row).await.unwrap();
    app.store
        .ads_writes()
        .settle("aud_1", "applied", Some(&json!({})), &json!({}))
        .await
        .unwrap();
    let page = b.get("/console/audit").await;
    assert!(
        page.body.contains("ops@acme.example") && page.body.contains("sp.update_keyword_bids"),
        "{}",
        page.body
    );
    assert!(page.body.contains("applied"));

    let mut m = Browser::new(&app);
    m.sign_in(&member, PASSWORD).await;
    assert_eq!(m.get("/console/audit").await.status, 403);
}

#[tokio::test]
async fn a_person_changes_their_password_and_signs_in_again() {
    let app = TestApp::start().await;
    let email = person(&app, "jo@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let csrf = b.csrf("/console/password").await;
    let new = "a brand new passphrase";
    let wrong = b
        .post(
            "/console/password",
            &[("csrf", &csrf), ("current", "not it at all"), ("new", new)],
        )
        .await;
    assert_eq!(wrong.status, 400);
    assert!(wrong.body.contains("not right"), "{}", wrong.body);
    let done = b
        .post(
            "/console/password",
            &[("csrf", &csrf), ("current", PASSWORD), ("new", new)],
        )
        .await;
    assert_eq!(
        (done.status, done.location.as_deref()),
        (303, Some("/login"))
    );
    // signed out everywhere; the old password no longer works, the new one does
    assert_eq!(b.get("/console").await.status, 303);
    assert_eq!(
        Browser::new(&app).sign_in(&email, PASSWORD).await.status,
        401
    );
    assert_eq!(Browser::new(&app).sign_in(&email, new).await.status, 303);
}

#[tokio::test]
async fn an_admin_reads_and_changes_the_write_policy_in_the_console() {
    let app = TestApp::start().await;
    let email = person(&app, "pia@acme.example", Role::Admin).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let page = b.get("/console/policy").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("The defaults every new tenant gets"),
        "{}",
        page.body
    );
    assert!(page.body.contains("<strong>×3</strong>"), "{}", page.body);
    assert!(
        page.body.contains("Approvals</a>): nothing."),
        "{}",
        page.body
    );
    // a policy that cannot mean anything is refused, and the one in force kept
    let csrf = b.csrf("/console/policy").await;
    let page = b
        .post(
            "/console/policy",
            &[("csrf", csrf.as_str()), ("policy", r#"{"maxRaise": 0.5}"#)],
        )
        .await;
    assert_eq!(page.status, 400);
    assert!(page.body.contains("Nothing was changed"), "{}", page.body);
    assert_eq!(app.store.policies().get("acme").await.unwrap(), None);
    // a real one is saved under the admin's name and is what the writes read
    let page = b
        .post(
            "/console/policy",
            &[
                ("csrf", csrf.as_str()),
                ("policy", r#"{"maxRaise": 2, "bids": {"USD": {"max": 5}}}"#),
            ],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Set by pia@acme.example"),
        "{}",
        page.body
    );
    let (p, row) = pp_marketplace::policy::in_force(&app.store, "acme")
        .await
        .unwrap();
    assert_eq!((p.max_raise, p.bids["USD"].max), (2.0, Some(5.0)));
    let page = b
        .post(
            "/console/policy",
            &[
                ("csrf", csrf.as_str()),
                ("policy", r#"{"approval": {"mcp": true, "hours": 8}}"#),
            ],
        )
        .await;
    assert!(
        page.body
            .contains("every commit of an AI client (an MCP session or a self-registered application), whichever door commits its plan; each waits 8 hours, and another person than the requester approves"),
        "{}",
        page.body
    );
    assert_eq!(row.unwrap().updated_by, "pia@acme.example");
    // without the form's token nothing changes
    let page = b.post("/console/policy", &[("policy", "{}")]).await;
    assert_eq!(page.status, 403);
}

/// Issue 52, finding 7: `/oauth/revoke` answers an unknown client id as it answers a real
/// public one, so it tells nobody which client ids exist. Reproduced on the old main: an
/// unknown id got `401 invalid_client`, a registered public client's id `200`.
#[tokio::test]
async fn revoke_answers_unknown_and_known_client_ids_alike() {
    let app = TestApp::start().await;
    let known = register(&app, REDIRECT).await;
    let answer = async |client_id: &str| {
        let r = app
            .http
            .post(app.url("/oauth/revoke"))
            .form(&[("token", "pprt_not-a-token"), ("client_id", client_id)])
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    };
    let (known, unknown) = (
        answer(&known).await,
        answer("ppapp_000000000000000000000000").await,
    );
    assert_eq!(known, unknown);
    assert_eq!(known.0, 200, "{known:?}");
    // a credential's id without its secret is answered alike too
    assert_eq!(answer(&app.acme.client_id).await, known);
}

/// Issue 52, finding 6: sign-in limits count failures only, per address and per email and
/// address together, so nobody is locked out by their own sign-ins or by someone else failing
/// from another address. Reproduced on the old main: the per-email limit counted successful
/// sign-ins too, and one address failing for an admin's email kept them locked out.
#[tokio::test]
async fn sign_in_limits_count_failures_and_cannot_be_turned_against_a_person() {
    let app = TestApp::start().await;
    let email = person(&app, "ada@acme.example", Role::Admin).await;
    // a dozen successful sign-ins in a row: none refused
    for n in 0..12 {
        let page = Browser::new(&app).sign_in(&email, PASSWORD).await;
        assert_eq!(page.status, 303, "sign-in {n}: {}", page.body);
    }
    // someone else, from another address, fails again and again for the same email
    let mut refused = false;
    for _ in 0..30 {
        let page = Browser::from_address(&app, "127.0.0.2")
            .sign_in(&email, "guessing wrong")
            .await;
        refused |= page.status == 429;
        assert!(matches!(page.status, 401 | 429), "{}", page.body);
    }
    assert!(refused, "the guessing address is stopped");
    // the person, from their own address, still signs in
    let page = Browser::from_address(&app, "127.0.0.3")
        .sign_in(&email, PASSWORD)
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
}

/// Issue 66, finding 1: the per-email budget could still lock a person out. Reproduced on
/// the old main against the release binary: failures for one email from 11 addresses spent
/// its budget (50), and then the victim's correct password from an address that had never
/// failed answered `429`; 3 addresses failing every half second kept it so.
#[tokio::test]
async fn failures_from_many_addresses_slow_an_email_but_never_refuse_its_person() {
    let app = TestApp::start().await;
    let email = person(&app, "eve.target@acme.example", Role::Admin).await;
    // ten addresses spend the email's budget of 50 failures, five each
    for n in 11..=20 {
        let from = format!("127.0.0.{n}");
        for _ in 0..5 {
            let page = Browser::from_address(&app, &from)
                .sign_in(&email, "guessing wrong")
                .await;
            assert_eq!(page.status, 401, "{from}: {}", page.body);
        }
        // each guessing address is stopped by its own count
        let page = Browser::from_address(&app, &from)
            .sign_in(&email, "guessing wrong")
            .await;
        assert_eq!(page.status, 429, "{from}: {}", page.body);
    }
    // an eleventh: the email is under attack, so a fresh address gets three guesses
    let guesses = async |from: &str| {
        let mut statuses = Vec::new();
        for _ in 0..5 {
            let page = Browser::from_address(&app, from)
                .sign_in(&email, "guessing wrong")
                .await;
            statuses.push(page.status);
        }
        statuses
    };
    assert_eq!(guesses("127.0.0.21").await, [401, 401, 401, 429, 429]);
    // the person, from an address that never failed, signs in
    let started = std::time::Instant::now();
    let page = Browser::from_address(&app, "127.0.0.30")
        .sign_in(&email, PASSWORD)
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(900),
        "an attempt on an email under attack waits"
    );
    // another fresh guessing address gets three guesses an hour, not its own five a minute
    assert_eq!(guesses("127.0.0.40").await, [401, 401, 401, 429, 429]);
    // and the person still signs in, from another address of theirs
    let page = Browser::from_address(&app, "127.0.0.31")
        .sign_in(&email, PASSWORD)
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
}

/// Issue 52, finding 6: the password form is limited like sign-in. Reproduced on the old
/// main: 25 wrong current passwords, then the right one changed it.
#[tokio::test]
async fn wrong_current_passwords_are_limited_like_sign_ins() {
    let app = TestApp::start().await;
    let email = person(&app, "kim@acme.example", Role::Member).await;
    let mut b = Browser::new(&app);
    b.sign_in(&email, PASSWORD).await;
    let csrf = b.csrf("/console/password").await;
    let new = "a brand new passphrase";
    for _ in 0..25 {
        let wrong = b
            .post(
                "/console/password",
                &[("csrf", &csrf), ("current", "not it at all"), ("new", new)],
            )
            .await;
        assert_eq!(wrong.status, 400, "{}", wrong.body);
    }
    let right = b
        .post(
            "/console/password",
            &[("csrf", &csrf), ("current", PASSWORD), ("new", new)],
        )
        .await;
    assert_eq!(right.status, 400, "the right one waits too: {}", right.body);
    assert!(right.body.contains("Too many"), "{}", right.body);
    // nothing changed: the old password still signs in (from another address)
    let page = Browser::from_address(&app, "127.0.0.4")
        .sign_in(&email, PASSWORD)
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
}

/// Issue 52, finding 4: `/oauth/authorize` sends an error back only to an address someone
/// vouched for. Reproduced on the old main: anyone could register a client (RFC 7591) with
/// any https redirect URI, and an error at `/oauth/authorize` (a missing `code_challenge`)
/// redirected straight there without sign-in or consent: an open redirector.
#[tokio::test]
async fn an_error_goes_back_only_to_an_address_someone_vouched_for() {
    let app = TestApp::start().await;
    let anywhere = "https://anywhere.example/cb";
    let client = register(&app, anywhere).await;
    let (_, challenge) = pkce();
    let mut q = authorize_query(&client, anywhere, &challenge, "S256");
    q.retain(|(k, _)| k != "code_challenge");
    let page = Browser::new(&app)
        .get(&with_query("/oauth/authorize", &q))
        .await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(page.location.is_none(), "sent away to {:?}", page.location);
    assert!(page.body.contains("request was refused"), "{}", page.body);
}

/// Issue 52, finding 5: a full table of clients waiting for a first consent forgets the
/// oldest to make room instead of refusing everyone. Reproduced on the old main: 1,010
/// registrations from 101 loopback addresses filled the table in 7.6 s, and a real client then
/// got `429` until unused ones aged out a day later.
#[tokio::test]
async fn a_full_table_of_unused_clients_makes_room_for_the_next() {
    let app = TestApp::start().await;
    let uris = [REDIRECT.to_owned()];
    for i in 0..pp_auth::clients::MAX_UNBOUND_DYNAMIC {
        let id = format!("ppapp_flood{i:06}");
        app.store
            .clients()
            .insert(&pp_store::signin::NewClient {
                client_id: &id,
                tenant_id: None,
                kind: "dynamic",
                name: "flood",
                secret_hash: None,
                redirect_uris: &uris,
                scopes: "account:read",
                created_by: "dcr:flood",
            })
            .await
            .unwrap();
    }
    let r = app
        .http
        .post(app.url("/oauth/register"))
        .json(&json!({ "client_name": "Real", "redirect_uris": [REDIRECT] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    assert!(
        app.store
            .clients()
            .get("ppapp_flood000000")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        app.store
            .clients()
            .get("ppapp_flood000999")
            .await
            .unwrap()
            .is_some()
    );
}

/// Issue 52, finding 5: the operator can require an initial access token for registration
/// (RFC 7591, docs/auth.md). Reproduced on the old main: there was no way to, so anyone could register.
#[tokio::test]
async fn registration_can_require_an_initial_access_token() {
    let app = TestApp::start_options(crate::common::Options {
        registration_token: Some("ppreg_only-for-our-clients".into()),
        ..Default::default()
    })
    .await;
    let body = json!({ "client_name": "IDE", "redirect_uris": [REDIRECT] });
    let send = async |token: Option<&str>| {
        let mut r = app.http.post(app.url("/oauth/register")).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().await.unwrap()
    };
    let r = send(None).await;
    assert_eq!(r.status(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_token");
    assert_eq!(send(Some("ppreg_guess")).await.status(), 401);
    assert_eq!(send(Some("ppreg_only-for-our-clients")).await.status(), 201);
}

/// Registers an MCP client from `address`; the status and client id.
async fn register_from(app: &TestApp, address: &str) -> (u16, String) {
    let http = reqwest::Client::builder()
        .local_address(Some(address.parse().unwrap()))
        .build()
        .unwrap();
    let res = http
        .post(app.url("/oauth/register"))
        .json(&json!({ "client_name": "Flood", "redirect_uris": [REDIRECT] }))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    (
        status,
        body["client_id"].as_str().unwrap_or_default().to_owned(),
    )
}

/// Issue 66, finding 5: a registration flood evicted a client waiting for consent.
/// Reproduced on the old main against the release binary: 1,100 registrations from 110
/// addresses in 33 s evicted a legitimate client that had already started its authorization
/// (the table of 1,000 waiting clients made room from the oldest). Now a client whose consent
/// page a person opened is held for half an hour, and room is made from the network with the
/// most clients waiting, so a client alone on its network outlives the flood too.
#[tokio::test]
async fn a_registration_flood_evicts_its_own_clients_not_one_a_person_is_authorizing() {
    let app = TestApp::start().await;
    let email = person(&app, "olu@acme.example", Role::Member).await;
    let (status, pending) = register_from(&app, "127.0.0.2").await;
    assert_eq!(status, 201);
    let (status, quiet) = register_from(&app, "127.0.0.3").await;
    assert_eq!(status, 201);
    let mut b = Browser::new(&app);
    assert_eq!(b.sign_in(&email, PASSWORD).await.status, 303);
    let (verifier, challenge) = pkce();
    let q = authorize_query(&pending, REDIRECT, &challenge, "S256");
    let page = b.get(&with_query("/oauth/authorize", &q)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    // they are the oldest; the flood comes a second later, 10 from each of 101 addresses
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let mut tasks = Vec::new();
    for n in 0..101u32 {
        let app_url = app.url("");
        let address = format!("127.0.{}.{}", 10 + n / 200, 10 + n % 200);
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::builder()
                .local_address(Some(address.parse().unwrap()))
                .build()
                .unwrap();
            let mut made = 0;
            for _ in 0..10 {
                let res = http
                    .post(format!("{app_url}/oauth/register"))
                    .json(&json!({ "client_name": "Flood", "redirect_uris": [REDIRECT] }))
                    .send()
                    .await
                    .unwrap();
                made += u32::from(res.status() == 201);
            }
            made
        }));
    }
    let mut made = 0;
    for t in tasks {
        made += t.await.unwrap();
    }
    assert_eq!(made, 1010, "every flood registration was taken");
    let clients = app.store.clients();
    assert!(
        clients.get(&quiet).await.unwrap().is_some(),
        "the quiet network's client stays"
    );
    // the person answers: the client is still there and the code works
    let back = allow(&mut b, &page, &q).await;
    assert_eq!(back.status, 303, "{}", back.body);
    let code = back.location_param("code").expect("a code");
    let (status, tokens) = exchange(&app, &pending, &code, REDIRECT, Some(&verifier)).await;
    assert_eq!(status, 200, "{tokens}");
}

/// Issue 66, finding 6: self-consent made an open redirector. Reproduced on the old main
/// against the release binary: a person registered a client with an attacker's redirect URI,
/// consented once, and afterwards errors at `/oauth/authorize` (here a missing
/// `code_challenge`) redirected there for anyone, signed in or not. Now such an error goes to
/// the client only for the person who consented to it.
#[tokio::test]
async fn an_error_for_a_self_registered_client_goes_back_only_to_the_person_who_consented() {
    let app = TestApp::start().await;
    let attacker = "https://attacker.example/cb";
    let mallory = person(&app, "mallory@acme.example", Role::Member).await;
    let bob = person(&app, "bob@acme.example", Role::Member).await;
    let client = register(&app, attacker).await;
    let mut m = Browser::new(&app);
    assert_eq!(m.sign_in(&mallory, PASSWORD).await.status, 303);
    let (_, challenge) = pkce();
    let q = authorize_query(&client, attacker, &challenge, "S256");
    let page = m.get(&with_query("/oauth/authorize", &q)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let back = allow(&mut m, &page, &q).await;
    assert_eq!(back.status, 303, "{}", back.body);
    // the link the attacker sends around: a request that errors
    let mut bad = q.clone();
    bad.retain(|(k, _)| k != "code_challenge");
    let link = with_query("/oauth/authorize", &bad);
    let anyone = Browser::new(&app).get(&link).await;
    assert_eq!(anyone.status, 400, "{:?} {}", anyone.location, anyone.body);
    assert!(
        anyone.location.is_none(),
        "sent away to {:?}",
        anyone.location
    );
    let mut other = Browser::new(&app);
    assert_eq!(other.sign_in(&bob, PASSWORD).await.status, 303);
    let signed_in = other.get(&link).await;
    assert_eq!(signed_in.status, 400, "{:?}", signed_in.location);
    assert!(
        signed_in.location.is_none(),
        "sent away to {:?}",
        signed_in.location
    );
    // the person who consented is sent back to their client with the error
    let own = m.get(&link).await;
    assert_eq!(own.status, 303, "{}", own.body);
    assert!(own.location.as_deref().unwrap().starts_with(attacker));
    assert_eq!(
        own.location_param("error").as_deref(),
        Some("invalid_request")
    );
}

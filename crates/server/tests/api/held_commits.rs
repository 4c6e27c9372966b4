//! Who a held commit waits for, and when it is taken back (docs/writes.md, "Approval"): the
//! policy holds named credentials and applications whichever hand commits their plans; ending
//! a requester's access (a credential or an application revoked, a person disabled) withdraws
//! their held commits, which are then never sent; and nobody approves their own request unless
//! the policy allows it.

use pp_auth::Role;
use pp_auth::clients::{PartnerApp, register_partner_app};
use pp_core::TenantId;
use serde_json::{Value, json};

use crate::ads_writes::{
    CALL, HeldByMcp, WRITER, approver_browser, bid_update, commit_of, decide, held_by_mcp,
    keywords, nudged, preview_ok,
};
use crate::common::TestApp;
use crate::signin_support::{Browser, PASSWORD, REDIRECT, consent, exchange, person, pkce};

/// Registers a public partner application for acme that may write ads; its client id.
async fn agency_tool(app: &TestApp) -> String {
    let created = register_partner_app(
        &app.store,
        Some(&TenantId::parse("acme").unwrap()),
        &PartnerApp {
            name: "Agency tool",
            redirect_uris: &[REDIRECT.to_owned()],
            scopes: WRITER,
            confidential: false,
        },
        "test",
    )
    .await
    .unwrap();
    created.row.client_id
}

/// A new acme person with `role`, signed in through application `client_id`: their browser
/// and the access token the application got.
async fn signed_in_through(
    app: &TestApp,
    email: &str,
    role: Role,
    client_id: &str,
) -> (Browser, String) {
    let who = person(app, email, role).await;
    let mut b = Browser::new(app);
    b.sign_in(&who, PASSWORD).await;
    let (verifier, challenge) = pkce();
    let code = consent(&mut b, client_id, &challenge).await;
    let (s, tok) = exchange(app, client_id, &code, REDIRECT, Some(&verifier)).await;
    assert_eq!(s, 200, "{tok}");
    (b, tok["access_token"].as_str().unwrap().to_owned())
}

/// Sets acme's write policy through the admin service, as the console does.
async fn set_policy(app: &TestApp, doc: Value) -> Result<(), String> {
    let admin = pp_admin::Admin::new(app.store.clone());
    let op = pp_admin::Operator::service("admin:test");
    admin
        .policies(&op)
        .set("acme", &doc)
        .await
        .map(|_| ())
        .map_err(|e| e.message().to_owned())
}

/// Previews a 10% raise of keyword `nth`'s bid with token `previewer` and commits it with
/// token `committer`: the commit's status and answer.
async fn raise(app: &TestApp, previewer: &str, committer: &str, nth: usize) -> (u16, Value) {
    let k = keywords(app, previewer, nth + 1).await;
    let c = bid_update(&[&k[nth]["keywordId"]], nudged(&k[nth]));
    let preview = preview_ok(app, previewer, &c).await;
    app.post(committer, CALL, commit_of(c, &preview)).await
}

fn held(r: &(u16, Value)) -> bool {
    r.0 == 202 && r.1["outcome"] == "pending_approval"
}

/// Issue 52, finding 1 (the rules that name callers). Reproduced on the old main: a policy
/// could hold only a door (`mcp`), sizes and operations, so `{"approval": {"credentials":
/// [...]}}` was refused and a tenant could not hold one risky credential or one application's
/// commits; a plan that credential previewed was sent when another credential committed it.
#[tokio::test]
async fn a_named_credential_or_application_waits_for_a_person_whichever_hand_commits() {
    let app = TestApp::start_market().await;
    let risky = app.credential("acme", Some(WRITER)).await;
    let other = app.credential("acme", Some(WRITER)).await;
    let (tr, to) = (app.token(&risky).await, app.token(&other).await);
    // names are checked: another tenant's or an unknown credential is refused
    let refused = set_policy(&app, json!({"approval": {"credentials": ["cred_nobody1"]}})).await;
    assert!(refused.unwrap_err().contains("cred_nobody1"));
    set_policy(
        &app,
        json!({"approval": {"credentials": [risky.credential_id]}}),
    )
    .await
    .unwrap();
    // the named credential's own commit, and another's commit of its plan, wait
    let r = raise(&app, &tr, &tr, 0).await;
    assert!(held(&r), "{r:?}");
    let r = raise(&app, &tr, &to, 1).await;
    assert!(held(&r), "{r:?}");
    assert!(
        r.1["approval"]["reason"]
            .as_str()
            .unwrap()
            .contains("previewed there"),
        "{r:?}"
    );
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    // the other credential's own plan is sent at once
    let r = raise(&app, &to, &to, 2).await;
    assert_eq!(r.0, 200, "{r:?}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);

    // an application: a person signed in through it waits, over REST as over any door
    let tool = agency_tool(&app).await;
    set_policy(&app, json!({"approval": {"applications": [tool]}}))
        .await
        .unwrap();
    let (_, tp) = signed_in_through(&app, "ada@acme.example", Role::Admin, &tool).await;
    let r = raise(&app, &tp, &tp, 3).await;
    assert!(held(&r), "{r:?}");
    assert!(
        r.1["approval"]["reason"].as_str().unwrap().contains(&tool),
        "{r:?}"
    );
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
}

/// Reads approval `id` with a fresh reader of acme (the requester's own token may be gone).
async fn approval(app: &TestApp, id: &str) -> Value {
    let reader = app.credential("acme", Some("ads:read timeline:read")).await;
    let t = app.token(&reader).await;
    let (s, r) = app
        .get(&t, &format!("/api/marketplace/approvals/{id}"))
        .await;
    assert_eq!(s, 200, "{r}");
    r
}

/// An admin's browser in acme's console.
async fn console_admin(app: &TestApp) -> Browser {
    let who = person(app, "root@acme.example", Role::Admin).await;
    let mut b = Browser::new(app);
    b.sign_in(&who, PASSWORD).await;
    b
}

/// Posts a console form at `path` (the CSRF token read off `page`); its status.
async fn console_post(b: &mut Browser, page: &str, path: &str) -> u16 {
    let csrf = b.csrf(page).await;
    b.post(path, &[("csrf", csrf.as_str())]).await.status
}

/// Issue 52, finding 2. Reproduced on the old main: a commit held for approval was approved
/// and sent after its credential was revoked, and the approvals page did not say the
/// requester was gone.
#[tokio::test]
async fn revoking_a_credential_withdraws_its_held_commits_and_they_are_never_sent() {
    let app = TestApp::start_market().await;
    let HeldByMcp { held, .. } = held_by_mcp(&app).await;
    let id = held["approval"]["approvalId"].as_str().unwrap().to_owned();
    let requester = held["approval"]["requestedBy"].as_str().unwrap();
    let cred = requester.rsplit('/').next().unwrap().to_owned();
    let mut admin = console_admin(&app).await;
    let status = console_post(
        &mut admin,
        "/console/credentials",
        &format!("/console/credentials/{cred}/revoke"),
    )
    .await;
    assert_eq!(status, 303);
    let now = approval(&app, &id).await;
    assert_eq!(now["status"], "withdrawn", "{now}");
    assert_eq!(now["decidedBy"], "root@acme.example", "{now}");
    assert!(
        now["message"].as_str().unwrap().contains("was revoked"),
        "{now}"
    );
    // the approvals page no longer offers it, and approving it anyway sends nothing
    let mut b = approver_browser(&app, "val@acme.example").await;
    let page = b.get("/console/approvals").await;
    assert!(
        !page.body.contains(&format!("approval-{id}")),
        "{}",
        page.body
    );
    assert_eq!(decide(&mut b, &id, "approve").await.status, 409);
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    // the timeline and the audit log say so
    let reader = app.credential("acme", Some("ads:read timeline:read")).await;
    let t = app.token(&reader).await;
    let (_, tl) = app
        .get(
            &t,
            "/v1/timeline?family=ads_approval&kind=approval.withdrawn",
        )
        .await;
    assert_eq!(
        tl["events"][0]["payload"]["approvalId"],
        id.as_str(),
        "{tl}"
    );
    assert_eq!(tl["events"][0]["actor"], "root@acme.example", "{tl}");
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_keywords&limit=1",
        )
        .await;
    let rec = &audit["records"][0];
    assert_eq!(rec["status"], "withdrawn", "{rec}");
    assert_eq!(
        rec["answer"]["withdrawn"]["approvalId"],
        id.as_str(),
        "{rec}"
    );
    assert_eq!(rec["credentialId"], cred.as_str(), "{rec}");
    assert_eq!(rec["sent"], Value::Null, "{rec}");

    // a revocation that lands while nobody withdrew (straight in the store): the person who
    // decides finds the request withdrawn, and nothing is sent
    let HeldByMcp { held, .. } = held_by_mcp(&app).await;
    let id = held["approval"]["approvalId"].as_str().unwrap().to_owned();
    let cred = held["approval"]["requestedBy"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    app.store.credentials().revoke(&cred).await.unwrap();
    let page = decide(&mut b, &id, "approve").await;
    assert_eq!(page.status, 409, "{}", page.body);
    assert!(page.body.contains("withdrawn"), "{}", page.body);
    assert_eq!(approval(&app, &id).await["status"], "withdrawn");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
}

/// Issue 52, finding 2 (people and applications). Reproduced on the old main: a person's held
/// commit stayed approvable after the person was disabled, and so did a commit made through an
/// application after it was revoked.
#[tokio::test]
async fn disabling_a_person_or_revoking_an_application_withdraws_their_held_commits() {
    let app = TestApp::start_market().await;
    let tool = agency_tool(&app).await;
    set_policy(&app, json!({"approval": {"applications": [tool]}}))
        .await
        .unwrap();
    let (_, ta) = signed_in_through(&app, "ada@acme.example", Role::Admin, &tool).await;
    let (_, tb) = signed_in_through(&app, "bea@acme.example", Role::Admin, &tool).await;
    let by_ada = raise(&app, &ta, &ta, 0).await;
    let by_bea = raise(&app, &tb, &tb, 1).await;
    assert!(held(&by_ada) && held(&by_bea), "{by_ada:?} {by_bea:?}");
    let ada_id = by_ada.1["approval"]["approvalId"].as_str().unwrap();
    let bea_id = by_bea.1["approval"]["approvalId"].as_str().unwrap();
    // ada is disabled: her request is withdrawn, bea's still waits
    let mut admin = console_admin(&app).await;
    let ada = app
        .store
        .people()
        .by_email("ada@acme.example")
        .await
        .unwrap()
        .unwrap();
    let status = console_post(
        &mut admin,
        "/console/people",
        &format!("/console/people/{}/disable", ada.id),
    )
    .await;
    assert_eq!(status, 303);
    assert_eq!(approval(&app, ada_id).await["status"], "withdrawn");
    assert_eq!(approval(&app, bea_id).await["status"], "pending");
    // the application is revoked: bea's request is withdrawn too
    let status = console_post(
        &mut admin,
        "/console/apps",
        &format!("/console/apps/{tool}/revoke"),
    )
    .await;
    assert_eq!(status, 303);
    let now = approval(&app, bea_id).await;
    assert_eq!(now["status"], "withdrawn", "{now}");
    assert!(now["message"].as_str().unwrap().contains(&tool), "{now}");
    let mut b = approver_browser(&app, "val@acme.example").await;
    for id in [ada_id, bea_id] {
        assert_eq!(decide(&mut b, id, "approve").await.status, 409);
    }
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
}

/// Issue 52 (four eyes). Reproduced on the old main: an approver who asked for a commit (an
/// admin, through an application the policy holds) approved it themselves, and it was sent.
#[tokio::test]
async fn nobody_approves_their_own_request_unless_the_policy_allows_it() {
    let app = TestApp::start_market().await;
    let tool = agency_tool(&app).await;
    set_policy(&app, json!({"approval": {"applications": [tool]}}))
        .await
        .unwrap();
    let (mut ada, t) = signed_in_through(&app, "ada@acme.example", Role::Admin, &tool).await;
    let r = raise(&app, &t, &t, 0).await;
    assert!(held(&r), "{r:?}");
    let id = r.1["approval"]["approvalId"].as_str().unwrap().to_owned();
    let page = decide(&mut ada, &id, "approve").await;
    assert_eq!(page.status, 409, "{}", page.body);
    assert!(page.body.contains("four eyes"), "{}", page.body);
    assert_eq!(approval(&app, &id).await["status"], "pending");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    // another approver may
    let mut val = approver_browser(&app, "val@acme.example").await;
    let page = decide(&mut val, &id, "approve").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
    // and with selfApproval, the requester may
    set_policy(
        &app,
        json!({"approval": {"applications": [tool], "selfApproval": true}}),
    )
    .await
    .unwrap();
    let r = raise(&app, &t, &t, 1).await;
    let id = r.1["approval"]["approvalId"].as_str().unwrap().to_owned();
    let page = decide(&mut ada, &id, "approve").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 2);
}

//! Brand memory: context documents and the manifest, the lifecycle table of docs/brand-memory.md, and the
//! timeline's appends, refusals, filters, paging and corroboration.

use serde_json::{Value, json};

use crate::common::{TestApp, service_actor};

async fn send(app: &TestApp, method: &str, token: &str, path: &str, body: &Value) -> (u16, Value) {
    let res = app
        .http
        .request(method.parse().unwrap(), app.url(path))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn token(app: &TestApp, tenant: &str, scopes: &str) -> String {
    let c = app.credential(tenant, Some(scopes)).await;
    app.token(&c).await
}

async fn events(app: &TestApp, t: &str) -> usize {
    app.get(t, "/v1/timeline?limit=500").await.1["events"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn demo_brands_have_docs_and_a_timeline() {
    let app = TestApp::start().await;
    let t = token(&app, "acme", "context:read timeline:read").await;
    let (s, m) = app.get(&t, "/v1/context/docs").await;
    assert_eq!(s, 200);
    let brands: Vec<&str> = m["brands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["brand_slug"].as_str().unwrap())
        .collect();
    assert_eq!(
        brands,
        ["acme-kitchen", "northwind", "sierra-casa", "trailhead"]
    );
    assert_eq!(m["brands"][1]["docs"].as_array().unwrap().len(), 3);
    assert_eq!(
        m["brands"][1]["lifecycle"],
        json!({ "state": "active", "changed_at": null, "changed_by": null, "surface": null, "reason_code": null })
    );
    let (s, doc) = app
        .get(&t, "/v1/context/doc?brand=northwind&type=overview")
        .await;
    assert_eq!((s, doc["revision"].as_i64()), (200, Some(1)));
    assert!(doc["content"].as_str().unwrap().contains("Northwind"));
    let (_, tl) = app
        .get(
            &t,
            "/v1/timeline?brand=northwind&category=stockout&limit=50",
        )
        .await;
    let stockouts = tl["events"].as_array().unwrap();
    assert!(!stockouts.is_empty());
    assert!(stockouts.iter().all(|e| {
        e["source"] == "demo_world"
            && e["interpretation"]
                .as_str()
                .unwrap()
                .contains("out of stock")
    }));
    // Each stake is corroborated by the world's ground truth on the day of the seed, so it
    // reads `corroborated` and closes by the timeline's rule: 90 days after the corroboration.
    let closes = (chrono::Utc::now().date_naive() + chrono::Duration::days(90)).to_string();
    assert!(
        stockouts
            .iter()
            .all(|e| e["status"] == "corroborated" && e["closes_on"] == closes.as_str()),
        "{stockouts:?}"
    );
    let (_, corroborated) = app
        .get(
            &t,
            "/v1/timeline?brand=northwind&category=stockout&status=corroborated&limit=50",
        )
        .await;
    assert_eq!(
        corroborated["events"].as_array().unwrap().len(),
        stockouts.len()
    );
    let (_, corroborations) = app
        .get(
            &t,
            "/v1/timeline?brand=northwind&kind=corroboration&limit=500",
        )
        .await;
    let parents: std::collections::HashSet<i64> = corroborations["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["source"] == "demo_world")
        .map(|c| c["parent_id"].as_i64().unwrap())
        .collect();
    assert!(
        stockouts
            .iter()
            .all(|e| parents.contains(&e["id"].as_i64().unwrap())),
        "every demo stake has its corroboration event"
    );
}

#[tokio::test]
async fn documents_revise_with_history_and_stale_writes_conflict() {
    let app = TestApp::start().await;
    let w = token(&app, "gamma", "context:read context:write").await;
    let put = |path: &'static str, content: &'static str, base: i64| {
        let (app, w) = (&app, w.clone());
        async move {
            send(
                app,
                "PUT",
                &w,
                path,
                &json!({ "content": content, "base_revision": base }),
            )
            .await
        }
    };
    let (s, b) = put(
        "/api/context/docs/alpha/overview",
        "Alpha sells kettles.",
        0,
    )
    .await;
    assert_eq!(
        (s, b["revision"].as_i64(), b["changed"].as_bool()),
        (200, Some(1), Some(true)),
        "{b}"
    );
    let (s, b) = put(
        "/api/context/docs/alpha/overview",
        "Alpha sells kettles.",
        1,
    )
    .await;
    assert_eq!(
        (s, b["revision"].as_i64(), b["changed"].as_bool()),
        (200, Some(1), Some(false)),
        "unchanged content keeps the revision"
    );
    let (s, b) = put(
        "/api/context/docs/alpha/overview",
        "Alpha sells kettles and mugs.",
        1,
    )
    .await;
    assert_eq!((s, b["revision"].as_i64()), (200, Some(2)));
    let (s, b) = put("/api/context/docs/alpha/overview", "Lost update", 1).await;
    assert_eq!((s, b["kind"].as_str()), (409, Some("conflict")));
    assert_eq!(b["conflicts"][0]["actual"], 2);
    let (s, b) = put(
        "/api/context/docs/alpha/corpus/faq-2026",
        "Q: Is it dishwasher safe?",
        0,
    )
    .await;
    assert_eq!((s, b["name"].as_str()), (200, Some("faq-2026")));
    for (path, kind) in [
        ("/api/context/docs/alpha/corpus", "bad_params"),
        ("/api/context/docs/alpha/memo", "bad_params"),
        ("/api/context/docs/zeta/overview", "unknown_brand"),
    ] {
        let (s, b) = put(path, "x", 0).await;
        assert_eq!(b["kind"].as_str(), Some(kind), "{path}: {s} {b}");
    }
    let revs: i64 = rusqlite::Connection::open(app.store.data_dir().join("state.sqlite"))
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM context_doc_revisions WHERE tenant_id = 'gamma'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(revs, 3, "every revision is kept");

    let r = token(&app, "gamma", "context:read").await;
    let (s, doc) = app
        .get(&r, "/v1/context/doc?brand=alpha&type=overview")
        .await;
    assert_eq!(
        (s, doc["revision"].as_i64(), doc["content"].as_str()),
        (200, Some(2), Some("Alpha sells kettles and mugs."))
    );
    let (s, doc) = app
        .get(&r, "/v1/context/doc?brand=alpha&type=corpus&name=faq-2026")
        .await;
    assert_eq!((s, doc["name"].as_str()), (200, Some("faq-2026")));
    assert_eq!(
        app.get(&r, "/v1/context/doc?brand=alpha&type=audience")
            .await
            .0,
        404
    );
    // Reading never writes; context:read alone cannot write.
    let (s, b) = send(
        &app,
        "PUT",
        &r,
        "/api/context/docs/alpha/overview",
        &json!({ "content": "x", "base_revision": 2 }),
    )
    .await;
    assert_eq!((s, b["kind"].as_str()), (403, Some("insufficient_scope")));
}

#[tokio::test]
async fn context_write_alone_is_refused() {
    let app = TestApp::start().await;
    // A credential cannot even be minted with context:write alone …
    assert!(
        pp_core::ScopeSet::parse("context:write")
            .unwrap()
            .validate_grant()
            .is_err()
    );
    // … and a token narrowed away from context:read is refused on every context call.
    let c = app
        .credential("gamma", Some("context:read context:write"))
        .await;
    let (s, body) = app
        .token_raw(
            &c.client_id,
            &c.client_secret,
            &[("scope", "context:write")],
        )
        .await;
    assert_eq!(s, 200);
    let t = body["access_token"].as_str().unwrap();
    assert_eq!(app.get(t, "/v1/context/docs").await.0, 403);
    let (s, b) = send(
        &app,
        "POST",
        t,
        "/api/context/lifecycle",
        &json!({ "brand_slug": "alpha", "action": "retire" }),
    )
    .await;
    assert_eq!((s, b["kind"].as_str()), (403, Some("insufficient_scope")));
    assert_eq!(
        b["required_scopes"],
        json!(["context:read"]),
        "context:read is checked first"
    );
}

#[tokio::test]
async fn lifecycle_follows_the_state_table() {
    let app = TestApp::start().await;
    let w = token(&app, "gamma", "context:read context:write timeline:read").await;
    let life = |action: &'static str| {
        let (app, w) = (&app, w.clone());
        async move {
            send(app, "POST", &w, "/api/context/lifecycle", &json!({ "brand_slug": "alpha", "action": action, "reason_code": "client_left", "note": "Contract ended", "on_behalf_of": "ceo@example.com", "actor": "someone-else@example.com" })).await
        }
    };
    let structural = || {
        let (app, w) = (&app, w.clone());
        async move {
            let n = |v: Value| v["events"].as_array().unwrap().len();
            n(app
                .get(&w, "/v1/timeline?kind=structural.brand_retired")
                .await
                .1)
                + n(app
                    .get(&w, "/v1/timeline?kind=structural.brand_restored")
                    .await
                    .1)
        }
    };
    // active → restore: no change, no event.
    let (s, b) = life("restore").await;
    assert_eq!(
        (s, b["state"].as_str(), b["changed"].as_bool()),
        (200, Some("active"), Some(false))
    );
    assert!(b.get("event_id").is_none());
    assert_eq!(structural().await, 0);
    // active → retire: changed, one event.
    let (s, b) = life("retire").await;
    assert_eq!(
        (s, b["state"].as_str(), b["changed"].as_bool()),
        (200, Some("retired"), Some(true))
    );
    let event_id = b["event_id"].as_i64().unwrap();
    assert_eq!(structural().await, 1);
    // retired → retire: no change, no second event.
    let (_, b) = life("retire").await;
    assert_eq!(
        (b["state"].as_str(), b["changed"].as_bool()),
        (Some("retired"), Some(false))
    );
    assert_eq!(structural().await, 1);
    // retired → restore: changed, one more event.
    let (_, b) = life("restore").await;
    assert_eq!(
        (b["state"].as_str(), b["changed"].as_bool()),
        (Some("active"), Some(true))
    );
    assert_eq!(structural().await, 2);

    let (_, tl) = app
        .get(&w, "/v1/timeline?kind=structural.brand_retired")
        .await;
    let e = &tl["events"][0];
    assert_eq!(e["id"], event_id);
    assert_eq!(
        (service_actor(&e["actor"]), e["on_behalf_of"].as_str()),
        (true, Some("ceo@example.com")),
        "the body never names the actor"
    );
    assert_eq!(
        e["payload"],
        json!({ "reason_code": "client_left", "note": "Contract ended", "on_behalf_of": "ceo@example.com", "surface": "api" })
    );
    // The manifest shows the lifecycle; `active` hides retired brands but still counts them.
    life("retire").await;
    let (_, all) = app.get(&w, "/api/context/manifest").await;
    assert_eq!(
        (
            all["brands"].as_array().unwrap().len(),
            all["retired_count"].as_i64()
        ),
        (2, Some(1))
    );
    let alpha = &all["brands"][0]["lifecycle"];
    assert_eq!(
        (
            alpha["state"].as_str(),
            service_actor(&alpha["changed_by"]),
            alpha["surface"].as_str(),
            alpha["reason_code"].as_str()
        ),
        (Some("retired"), true, Some("api"), Some("client_left"))
    );
    let (_, active) = app.get(&w, "/api/context/manifest?lifecycle=active").await;
    assert_eq!(
        (
            active["brands"].as_array().unwrap().len(),
            active["retired_count"].as_i64()
        ),
        (1, Some(1))
    );
    let (s, bad) = app.get(&w, "/api/context/manifest?lifecycle=retired").await;
    assert_eq!((s, bad["kind"].as_str()), (400, Some("bad_params")));
    let (s, bad) = app
        .get(&w, "/api/context/manifest?lifecycle=all&lifecycle=active")
        .await;
    assert_eq!(
        (s, bad["ok"].as_bool(), bad["kind"].as_str()),
        (400, Some(false), Some("invalid_request")),
        "an /api route answers in the /api envelope"
    );
    let (_, v1) = app.get(&w, "/v1/context/docs?lifecycle=active").await;
    assert_eq!(
        v1["brands"].as_array().unwrap().len(),
        2,
        "/v1 always lists every brand"
    );
    let (s, b) = send(
        &app,
        "POST",
        &w,
        "/api/context/lifecycle",
        &json!({ "brand_slug": "zeta", "action": "retire" }),
    )
    .await;
    assert_eq!((s, b["kind"].as_str()), (404, Some("unknown_brand")));
}

#[tokio::test]
async fn lifecycle_fields_are_checked_and_nothing_is_written() {
    let app = TestApp::start().await;
    let w = token(&app, "gamma", "context:read context:write timeline:read").await;
    for body in [
        json!({ "brand_slug": "a".repeat(65), "action": "retire" }),
        json!({ "brand_slug": "Alpha", "action": "retire" }),
        json!({ "brand_slug": "alpha", "action": "archive" }),
        json!({ "brand_slug": "alpha" }),
        json!({ "brand_slug": "alpha", "action": "retire", "note": "n".repeat(281) }),
        json!({ "brand_slug": "alpha", "action": "retire", "note": "two\nlines" }),
        json!({ "brand_slug": "alpha", "action": "retire", "reason_code": "bored" }),
        json!({ "brand_slug": "alpha", "action": "retire", "on_behalf_of": "x".repeat(255) }),
        json!({ "brand_slug": "alpha", "action": "retire", "on_behalf_of": "a\nb" }),
    ] {
        let (s, b) = send(&app, "POST", &w, "/api/context/lifecycle", &body).await;
        assert_eq!(
            (s, b["kind"].as_str()),
            (400, Some("bad_params")),
            "{body}: {b}"
        );
    }
    let (_, m) = app.get(&w, "/api/context/manifest").await;
    assert_eq!(m["retired_count"], 0);
    assert_eq!(events(&app, &w).await, 0, "nothing written");
    // The limits themselves pass.
    let ok = json!({ "brand_slug": "alpha", "action": "retire", "note": "n".repeat(280), "on_behalf_of": "o".repeat(254), "reason_code": "other" });
    assert_eq!(
        send(&app, "POST", &w, "/api/context/lifecycle", &ok)
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn reserved_kinds_are_refused_and_appends_are_attributed_to_the_credential() {
    let app = TestApp::start().await;
    let w = token(&app, "gamma", "timeline:read timeline:write").await;
    for kind in [
        "knowledge.note",
        "structural.brand_retired",
        "structural.brand_restored",
        "corroboration",
        "rumour",
    ] {
        let (s, b) = send(
            &app,
            "POST",
            &w,
            "/v1/timeline/event",
            &json!({ "brand": "alpha", "kind": kind, "note": "x" }),
        )
        .await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (400, Some("validation_error")),
            "{kind}"
        );
    }
    assert_eq!(events(&app, &w).await, 0, "nothing written");
    let (s, b) = send(&app, "POST", &w, "/v1/timeline/event", &json!({ "brand": "alpha", "kind": "comment", "note": "Retail media test starts", "actor": "ceo@example.com", "changed_by": "ceo@example.com" })).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (
            service_actor(&b["event"]["actor"]),
            b["event"]["surface"].as_str()
        ),
        (true, Some("api"))
    );
    let r = token(&app, "gamma", "timeline:read").await;
    let (s, _) = send(
        &app,
        "POST",
        &r,
        "/v1/timeline/event",
        &json!({ "brand": "alpha", "kind": "comment", "note": "x" }),
    )
    .await;
    assert_eq!(s, 403, "appends need timeline:write");
    for bad in [
        json!({ "brand": "alpha", "kind": "stake", "category": "stockout", "starts_on": "2026-01-01" }),
        json!({ "brand": "alpha", "kind": "stake", "category": "weather", "starts_on": "2026-01-01", "interpretation": "x" }),
        json!({ "brand": "alpha", "kind": "stake", "category": "stockout", "starts_on": "2026-02-01", "ends_on": "2026-01-01", "interpretation": "x" }),
        json!({ "brand": "alpha", "kind": "comment" }),
        json!({ "brand": "zeta", "kind": "comment", "note": "x" }),
    ] {
        let (s, _) = send(&app, "POST", &w, "/v1/timeline/event", &bad).await;
        assert!(s == 400 || s == 404, "{bad}: {s}");
    }
    assert_eq!(events(&app, &w).await, 1);
}

/// The hand-made set the filter test checks against.
async fn filter_fixture(app: &TestApp, w: &str) -> Vec<i64> {
    let today = chrono::Utc::now().date_naive();
    let future = (today + chrono::Duration::days(40)).to_string();
    let bodies = [
        json!({ "brand": "alpha", "kind": "stake", "category": "stockout", "starts_on": "2026-01-05", "ends_on": "2026-01-20", "interpretation": "Supply-limited", "affects": ["sales", "units"], "tags": ["q1"] }),
        json!({ "brand": "alpha", "kind": "stake", "category": "price_test", "starts_on": "2026-02-01", "ends_on": "2026-02-28", "interpretation": "Price up 10%", "affects": ["price"], "tags": ["q1", "pricing"] }),
        json!({ "brand": "beta-co", "kind": "stake", "category": "promotional_window", "starts_on": "2026-01-15", "interpretation": "Open-ended deal", "affects": ["units"] }),
        json!({ "brand": "beta-co", "kind": "stake", "category": "launch", "starts_on": future, "interpretation": "Launch ahead", "tags": ["launch"] }),
        json!({ "brand": "alpha", "kind": "comment", "note": "Checked with ops", "occurred_on": "2026-01-10", "tags": ["q1"] }),
        json!({ "brand": "beta-co", "kind": "action_outcome", "note": "Raised bids", "outcome": "worked", "occurred_on": "2026-03-01" }),
    ];
    let mut ids = Vec::new();
    for b in bodies {
        let (s, r) = send(app, "POST", w, "/v1/timeline/event", &b).await;
        assert_eq!(s, 200, "{r}");
        ids.push(r["event"]["id"].as_i64().unwrap());
    }
    ids
}

#[tokio::test]
async fn timeline_filters_alone_and_combined_and_paging() {
    let app = TestApp::start().await;
    let w = token(&app, "gamma", "timeline:read timeline:write").await;
    let ids = filter_fixture(&app, &w).await;
    // Corroborate the price test: it is then `corroborated`; the others stay `proposed` for
    // 30 days from today (stakes about past windows are open to corroboration first).
    let (s, c) = send(
        &app,
        "POST",
        &w,
        &format!("/v1/timeline/event/{}/corroborate", ids[1]),
        &json!({ "note": "Confirmed in the pricing log" }),
    )
    .await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(
        (
            c["stake"]["status"].as_str(),
            c["event"]["kind"].as_str(),
            c["event"]["parent_id"].as_i64()
        ),
        (Some("corroborated"), Some("corroboration"), Some(ids[1]))
    );
    let corro = c["event"]["id"].as_i64().unwrap();
    let (s, _) = send(
        &app,
        "POST",
        &w,
        &format!("/v1/timeline/event/{}/corroborate", ids[4]),
        &json!({}),
    )
    .await;
    assert_eq!(s, 400, "only stakes are corroborated");
    assert_eq!(
        send(
            &app,
            "POST",
            &w,
            "/v1/timeline/event/99999/corroborate",
            &json!({})
        )
        .await
        .0,
        404
    );

    let pick = |i: &[usize]| -> Vec<i64> { i.iter().map(|&k| ids[k]).collect() };
    let cases: Vec<(&str, Vec<i64>)> = vec![
        ("brand=alpha", [vec![corro], pick(&[1, 4, 0])].concat()),
        (
            "family=native",
            [pick(&[3]), vec![corro], pick(&[5, 1, 2, 4, 0])].concat(),
        ),
        ("family=ads_change", vec![]),
        ("kind=stake", pick(&[3, 1, 2, 0])),
        ("kind=comment", pick(&[4])),
        (
            "start_date=2026-01-10&end_date=2026-02-01",
            pick(&[1, 2, 4]),
        ),
        ("category=stockout", pick(&[0])),
        ("source=api&kind=action_outcome", pick(&[5])),
        ("status=corroborated", pick(&[1])),
        ("status=closed", vec![]),
        ("status=proposed", pick(&[3, 2, 0])),
        ("affects=units", pick(&[2, 0])),
        ("tag=q1", pick(&[1, 4, 0])),
        (
            "overlaps_start=2026-01-18&overlaps_end=2026-01-25",
            pick(&[2, 0]),
        ),
        (
            "overlaps_start=2026-06-01&overlaps_end=2026-06-30",
            pick(&[2]),
        ),
        ("future=true", pick(&[3])),
        ("brand=alpha&kind=stake&tag=q1", pick(&[1, 0])),
        ("brand=beta-co&affects=units&status=proposed", pick(&[2])),
        (
            "kind=stake&start_date=2026-01-01&end_date=2026-01-31&affects=sales",
            pick(&[0]),
        ),
    ];
    for (q, want) in cases {
        let (s, b) = app.get(&w, &format!("/v1/timeline?{q}&limit=500")).await;
        assert_eq!(s, 200, "{q}: {b}");
        let got: Vec<i64> = b["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_i64().unwrap())
            .collect();
        assert_eq!(got, want, "{q}");
    }
    // Paging returns each event once, whatever the page size.
    for size in [1, 2, 3] {
        let mut seen = Vec::new();
        let mut cursor = String::new();
        loop {
            let (_, b) = app
                .get(&w, &format!("/v1/timeline?limit={size}{cursor}"))
                .await;
            seen.extend(
                b["events"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["id"].as_i64().unwrap()),
            );
            match b["next_cursor"].as_str() {
                Some(c) => cursor = format!("&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(
            seen,
            [pick(&[3]), vec![corro], pick(&[5, 1, 2, 4, 0])].concat(),
            "page size {size}"
        );
    }
    let (s, b) = app.get(&w, "/v1/timeline?limit=1&cursor=forged.AAAA").await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (400, Some("validation_error"))
    );
    assert_eq!(app.get(&w, "/v1/timeline?colour=red").await.0, 400);
}

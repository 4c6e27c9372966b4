//! `/api/app-state/forecasting/*`: versioned documents, atomic batches, validation and
//! limits, authorization, the change log, and many writers racing on the same keys.

use serde_json::{Value, json};

use crate::common::TestApp;

const BASE: &str = "/api/app-state/forecasting";

fn month_key(m: u32) -> String {
    format!("fb:override:src:acme:1:2026-{m:02}-01")
}

async fn post(app: &TestApp, token: &str, path: &str, body: &Value) -> (u16, Value) {
    let res = app
        .http
        .post(app.url(&format!("{BASE}{path}")))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn batch(app: &TestApp, token: &str, writes: Value) -> (u16, Value) {
    post(app, token, "/batch", &json!({ "writes": writes })).await
}

async fn writer(app: &TestApp) -> String {
    let c = app.credential("acme", Some("corrections:write")).await;
    app.token(&c).await
}

#[tokio::test]
async fn documents_version_merge_and_log() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    let k = month_key(3);
    let (s, b) = batch(&app, &t, json!([{ "key": k, "expected_version": 0, "doc": { "sales": { "mode": "replace", "value": 100, "sourceObserved": 80 }, "units": { "mode": "suppress" }, "status": "draft", "actor": "mallory", "version": 77 } }])).await;
    assert_eq!(
        (
            s,
            b["results"][0]["version"].as_i64(),
            b["results"][0]["changed"].as_bool()
        ),
        (200, Some(1), Some(true)),
        "{b}"
    );
    let (s, env) = app.get(&t, &format!("{BASE}/doc?key={k}")).await;
    assert_eq!(s, 200);
    assert_eq!(
        (
            env["key"].as_str(),
            env["kind"].as_str(),
            env["version"].as_i64()
        ),
        (Some(k.as_str()), Some("override"), Some(1))
    );
    assert!(crate::common::service_actor(&env["updated_by"]), "{env}");
    assert_eq!(env["doc"]["actor"], env["updated_by"]);
    assert_eq!(
        env["doc"]["version"].as_i64(),
        Some(1),
        "stamps are the service's"
    );
    assert_eq!(
        (env["doc"]["scopeId"].as_str(), env["doc"]["month"].as_str()),
        (Some("src:acme:1"), Some("2026-03-01"))
    );

    // An omitted field keeps its value; inherit clears one.
    let (s, b) = post(&app, &t, "/batch", &json!({ "writes": [{ "key": k, "expected_version": 1, "doc": { "units": { "mode": "inherit" }, "status": "final" } }], "reason": "closing March" })).await;
    assert_eq!((s, b["results"][0]["version"].as_i64()), (200, Some(2)));
    let (_, env) = app.get(&t, &format!("{BASE}/doc?key={k}")).await;
    assert_eq!(env["doc"]["sales"]["value"], 100);
    assert!(env["doc"].get("units").is_none());
    assert_eq!(env["doc"]["status"], "final");

    // A write that changes nothing writes nothing and keeps the version.
    let (s, b) = batch(
        &app,
        &t,
        json!([{ "key": k, "expected_version": 2, "doc": { "status": "final" } }]),
    )
    .await;
    assert_eq!(
        (
            s,
            b["results"][0]["version"].as_i64(),
            b["results"][0]["changed"].as_bool()
        ),
        (200, Some(2), Some(false))
    );

    let (s, log) = app
        .get(
            &t,
            &format!("{BASE}/revisions?scope_id=src:acme:1&month=2026-03-01"),
        )
        .await;
    assert_eq!(s, 200);
    let rows: Vec<(String, Value, Value, Value)> = log["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["field"].as_str().unwrap().to_owned(),
                r["before"].clone(),
                r["after"].clone(),
                r["reason"].clone(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 5, "{log}");
    assert_eq!(rows[0].0, "sales");
    assert!(
        rows.iter()
            .any(|r| r.0 == "units" && r.2.is_null() && r.3 == "closing March")
    );
    assert!(
        rows.iter()
            .any(|r| r.0 == "status" && r.1 == "draft" && r.2 == "final")
    );
    assert!(
        log["revisions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| crate::common::service_actor(&r["actor"]))
    );

    // Delete, then a delete of nothing is not_found; recreating continues the versions.
    let (s, b) = batch(
        &app,
        &t,
        json!([{ "key": k, "expected_version": 2, "doc": null }]),
    )
    .await;
    assert_eq!((s, b["results"][0]["version"].as_i64()), (200, Some(3)));
    assert_eq!(app.get(&t, &format!("{BASE}/doc?key={k}")).await.0, 404);
    let (s, b) = batch(
        &app,
        &t,
        json!([{ "key": k, "expected_version": 0, "doc": null }]),
    )
    .await;
    assert_eq!((s, b["kind"].as_str()), (404, Some("not_found")));
    let (s, b) = batch(
        &app,
        &t,
        json!([{ "key": k, "expected_version": 0, "doc": { "status": "auto" } }]),
    )
    .await;
    assert_eq!(
        (s, b["results"][0]["version"].as_i64()),
        (200, Some(4)),
        "versions never repeat"
    );
}

#[tokio::test]
async fn one_stale_key_among_999_writes_nothing() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    let (s, _) = batch(&app, &t, json!([{ "key": "fb:account:src:acme:1", "expected_version": 0, "doc": { "currency": "USD" } }])).await;
    assert_eq!(s, 200);
    let mut writes: Vec<Value> = (0..999).map(|i| json!({ "key": format!("fb:override:src:acme:1:{}-{:02}-01", 2000 + i / 12, i % 12 + 1), "expected_version": 0, "doc": { "sales": { "mode": "replace", "value": i } } })).collect();
    writes.push(json!({ "key": "fb:account:src:acme:1", "expected_version": 5, "doc": { "currency": "CAD" } }));
    let (s, b) = batch(&app, &t, Value::Array(writes)).await;
    assert_eq!((s, b["kind"].as_str()), (409, Some("conflict")), "{b}");
    assert_eq!(
        b["conflicts"],
        json!([{ "key": "fb:account:src:acme:1", "expected": 5, "actual": 1 }])
    );
    let (_, docs) = app
        .get(&t, &format!("{BASE}/docs?prefix=fb:override:src:acme:1"))
        .await;
    assert_eq!(docs["docs"].as_array().unwrap().len(), 0, "nothing written");
    let (_, env) = app
        .get(&t, &format!("{BASE}/doc?key=fb:account:src:acme:1"))
        .await;
    assert_eq!(
        (env["version"].as_i64(), env["doc"]["currency"].as_str()),
        (Some(1), Some("USD"))
    );
}

#[tokio::test]
async fn every_rule_and_limit_has_its_error() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    let k = month_key(1);
    let one = |doc: Value| json!({ "writes": [{ "key": k, "expected_version": 0, "doc": doc }] });
    let cases: Vec<(Value, u16, &str, &str)> = vec![
        (
            one(json!({ "sales": { "mode": "replace" } })),
            400,
            "bad_params",
            "mode replace needs a value",
        ),
        (
            one(json!({ "sales": { "mode": "double", "value": 1 } })),
            400,
            "bad_params",
            "sales.mode must be one of inherit, replace, suppress",
        ),
        (
            one(json!({ "dspSpend": { "mode": "suppress" } })),
            400,
            "bad_params",
            "dspSpend.mode must be one of inherit, replace",
        ),
        (
            one(json!({ "adBudget": { "mode": "replace", "value": 5, "sourceObserved": 4 } })),
            400,
            "bad_params",
            "adBudget.sourceObserved is not a field",
        ),
        (
            one(json!({ "status": "approved" })),
            400,
            "bad_params",
            "status must be auto, final or draft",
        ),
        (
            one(json!({ "month": "2026-02-01" })),
            400,
            "bad_params",
            "the key says 2026-01-01",
        ),
        (
            one(json!({ "scopeId": "src:acme:2" })),
            400,
            "bad_params",
            "the key says src:acme:1",
        ),
        (
            one(json!({ "units": { "mode": "replace", "value": "12" } })),
            400,
            "bad_params",
            "units.value must be a number",
        ),
        (
            one(json!({ "forecast": 1 })),
            400,
            "bad_params",
            "'forecast' is not a month-row field",
        ),
        (
            one(json!("text")),
            400,
            "bad_params",
            "doc must be an object",
        ),
        (
            json!({ "writes": [{ "key": "fb:override:src:acme:1:2026-01-15", "expected_version": 0, "doc": {} }] }),
            400,
            "bad_params",
            "is not a month",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": -1, "doc": {} }] }),
            400,
            "bad_params",
            "expected_version must be a whole number",
        ),
        (
            json!({ "writes": [] }),
            400,
            "bad_params",
            "writes is empty",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": 0, "doc": {} }], "reason": "two\nlines" }),
            400,
            "bad_params",
            "reason must be one line",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": 0, "doc": {} }], "reason": "x".repeat(501) }),
            400,
            "bad_params",
            "longer than 500",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": 0, "doc": {} }], "on_behalf_of": "ceo@example.com" }),
            400,
            "bad_params",
            "on_behalf_of is refused",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": 0, "doc": {} }, { "key": k, "expected_version": 0, "doc": {} }] }),
            400,
            "too_large",
            "appears more than once",
        ),
        (
            json!({ "writes": (0..1001).map(|i| json!({ "key": format!("fb:override:src:acme:1:{}-01-01", 1000 + i), "expected_version": 0, "doc": {} })).collect::<Vec<_>>() }),
            400,
            "too_large",
            "at most 1000 writes",
        ),
        (
            one(json!({ "note": "n".repeat(600 * 1024) })),
            400,
            "too_large",
            "larger than 524288 bytes",
        ),
        (
            json!({ "writes": [{ "key": "fb:override:src:other:1:2026-01-01", "expected_version": 0, "doc": {} }] }),
            403,
            "scope_not_yours",
            "database 'other'",
        ),
        (
            json!({ "writes": [{ "key": "fb:override:src:acme:99:2026-01-01", "expected_version": 0, "doc": {} }] }),
            403,
            "merchant_not_connected",
            "merchant 99",
        ),
        (
            json!({ "writes": [{ "key": "fb:plan:src:acme:1", "expected_version": 0, "doc": {} }] }),
            403,
            "insufficient_scope",
            "kind 'plan'",
        ),
        (
            json!({ "writes": [{ "key": k, "expected_version": 0, "doc": {} }, { "key": "fb:account:src:other:1", "expected_version": 0, "doc": {} }] }),
            400,
            "bad_params",
            "exactly one database",
        ),
    ];
    for (body, status, kind, words) in cases {
        let (s, b) = post(&app, &t, "/batch", &body).await;
        let shown = body.to_string().chars().take(120).collect::<String>();
        assert_eq!(
            (s, b["kind"].as_str()),
            (status, Some(kind)),
            "{shown}: {b}"
        );
        assert!(
            b["message"].as_str().unwrap().contains(words),
            "{shown}: {}",
            b["message"]
        );
    }
    // A body over 8 MB.
    let big = json!({ "writes": [{ "key": k, "expected_version": 0, "doc": { "note": "n".repeat(9 * 1024 * 1024) } }] });
    let (s, b) = post(&app, &t, "/batch", &big).await;
    assert_eq!((s, b["kind"].as_str()), (400, Some("too_large")));
    // Nothing of any of that was written.
    let (_, docs) = app
        .get(&t, &format!("{BASE}/docs?prefix=fb:override:src:acme:1"))
        .await;
    assert_eq!(docs["docs"], json!([]));
    // Reads check the same things.
    assert_eq!(
        app.get(&t, &format!("{BASE}/doc?key=fb:account:src:other:1"))
            .await
            .1["kind"],
        "scope_not_yours"
    );
    assert_eq!(
        app.get(&t, &format!("{BASE}/docs?prefix=fb:plan:src:acme:1"))
            .await
            .1["kind"],
        "insufficient_scope"
    );
    assert_eq!(
        app.get(
            &t,
            &format!("{BASE}/docs?prefix=fb:override:src:acme:1&limit=501")
        )
        .await
        .1["kind"],
        "bad_params"
    );
    assert_eq!(
        app.get(
            &t,
            &format!("{BASE}/revisions?scope_id=src:acme:1&month=2026-01")
        )
        .await
        .1["kind"],
        "bad_params"
    );
}

#[tokio::test]
async fn scopes_home_login_and_attribution() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    // A token without the scope is refused.
    let reader = app.token(&app.acme).await;
    let (s, b) = batch(
        &app,
        &reader,
        json!([{ "key": month_key(1), "expected_version": 0, "doc": {} }]),
    )
    .await;
    assert_eq!((s, b["kind"].as_str()), (403, Some("insufficient_scope")));

    let (s, b) = post(&app, &t, "/scopes", &json!({ "create": { "legacySellerId": 1, "kind": "sub_brand", "name": "Northwind Trail", "itemValues": ["Northwind Trail"], "campaignValues": [] } })).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["version"], 1);
    let scope = b["scopeId"].as_str().unwrap().to_owned();
    assert!(scope.starts_with("src:acme:1:scope:sb_"), "{scope}");
    assert_eq!(
        (
            b["definition"]["kind"].as_str(),
            b["definition"]["merchantId"].as_i64()
        ),
        (Some("sub_brand"), Some(1))
    );
    let (s, b) = post(&app, &t, "/scopes", &json!({ "create": { "legacySellerId": 1, "kind": "sub_brand", "name": "Too many", "itemValues": (0..101).map(|i| i.to_string()).collect::<Vec<_>>() } })).await;
    assert_eq!((s, b["kind"].as_str()), (400, Some("bad_params")));
    let (_, list) = app
        .get(&t, &format!("{BASE}/scopes?legacy_seller_id=1"))
        .await;
    assert_eq!(list["scopes"].as_array().unwrap().len(), 1);
    assert_eq!(list["scopes"][0]["scopeId"], scope.as_str());

    // The sub-brand's month rows live under its own scope id; the merchant prefix lists both.
    let sub_key = format!("fb:override:{scope}:2026-05-01");
    assert_eq!(batch(&app, &t, json!([{ "key": sub_key, "expected_version": 0, "doc": { "status": "draft" } }, { "key": month_key(5), "expected_version": 0, "doc": { "status": "draft" } }])).await.0, 200);
    let (_, all) = app
        .get(&t, &format!("{BASE}/docs?prefix=fb:override:src:acme:1"))
        .await;
    assert_eq!(all["docs"].as_array().unwrap().len(), 2);
    let (_, only) = app
        .get(
            &t,
            &format!("{BASE}/docs?prefix=fb:override:src:acme:1&scope_id={scope}"),
        )
        .await;
    assert_eq!(
        only["docs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["key"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [sub_key.as_str()]
    );
    let (_, page) = app
        .get(
            &t,
            &format!("{BASE}/docs?prefix=fb:override:src:acme:1&limit=1"),
        )
        .await;
    let next = page["next_after"].as_str().unwrap();
    let (_, rest) = app
        .get(
            &t,
            &format!("{BASE}/docs?prefix=fb:override:src:acme:1&limit=1&after={next}"),
        )
        .await;
    assert_eq!(rest["docs"].as_array().unwrap().len(), 1);
    assert!(rest["next_after"].is_null());

    // Another login cannot write this database's state; nothing is written.
    let other_token = {
        let c = pp_auth::create_credential(
            &app.store,
            &pp_core::TenantId::parse("acme").unwrap(),
            Some(pp_core::ScopeSet::parse("corrections:write").unwrap()),
            "analyst",
        )
        .await
        .unwrap();
        app.token(&crate::common::Client {
            client_id: c.row.client_id,
            client_secret: c.client_secret,
            credential_id: c.row.id,
        })
        .await
    };
    let (s, b) = batch(
        &app,
        &other_token,
        json!([{ "key": month_key(7), "expected_version": 0, "doc": { "status": "draft" } }]),
    )
    .await;
    assert_eq!(
        (s, b["kind"].as_str()),
        (409, Some("state_home_elsewhere")),
        "{b}"
    );
    assert_eq!(
        app.get(&t, &format!("{BASE}/doc?key={}", month_key(7)))
            .await
            .0,
        404
    );

    // Usage: every call recorded, failures not charged.
    let (charged, uncharged) =
        rusqlite::Connection::open(app.store.data_dir().join("state.sqlite"))
            .unwrap()
            .query_row(
                "SELECT SUM(charged), SUM(1 - charged) FROM api_usage WHERE tenant_id = 'acme'",
                [],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .unwrap();
    // Charged: two scope calls, the batch, four docs reads. Not charged: the scope-less
    // batch, the bad scope, the refused batch and the 404 read.
    assert_eq!((charged, uncharged), (7, 4));
}

#[tokio::test]
async fn racing_writers_lose_nothing() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    let keys: Vec<String> = (1..=3).map(month_key).collect();
    let mut tasks = Vec::new();
    for w in 0..8_i64 {
        let (http, base, t, keys) = (app.http.clone(), app.base.clone(), t.clone(), keys.clone());
        tasks.push(tokio::spawn(async move {
            let mut accepted = Vec::new();
            for round in 0..25_i64 {
                let key = &keys[((w + round) % 3) as usize];
                let res = http.get(format!("{base}{BASE}/doc?key={key}")).bearer_auth(&t).send().await.unwrap();
                let version = if res.status() == 404 { 0 } else { res.json::<Value>().await.unwrap()["version"].as_i64().unwrap() };
                let value = w * 1000 + round;
                let body = json!({ "writes": [{ "key": key, "expected_version": version, "doc": { "sales": { "mode": "replace", "value": value } } }], "reason": format!("writer {w} round {round}") });
                let res = http.post(format!("{base}{BASE}/batch")).bearer_auth(&t).json(&body).send().await.unwrap();
                match res.status().as_u16() {
                    200 => {
                        let b: Value = res.json().await.unwrap();
                        accepted.push((key.clone(), b["results"][0]["version"].as_i64().unwrap(), value));
                    }
                    409 => {}
                    other => panic!("unexpected {other}"),
                }
            }
            accepted
        }));
    }
    let mut accepted = Vec::new();
    for task in tasks {
        accepted.extend(task.await.unwrap());
    }
    assert!(accepted.len() >= 3, "some writes must win");
    assert!(
        accepted.len() < 8 * 25,
        "the writers must really race (some must lose)"
    );
    let (_, log) = app
        .get(
            &t,
            &format!("{BASE}/revisions?scope_id=src:acme:1&limit=500"),
        )
        .await;
    let log = log["revisions"].as_array().unwrap().clone();
    for key in &keys {
        let mut mine: Vec<(i64, i64)> = accepted
            .iter()
            .filter(|a| &a.0 == key)
            .map(|a| (a.1, a.2))
            .collect();
        mine.sort();
        let versions: Vec<i64> = mine.iter().map(|m| m.0).collect();
        assert_eq!(
            versions,
            (1..=mine.len() as i64).collect::<Vec<_>>(),
            "{key}: versions never skip or repeat"
        );
        let logged: Vec<(i64, i64)> = log
            .iter()
            .filter(|r| r["month"] == key.rsplit(':').next().unwrap() && r["field"] == "sales")
            .map(|r| {
                (
                    r["version"].as_i64().unwrap(),
                    r["after"]["value"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            logged, mine,
            "{key}: every accepted write is in the change log, in order"
        );
        if let Some(last) = mine.last() {
            let (_, env) = app.get(&t, &format!("{BASE}/doc?key={key}")).await;
            assert_eq!(
                (
                    env["version"].as_i64(),
                    env["doc"]["sales"]["value"].as_i64()
                ),
                (Some(last.0), Some(last.1)),
                "{key}: the last accepted write is what is stored"
            );
        }
    }
}

#[tokio::test]
async fn definition_rules_and_page_limits_have_their_errors() {
    let app = TestApp::start().await;
    let t = writer(&app).await;
    let many: Vec<String> = (0..101).map(|i| i.to_string()).collect();
    let cases = [
        (
            json!({ "legacySellerId": 1, "kind": "sub_brand", "name": "x", "itemValues": many }),
            "itemValues holds 101 values; the limit is 100",
        ),
        (
            json!({ "legacySellerId": 1, "kind": "sub_brand", "name": "x", "campaignValues": many }),
            "campaignValues holds 101 values; the limit is 100",
        ),
        (
            json!({ "legacySellerId": 1, "kind": "brand_family", "name": "x" }),
            "kind must be sub_brand or item_group",
        ),
        (
            json!({ "legacySellerId": 1, "kind": "item_group", "name": "" }),
            "name must be 1-200 characters",
        ),
        (
            json!({ "legacySellerId": 1, "kind": "item_group" }),
            "needs kind and name",
        ),
        (
            json!({ "legacySellerId": 1, "kind": "item_group", "name": "x", "itemValues": [""] }),
            "itemValues must hold non-empty strings",
        ),
        (
            json!({ "kind": "item_group", "name": "x" }),
            "must name a merchant",
        ),
    ];
    for (create, words) in cases {
        let (s, b) = post(&app, &t, "/scopes", &json!({ "create": create })).await;
        assert_eq!(
            (s, b["kind"].as_str()),
            (400, Some("bad_params")),
            "{create}: {b}"
        );
        assert!(
            b["message"].as_str().unwrap().contains(words),
            "{create}: {}",
            b["message"]
        );
    }
    let (s, b) = post(
        &app,
        &t,
        "/scopes",
        &json!({ "create": { "legacySellerId": 99, "kind": "item_group", "name": "x" } }),
    )
    .await;
    assert_eq!(
        (s, b["kind"].as_str()),
        (403, Some("merchant_not_connected"))
    );
    let (_, list) = app.get(&t, &format!("{BASE}/scopes")).await;
    assert_eq!(list["scopes"], json!([]), "nothing was created");
    for limit in ["0", "501", "ten"] {
        let (s, b) = app
            .get(
                &t,
                &format!("{BASE}/docs?prefix=fb:override:src:acme:1&limit={limit}"),
            )
            .await;
        assert_eq!(
            (s, b["message"].as_str()),
            (400, Some("limit must be a whole number from 1 to 500")),
            "{limit}"
        );
    }
    assert_eq!(
        app.get(
            &t,
            &format!("{BASE}/docs?prefix=fb:override:src:acme:1&limit=500")
        )
        .await
        .0,
        200
    );
}

//! Issue 68: Finances `2024-06-19` `listTransactions` from the world's economics — its 180-day
//! window and 48-hour lag, deferred order proceeds released after the reserve days, and for
//! every settlement that closed, its transactions adding up to the settlement's lines (less
//! its advertising invoice and reserve, which are not transactions), to the cent.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::Value;

use crate::common::{SELLER, SimApp, US, parts};

/// Every transaction of the window, paging with `nextToken`.
async fn all(app: &SimApp, t: &str, query: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = format!("/finances/2024-06-19/transactions?{query}");
    loop {
        let (s, _, b) = parts(app.sp(Method::GET, &path, t).send().await.unwrap()).await;
        assert_eq!(s, 200, "{b}");
        out.extend(
            b["payload"]["transactions"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        match b["payload"]["nextToken"].as_str() {
            Some(next) => {
                path = format!("/finances/2024-06-19/transactions?{query}&nextToken={next}")
            }
            None => return out,
        }
    }
}

fn cents(m: &Value) -> i64 {
    (m["currencyAmount"].as_f64().unwrap() * 100.0).round() as i64
}

fn related<'a>(t: &'a Value, name: &str) -> Option<&'a str> {
    t["relatedIdentifiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relatedIdentifierName"] == name)
        .and_then(|r| r["relatedIdentifierValue"].as_str())
}

#[tokio::test]
async fn transactions_come_from_the_worlds_settlements_with_their_window_lag_and_deferrals() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    // the world's today is 2026-11-22: its window reaches back 180 days
    let txs = all(
        &app,
        &t,
        &format!("postedAfter=2026-05-26T00:00:00Z&marketplaceId={US}"),
    )
    .await;
    assert!(txs.len() > 300, "{}", txs.len());
    let mut by_settlement: BTreeMap<String, i64> = BTreeMap::new();
    let mut statuses: BTreeMap<(String, String), usize> = BTreeMap::new();
    for tx in &txs {
        let posted = tx["postedDate"].as_str().unwrap();
        assert!(
            posted < "2026-11-20",
            "the last 48 hours are not listed yet: {posted}"
        );
        let parts: i64 = tx["breakdowns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| cents(&b["breakdownAmount"]))
            .sum();
        assert_eq!(parts, cents(&tx["totalAmount"]), "{tx}");
        for b in tx["breakdowns"].as_array().unwrap() {
            let leaves: i64 = b["breakdowns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| cents(&l["breakdownAmount"]))
                .sum();
            assert_eq!(leaves, cents(&b["breakdownAmount"]), "{b}");
        }
        *by_settlement
            .entry(related(tx, "SETTLEMENT_ID").unwrap().to_owned())
            .or_default() += cents(&tx["totalAmount"]);
        *statuses
            .entry((
                tx["transactionType"].as_str().unwrap().into(),
                tx["transactionStatus"].as_str().unwrap().into(),
            ))
            .or_default() += 1;
    }
    for kind in [
        ("Shipment", "DEFERRED"),
        ("Shipment", "DEFERRED_RELEASED"),
        ("Refund", "RELEASED"),
        ("ServiceFee", "RELEASED"),
    ] {
        assert!(
            statuses.contains_key(&(kind.0.into(), kind.1.into())),
            "{kind:?}: {statuses:?}"
        );
    }
    // a deferred order's proceeds mature within its reserve days
    let deferred = txs
        .iter()
        .find(|t| t["transactionStatus"] == "DEFERRED")
        .unwrap();
    let maturity = deferred["items"][0]["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["contextType"] == "DeferredContext")
        .unwrap();
    assert!(
        maturity["maturityDate"].as_str().unwrap() > "2026-11-22",
        "{deferred}"
    );
    // each closed settlement whose period the window covers: its transactions are its lines
    // but the advertising invoice and the reserves
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let mut st = world
        .prepare(
            "SELECT \"Settlement-id\", CAST(ROUND(SUM(Amount) * 100) AS INTEGER) FROM spapi_settlement
             WHERE SellerID = 1 AND \"Settlement-start-date\" >= '2026-05-26'
               AND \"Amount-type\" <> 'Cost of Advertising' AND \"Amount-description\" NOT LIKE '%Reserve%'
             GROUP BY 1",
        )
        .unwrap();
    let closed: Vec<(String, i64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(closed.len() >= 10, "{}", closed.len());
    for (sid, total) in &closed {
        assert_eq!(by_settlement.get(sid), Some(total), "settlement {sid}");
    }
    let settled = |sid: &str| -> bool {
        world
            .query_row(
                "SELECT COUNT(*) FROM spapi_settlement WHERE \"Settlement-id\" = ?1",
                [sid],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            > 0
    };
    let open = by_settlement.keys().filter(|s| !settled(s)).count();
    assert_eq!(
        open, 1,
        "the open settlement's transactions are listed before it closes"
    );
    // filters: an order's transactions; a window over 180 days is empty; postedAfter is needed
    let order = txs
        .iter()
        .find(|t| t["transactionType"] == "Refund" && t["postedDate"].as_str().unwrap() > "2026-08")
        .and_then(|t| related(t, "ORDER_ID"))
        .unwrap();
    let of_order = all(
        &app,
        &t,
        &format!("relatedIdentifierName=ORDER_ID&relatedIdentifierValue={order}"),
    )
    .await;
    assert!(
        of_order
            .iter()
            .all(|t| related(t, "ORDER_ID") == Some(order))
    );
    assert!(
        of_order.iter().any(|t| t["transactionType"] == "Shipment"),
        "{of_order:?}"
    );
    let wide = all(
        &app,
        &t,
        "postedAfter=2026-01-01T00:00:00Z&postedBefore=2026-11-01T00:00:00Z",
    )
    .await;
    assert!(wide.is_empty(), "more than 180 days apart");
    let (s, _, b) = parts(
        app.sp(Method::GET, "/finances/2024-06-19/transactions", &t)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 400, "{b}");
}

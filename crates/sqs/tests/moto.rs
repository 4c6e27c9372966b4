//! The client against a real SQS server: moto's (`PP_MOTO_SERVER`, installed by `.ci/run`;
//! the test says why it skips where it is absent).

use std::time::Duration;

use pp_sqs::moto::Moto;

#[tokio::test]
async fn sends_receives_and_deletes_against_a_real_sqs_server() {
    let Some(m) = Moto::start() else { return };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let sqs = m.client();
    let url = sqs.create_queue("sp-traffic-test").await.unwrap();
    assert_eq!(sqs.queue_url("sp-traffic-test").await.unwrap(), url);
    assert_eq!(sqs.arn(&url).await.unwrap(), Moto::arn("sp-traffic-test"));
    for i in 0..25 {
        sqs.send(&url, &format!("{{\"n\":{i}}}")).await.unwrap();
    }
    assert_eq!(sqs.depth(&url).await.unwrap(), (25, 0));
    let mut seen = Vec::new();
    while seen.len() < 25 {
        let got = sqs
            .receive(&url, 10, Duration::from_secs(1), Duration::from_secs(30))
            .await
            .unwrap();
        assert!(!got.is_empty(), "the queue ran dry after {}", seen.len());
        assert!(got.len() <= 10);
        for msg in &got {
            assert!(msg.attributes.contains_key("SentTimestamp"), "{msg:?}");
            assert_eq!(msg.attributes["ApproximateReceiveCount"], "1");
        }
        let handles: Vec<&str> = got.iter().map(|m| m.receipt_handle.as_str()).collect();
        assert_eq!(sqs.delete(&url, &handles).await.unwrap(), vec![]);
        seen.extend(got.into_iter().map(|m| m.body));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 25, "every message once");
    assert_eq!(sqs.depth(&url).await.unwrap(), (0, 0));
    // a message received and not deleted comes back once its visibility ends
    sqs.send(&url, "again").await.unwrap();
    let first = sqs
        .receive(&url, 1, Duration::from_secs(1), Duration::from_secs(1))
        .await
        .unwrap();
    assert_eq!(first.len(), 1);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let second = sqs
        .receive(&url, 1, Duration::from_secs(2), Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(second[0].body, "again");
    assert_eq!(second[0].attributes["ApproximateReceiveCount"], "2");
    let missing = sqs.queue_url("no-such-queue").await.unwrap_err();
    assert_eq!(missing.code(), Some("QueueDoesNotExist"), "{missing}");
}

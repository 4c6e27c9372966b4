//! The intelligence service answers typed values: no public method of
//! `pp_intelligence::service` returns a `serde_json::Value` (the front doors serialize the
//! typed answer once, as every other service's answers are).

#[test]
fn no_public_service_method_returns_a_json_value() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/service.rs")).unwrap();
    let mut checked = 0;
    let mut rest = text.as_str();
    while let Some(at) = rest.find("    pub ") {
        rest = &rest[at + 4..];
        let signature = &rest[..rest.find('{').unwrap_or(rest.len())];
        if !(signature.starts_with("pub fn ") || signature.starts_with("pub async fn ")) {
            continue;
        }
        checked += 1;
        let answer = signature.split_once("->").map(|(_, a)| a).unwrap_or("");
        let words: Vec<&str> = answer
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        assert!(
            !words.contains(&"Value"),
            "a public service method answers a JSON value: {}",
            signature.trim()
        );
    }
    assert!(checked >= 8, "the scan found {checked} public methods");
}

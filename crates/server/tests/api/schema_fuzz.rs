//! `/openapi.json` held to the server's real answers by schemathesis: it generates requests
//! for every documented operation from the document (valid ones and broken ones), sends them
//! to a gateway over the sandbox provider, and checks that none answers 5xx and that every
//! answer — success or failure — matches the schema the document gives it. The MCP transports
//! are left to the MCP SDK tests. The runner is `PP_SCHEMATHESIS` (`.ci/run` installs it in a
//! virtual environment and sets it); without one the test says it was skipped and why, except
//! under CI, where a missing runner is a failure.

use std::process::Command;

use crate::common::{Options, TestApp, external_tool, run_external};

#[tokio::test]
async fn every_answer_matches_the_documented_schema() {
    let runner = "schemathesis-venv/bin/schemathesis";
    let Some(runner) = external_tool("PP_SCHEMATHESIS", runner, "schemathesis is not installed")
    else {
        return;
    };
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    })
    .await;
    let c = app.credential(
        "acme",
        Some("account:read retail:read ads:read brand_analytics:read sql:query context:read context:write timeline:read timeline:write corrections:write"),
    ).await;
    let token = app.token(&c).await;
    let work = tempfile::tempdir().unwrap();
    let schema = format!("{}/openapi.json", app.base);
    let mut cmd = Command::new(runner);
    cmd.current_dir(work.path())
        .args([
            "run",
            &schema,
            "-H",
            &format!("Authorization: Bearer {token}"),
            "--checks",
            "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance",
            "--exclude-path-regex",
            "^/mcp",
            "--phases",
            "coverage,fuzzing",
            "--max-examples",
            "15",
            "--seed",
            "13",
            // one worker: CPython before 3.11.8 can fail parsing the runner's own code
            // in two threads at once ("AST constructor recursion depth mismatch")
            "--workers",
            "1",
            "--no-color",
        ]);
    let stdout = run_external(cmd, "schemathesis found answers that break the document").await;
    assert!(stdout.contains("Tested:"), "{stdout}");
}

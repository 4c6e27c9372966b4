#!/usr/bin/env bash
# Marketing Stream benchmark (issue 69): the gateway's stream consumer over the sandbox's SQS.
# Four weeks of every profile's hours (the tiny world's three sellers, seven datasets) are
# published while no consumer runs; then the consumer starts: messages a second into the
# managed warehouse (kept in the state store, deleted, the days made into the hourly tables),
# beside the same SQS server's own receive-and-delete rate over as many messages of the same
# size, in the same run; then a live day (the world moves on while the consumer runs):
# publication to kept, p50 and p99. Once with the managed warehouse on SQLite, once on
# PostgreSQL (127.0.0.1:5432; the state store is SQLite in both). The measurement is an
# ignored test of the API suite (`streams::bench_*`), built in release; it asserts no time.
# Usage: bench/streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/partner-platform/target}"
mkdir -p bench/out
cargo test --release -q -p pp-server --test api -- --ignored --test-threads 1 --nocapture \
  streams::bench_stream_consumer 2>&1 | grep -a -o 'BENCH.*' | tee bench/out/streams.txt

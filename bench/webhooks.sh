#!/usr/bin/env bash
# Webhook delivery benchmark (issue 56), one run on one machine: EVENTS events appended with
# 100 endpoints registered, delivered by the gateway's worker pool (4 workers, the default;
# 16 on PostgreSQL) to a local receiver, beside the same receiver hit directly by one client with the
# same concurrency; on the embedded store and on PostgreSQL. Figures: deliveries and events
# per second, commit-to-2xx latency (p50, p99), and the state store's cost per event (append
# time, bytes, rows). Usage: bench/webhooks.sh [events]   (PostgreSQL at $PP_TEST_POSTGRES)
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS="${1:-20}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/partner-platform/target}"
cargo build --release -q -p pp-server --example webhooks_bench
RUN="$CARGO_TARGET_DIR/release/examples/webhooks_bench"
PG_ADMIN="${PP_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
DB="pp_bench_webhooks_$$"
psql "$PG_ADMIN" -qc "CREATE DATABASE $DB"
trap 'psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT
"$RUN" "$EVENTS" 100 4
"$RUN" "$EVENTS" 100 4 "${PG_ADMIN%/*}/$DB"
psql "$PG_ADMIN" -qc "DROP DATABASE $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
"$RUN" "$EVENTS" 100 16 "${PG_ADMIN%/*}/$DB"

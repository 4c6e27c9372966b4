#!/usr/bin/env bash
# The small world's whole backfill (issue 67, item 2), before and after, in one run: the dev
# server's `synced` tenant (embedded SQLite warehouse, the demo world's three sellers and vendor
# with their advertising logins) synced from its sandbox with the sandbox's usage plans and the
# gateway's pacing off, 16 job workers and 50 ms polls, as the issue measured it. "Before" is
# the release binary of $BEFORE (default 0ec493c, the main this issue's second part started
# from: c5bd563 before stop 74's work was landed again), "after" this checkout's. Each runs in a fresh data folder; the time is from the
# gateway answering to `sync run --wait` ending (every dataset synced or unavailable), or the
# cap. Usage: bench/sync_small.sh [cap-seconds, default 2400]
set -euo pipefail
cd "$(dirname "$0")/.."
CAP="${1:-2400}"
BEFORE="${BEFORE:-0ec493c}"
. bench/lib.sh
cp "$BIN/partner-platform" "$WORK/pp-after"
git worktree add -q --detach "$WORK/before-src" "$BEFORE"
(cd "$WORK/before-src" && cargo build --release -q -p partner-platform)
cp "$BIN/partner-platform" "$WORK/pp-before"
git worktree remove --force "$WORK/before-src"

now() { date +%s.%N; }
backfill() { # name binary port: seconds until every dataset ended, and what they ended as
  local name=$1 bin=$2 port=$3 d="$WORK/$1" t
  mkdir -p "$d"
  (cd "$d" && PARTNER_LOG=warn PARTNER_UPSTREAM_PACING=false PARTNER_JOB_WORKERS=16 PARTNER_SYNC_POLL_MS=50 \
    "$bin" server --dev --listen "127.0.0.1:$port" > "$d/server.log" 2>&1 &)
  wait_up "http://127.0.0.1:$port/health" 120
  t=$(now)
  # shellcheck disable=SC1091
  . "$d/.partner-dev/dev.env"
  curl -sf -X PUT -H "Authorization: Bearer $PP_SANDBOX_CLIENT_SECRET" -H 'content-type: application/json' \
    -d '{"enabled": false}' "$PP_SANDBOX_URL/__sandbox/limits" > /dev/null
  # shellcheck disable=SC1091
  . "$d/.partner-dev/synced.env"
  (cd "$d" && "$bin" sync run --wait --timeout "$CAP" > "$d/sync.out" 2>&1) || true
  local secs states
  secs=$(echo "$(now) - $t" | bc)
  states=$("$bin" sync status --json 2>/dev/null | python3 -c '
import json, sys, collections
d = json.load(sys.stdin)["datasets"]
print(", ".join(f"{k} {v}" for k, v in sorted(collections.Counter(x["state"] for x in d).items())))' || echo "?")
  printf '| %s | %.0f s | %s |\n' "$name" "$secs" "$states"
  pkill -f -- "--listen 127.0.0.1:$port" || true
}

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); release builds; the dev server's synced tenant (SQLite), plans and pacing off, 16 workers, 50 ms polls; cap ${CAP} s"
  echo
  echo "| binary | whole backfill | datasets at the end |"
  echo "|---|---|---|"
  backfill "before ($BEFORE)" "$WORK/pp-before" 18260
  backfill "after ($(git rev-parse --short HEAD))" "$WORK/pp-after" 18270
} | tee "$OUT/sync-small-latest.md"

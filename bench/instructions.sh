#!/usr/bin/env bash
# Instructions per request: the user-space work each server does for one request, counted by
# valgrind's callgrind. Requests per second on a shared two-core VM move ±15% between runs;
# these counts repeat within about 1%, so they show changes of a few percent that wrk cannot.
# They leave out the kernel (sending, waking, switching) and the load generator, which
# requests per second include.
# Each server runs under callgrind with counting off; after a warm-up, counting is on only
# while N requests of one kind go one after another over one keep-alive connection
# (bench/drive.py, which checks every answer); the server's background work over the same
# time with no requests is taken off. Targets: hello-hyper, GET /v1/me, one-row
# POST /api/query, and the same query as a legacy_query tool call (2026-07-28, session era);
# and two floors: hyper sending the gateway's own two answers, and the same answers through
# an axum router served as the gateway serves it (the stack alone).
# Usage: bench/instructions.sh [requests]   (needs valgrind: apt-get install valgrind)
# With BEFORE=<path to another partner-platform binary>, that build is counted too.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
. bench/lib.sh

# under_callgrind NAME CMD…: starts CMD under callgrind, counting off; sets CG_PID and CG_OUT.
under_callgrind() {
  local name=$1; shift
  CG_OUT="$WORK/callgrind-$name"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$CG_OUT" "$@" > "$WORK/$name.log" 2>&1 &
  CG_PID=$!
}

# dump_total: dumps the counters of the server CG_PID and prints the instructions counted
# since they were last zeroed.
dump_total() {
  local before after
  before=$(ls "$CG_OUT".* 2>/dev/null | wc -l)
  callgrind_control --dump "$CG_PID" > /dev/null 2>&1
  for _ in $(seq 100); do
    after=$(ls "$CG_OUT".* 2>/dev/null | wc -l)
    [ "$after" -gt "$before" ] && break
    sleep 0.1
  done
  # the newest dump holds what ran since the counters were zeroed
  awk '/^totals:/ { printf "%d", $2 }' "$(ls -t "$CG_OUT".* | head -1)"
}

# count KIND BASE_URL TOKEN [SID]: instructions per request of KIND on the server CG_PID.
# A server's own background work (the gateway's epoch watch every 100 ms, its job poller) runs
# while the requests do, and under valgrind its share depends on how long they take: it is
# counted again over the same time with no requests, and taken off.
count() {
  local kind=$1 base=$2 token=$3 sid=${4:-} started took busy idle
  python3 bench/drive.py "$kind" 300 "$base" "$token" "$sid" || exit 1
  callgrind_control --zero "$CG_PID" > /dev/null 2>&1
  callgrind_control --instr=on "$CG_PID" > /dev/null 2>&1
  started=$(date +%s.%N)
  python3 bench/drive.py "$kind" "$N" "$base" "$token" "$sid" || exit 1
  took=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  callgrind_control --instr=off "$CG_PID" > /dev/null 2>&1
  busy=$(dump_total)
  callgrind_control --zero "$CG_PID" > /dev/null 2>&1
  callgrind_control --instr=on "$CG_PID" > /dev/null 2>&1
  sleep "$took"
  callgrind_control --instr=off "$CG_PID" > /dev/null 2>&1
  idle=$(dump_total)
  awk -v b="$busy" -v i="$idle" -v n="$N" 'BEGIN { printf "%d", (b - i) / n }'
}

# gateway NAME BINARY PORT: one dev server's rows (its four targets); its sandbox takes PORT+1.
gateway() {
  local name=$1 bin=$2 port=$3 base token sid
  # the dev world is made natively first (under valgrind that would take minutes)
  PARTNER_LOG=warn "$bin" server --dev --data-dir "$WORK/$name" --listen "127.0.0.1:$port" > "$WORK/$name-setup.log" 2>&1 &
  wait_up "http://127.0.0.1:$port/health" 120
  # and its answers kept for the floors (the first gateway's)
  if [ ! -e "$WORK/me.http" ]; then
    (. "$WORK/$name/dev.env"; answers "$PP_BASE_URL" "$(mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")")
  fi
  kill $! && wait $! 2>/dev/null || true
  PARTNER_LOG=warn under_callgrind "$name" "$bin" server --dev --data-dir "$WORK/$name" --listen "127.0.0.1:$port"
  wait_up "http://127.0.0.1:$port/health" 300
  base=$(. "$WORK/$name/dev.env"; echo "$PP_BASE_URL")
  token=$(. "$WORK/$name/dev.env"; mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")
  sid=$(python3 bench/drive.py init "$base" "$token")
  local me query tool session
  me=$(count me "$base" "$token")
  query=$(count query "$base" "$token")
  tool=$(count tool "$base" "$token")
  session=$(count session "$base" "$token" "$sid")
  kill "$CG_PID"
  wait "$CG_PID" 2>/dev/null || true
  awk -v n="$name" -v h="$HELLO" -v me="$me" -v q="$query" -v t="$tool" -v s="$session" 'BEGIN {
    printf "| `GET /v1/me` (%s) | %d | %.1f× |\n", n, me, me / h
    printf "| `POST /api/query` (%s) | %d | %.1f× |\n", n, q, q / h
    printf "| `tools/call legacy_query`, 2026-07-28 (%s) | %d | %.2f× the query |\n", n, t, t / q
    printf "| `tools/call legacy_query`, session era (%s) | %d | %.2f× the query |\n", n, s, s / q
  }'
}

# hello NAME KIND PORT [ANSWER [--axum]]: instructions per request of hello-hyper (KIND:
# hello, me or query), bare or sending ANSWER.
hello() {
  local name=$1 kind=$2 port=$3 path=/ n; shift 3
  [ "$kind" = hello ] || path=/v1/me
  under_callgrind "$name" "$BIN/hello-hyper" "127.0.0.1:$port" "$@"
  wait_up "http://127.0.0.1:$port$path" 60
  n=$(count "$kind" "http://127.0.0.1:$port" -)
  kill "$CG_PID"
  wait "$CG_PID" 2>/dev/null || true
  echo "$n"
}

# floors: hyper sending the gateway's own answers, and the same through an axum router served
# as the gateway serves it (the stack alone, none of the gateway's work)
floors() {
  local me query axum_me axum_query
  me=$(hello hyper-me me 18101 "$WORK/me.http")
  query=$(hello hyper-query query 18102 "$WORK/query.http")
  axum_me=$(hello axum-me me 18103 "$WORK/me.http" --axum)
  axum_query=$(hello axum-query query 18104 "$WORK/query.http" --axum)
  awk -v h="$HELLO" -v m="$me" -v q="$query" -v am="$axum_me" -v aq="$axum_query" 'BEGIN {
    printf "| hyper sending `/v1/me`'"'"'s answer | %d | %.1f× |\n", m, m / h
    printf "| hyper sending `/api/query`'"'"'s answer | %d | %.1f× |\n", q, q / h
    printf "| axum sending `/v1/me`'"'"'s answer | %d | %.1f× |\n", am, am / h
    printf "| axum sending `/api/query`'"'"'s answer | %d | %.1f× |\n", aq, aq / h
  }'
}

HELLO=$(hello hello hello 18096)

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr), $(valgrind --version); $N requests per target after 300 to warm up"
  echo
  echo "| target | instructions per request | ratio |"
  echo "|---|---|---|"
  echo "| hello-hyper (reference) | $HELLO | 1 |"
  gateway this "$BIN/partner-platform" 18097
  floors
  if [ -n "${BEFORE:-}" ]; then gateway before "$BEFORE" 18099; fi
} | tee "$OUT/instructions.md"

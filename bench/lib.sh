# Shared by the bench scripts: build the release binaries, a scratch folder that is removed
# (with every server started in the background) on exit, and one wrk run as a table row.
# Source it from the repository root: `. bench/lib.sh`.

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/partner-platform/target}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
cargo build --release -q -p partner-platform -p hello-hyper
BIN="$CARGO_TARGET_DIR/release"
OUT=bench/out
mkdir -p "$OUT"
WORK=$(mktemp -d)
cleanup() { for p in $(jobs -p); do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# Load generators drive one credential far past its per-credential request rate (a guard for
# real clients, docs/security.md): every server a bench starts reads this config, which
# lifts it, unless the caller gave its own.
if [ -z "${PARTNER_CONFIG:-}" ]; then
  printf '[limits]\ncredential_burst = 1000000000\ncredential_per_minute = 1000000000\n' > "$WORK/bench.toml"
  export PARTNER_CONFIG="$WORK/bench.toml"
fi

# Waits until GET $1 answers (at most $2 seconds, default 20).
wait_up() {
  for _ in $(seq $(( ${2:-20} * 10 ))); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done
  echo "not up: $1" >&2; exit 1
}

# The access token of a client id and secret at a base URL.
mint() { curl -sf -u "$2:$3" -d grant_type=client_credentials "$1/oauth/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/'; }

# The one-row query the benches send (a point read of the warehouse's seller table), and its
# POST /api/query body.
QUERY_SQL='SELECT ID, MarketplaceSellerID, Marketplace FROM seller WHERE ID = ?'
QUERY_BODY="{\"sql\": \"$QUERY_SQL\", \"params\": [1]}"

# query_lua FILE: a wrk script that posts QUERY_BODY as JSON.
query_lua() {
  cat > "$1" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '$QUERY_BODY'
LUA
}

# answers BASE TOKEN: the gateway's own answers to GET /v1/me and the one-row POST
# /api/query, as curl -si prints them, into $WORK/me.http and $WORK/query.http (what
# `hello-hyper ADDR ANSWER` serves, to show what sending those bytes alone costs).
answers() {
  curl -sfi "$1/v1/me" -H "Authorization: Bearer $2" > "$WORK/me.http"
  curl -sfi "$1/api/query" -H "Authorization: Bearer $2" -H "content-type: application/json" \
    -d "$QUERY_BODY" > "$WORK/query.http"
}

# wrk_run NAME URL [wrk args…]: one wrk --latency run, its output in $OUT/NAME.txt.
wrk_run() {
  local name=$1 url=$2; shift 2
  wrk -t$(( CONN < 2 ? 1 : 2 )) -c"$CONN" -d"${DUR}s" --latency "$@" "$url" > "$OUT/$name.txt"
}

# wrk_cells NAME: the run's requests/s, p50, p99 and non-2xx answers, as table cells.
wrk_cells() {
  awk '/Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } /Non-2xx/ { bad = $5 }
    END { printf "%s | %s | %s | %d", rps, p50, p99, bad }' "$OUT/$1.txt"
}

# wrk_row NAME URL [wrk args…]: runs wrk --latency and prints a Markdown table row.
wrk_row() {
  wrk_run "$@"
  printf '| %s | %s |\n' "$1" "$(wrk_cells "$1")"
}

# The CPU time (user + system) process $1 has used, in clock ticks.
proc_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# The context switches (voluntary and not) made by the threads process $1 has now (a thread
# that has ended, such as an idle blocking-pool thread, takes its count with it).
proc_switches() { cat "/proc/$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s + 0}'; }

# The machine's idle and total CPU time so far, in clock ticks.
machine_ticks() { awk '/^cpu / {print $5, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }

# The header of a table of cpu_row rows.
cpu_header() {
  echo "| target | requests/s | p50 | p99 | non-2xx | server µs/request | wrk µs/request | server switches/request | idle | × the first row by CPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
}

# cpu_row NAME PID URL [wrk args…]: as wrk_row, plus the CPU the server (process PID) and wrk
# each spent per request (user + system, µs), the server's context switches per request and
# the share of the machine left idle. With the cores busy, requests/s is the cores divided by
# the two CPU figures together, so these say where a ratio against the reference comes from,
# and move less from run to run than it. The last column is that ratio from the CPU figures
# alone: the first row's server and wrk µs together over this row's, the requests/s ratio the
# row would have on cores nothing else takes (the idle column shows how far they were not).
cpu_row() {
  local name=$1 pid=$2 url=$3; shift 3
  local s0 s1 x0 x1 idle0 idle1 all0 all1 wrk_cpu
  s0=$(proc_ticks "$pid")
  x0=$(proc_switches "$pid")
  read -r idle0 all0 < <(machine_ticks)
  wrk_cpu=$( { TIMEFORMAT='%U %S'; time wrk_run "$name" "$url" "$@"; } 2>&1 )
  s1=$(proc_ticks "$pid")
  x1=$(proc_switches "$pid")
  read -r idle1 all1 < <(machine_ticks)
  local row
  row=$(awk -v cells="$(wrk_cells "$name")" -v name="$name" -v s="$((s1 - s0))" -v hz="$(getconf CLK_TCK)" \
    -v x="$((x1 - x0))" -v w="$wrk_cpu" -v idle="$((idle1 - idle0))" -v all="$((all1 - all0))" \
    -v first="${CPU_FIRST:-}" '
    /requests in/ { n = $1 }
    END {
      split(w, t, " ")
      sum = s / hz * 1e6 / n + (t[1] + t[2]) * 1e6 / n
      if (first == "") first = sum
      printf "| %s | %s | %.1f | %.1f | %.2f | %.0f%% | %.2f | %f\n", name, cells,
        s / hz * 1e6 / n, (t[1] + t[2]) * 1e6 / n, x / n, 100 * idle / all, first / sum, first
    }' "$OUT/$name.txt")
  # the first row's sum is kept for the rows after it (the rows run in one shell)
  CPU_FIRST=${row##*| }
  echo "${row% *}"
}

# start_sim PORT [sim args…]: generates the small world and starts the sandbox over it on PORT.
# Sets SIM (its URL) and C (its credentials file, read with `field`).
start_sim() {
  local port=$1; shift
  "$BIN/partner-platform" world generate --scale small --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
  PARTNER_LOG=warn "$BIN/partner-platform" sim --world "$WORK/world" --data-dir "$WORK/sim" \
    --listen "127.0.0.1:$port" "$@" > "$WORK/sim.log" 2>&1 &
  SIM="http://127.0.0.1:$port"
  C="$WORK/sim/sandbox-credentials.json"
  for _ in $(seq 600); do grep -q "Try it" "$WORK/sim.log" 2>/dev/null && [ -s "$C" ] && break; sleep 0.1; done
  [ -s "$C" ] || { echo "the sandbox did not start:" >&2; cat "$WORK/sim.log" >&2; exit 1; }
}

# field EXPR: a value of the sandbox's credentials file (`d` is the parsed file).
field() { python3 -c "import json,sys;d=json.load(open('$C'));print(eval(sys.argv[1]))" "$1"; }

# start_gateway PORT KIND [credential create args…]: a real (non-dev) gateway on PORT over the
# sandbox: tenant `bench` on the world, a credential, and the first merchant's KIND (`seller` or
# `ads`) grant connected with the admin commands. Environment set on the call (such as
# PARTNER_UPSTREAM_PACING=false) reaches the server; PP=<binary> runs another build (an earlier
# one, for a before/after table) over its own state. Sets GW (its URL) and TOKEN.
start_gateway() {
  local port=$1 kind=$2; shift 2
  local pp="${PP:-$BIN/partner-platform}" cred cid secret grant merchant
  export PARTNER_SECRET_KEY; PARTNER_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
  "$pp" admin --data-dir "$WORK/gw-$port" tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
  cred=$("$pp" admin --data-dir "$WORK/gw-$port" credential create --tenant bench --label bench --json "$@")
  cid=$(echo "$cred" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
  secret=$(echo "$cred" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_secret"])')
  if [ "$kind" = ads ]; then grant="d['advertising'][0]"; merchant=$(field "$grant['account']")
  else grant="d['merchants'][0]"; merchant=$(field "$grant['merchant']"); fi
  PARTNER_REFRESH_TOKEN=$(field "$grant['refresh_token']") "$pp" admin --data-dir "$WORK/gw-$port" \
    connection add --tenant bench --merchant "$merchant" --kind "$kind" > /dev/null
  GW="http://127.0.0.1:$port"
  PARTNER_LOG=warn PARTNER_LWA_CLIENT_ID=$(field "d['client_id']") PARTNER_LWA_CLIENT_SECRET=$(field "d['client_secret']") \
    PARTNER_LWA_TOKEN_URL="$SIM/auth/o2/token" PARTNER_SPAPI_URL="$SIM" PARTNER_ADS_URL="$SIM" \
    "$pp" server --data-dir "$WORK/gw-$port" --listen "127.0.0.1:$port" --public-url "$GW" > "$WORK/gw-$port.log" 2>&1 &
  wait_up "$GW/health"
  TOKEN=$(mint "$GW" "$cid" "$secret")
}

#!/usr/bin/env bash
# Plans on (issue 67): how long after the gateway starts until each merchant's last 30 days of
# sales and traffic are in the warehouse (what /v1/retail/sales, the intelligence catalog and
# forecasting read), on the dev server's `synced` tenant, which starts its sync by itself: the
# sandbox's usage plans on, the gateway's pacing and workers as shipped. Several binaries run
# side by side in one run, each in a fresh data folder (plans are per merchant of each sandbox,
# so they do not share a plan). Usage:
#   bench/sync_recent.sh NAME=BINARY [NAME=BINARY ...]   (CAP=seconds, default 3600)
set -euo pipefail
cd "$(dirname "$0")/.."
CAP="${CAP:-3600}"
OUT=bench/out
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'pkill -f -- "--listen 127.0.0.1:1829" || true; rm -rf "$WORK"' EXIT

run() { # name binary port: one row of the table; the server is stopped after it
  local name=$1 bin=$2 port=$3 d="$WORK/$1" server
  mkdir -p "$d"
  (cd "$d" && PARTNER_LOG=warn exec "$bin" server --dev --listen "127.0.0.1:$port") > "$d/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1200); do curl -sf "http://127.0.0.1:$port/health" > /dev/null && break; sleep 0.1; done
  python3 - "$name" "http://127.0.0.1:$port" "$d/.partner-dev/synced-credential.json" "$CAP" <<'PY'
import base64, datetime, json, sys, time, urllib.request
name, base, cred_file, cap = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
began = time.monotonic()
cred = json.load(open(cred_file))
basic = base64.b64encode(f"{cred['client_id']}:{cred['client_secret']}".encode()).decode()
tok = json.load(urllib.request.urlopen(urllib.request.Request(
    f"{base}/oauth/token", data=b"grant_type=client_credentials",
    headers={"authorization": f"Basic {basic}"})))["access_token"]
seen = {}  # merchant -> seconds until its last 30 days were held
merchants = set()
while time.monotonic() - began < cap:
    rows = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/warehouse/sync", headers={"authorization": f"Bearer {tok}"})))["datasets"]
    for r in rows:
        if r["dataset"] != "sales_and_traffic":
            continue
        m = r["merchant"]["sellerId"]
        merchants.add(m)
        if m in seen or not r.get("dataThrough") or not r.get("coveredFrom"):
            continue
        through = datetime.date.fromisoformat(r["dataThrough"])
        if datetime.date.fromisoformat(r["coveredFrom"]) <= through - datetime.timedelta(days=29):
            seen[m] = time.monotonic() - began
    if merchants and len(seen) == len(merchants):
        break
    time.sleep(5)
each = ", ".join(f"{m} {seen[m]:.0f} s" if m in seen else f"{m} not yet" for m in sorted(merchants))
last = f"{max(seen.values()):.0f} s" if merchants and len(seen) == len(merchants) else f"over {cap:.0f} s"
print(f"| {name} | {last} | {each} |", flush=True)
PY
  kill "$server" 2>/dev/null || true
}

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); the dev server's synced tenant, the sandbox's plans on, pacing and workers as shipped; cap ${CAP} s"
  echo
  echo "| binary | every merchant's last 30 days held | each merchant |"
  echo "|---|---|---|"
  port=18290
  for arg in "$@"; do
    run "${arg%%=*}" "${arg#*=}" "$port" &
    port=$((port + 1))
  done
  wait
} | tee "$OUT/sync-recent-latest.md"

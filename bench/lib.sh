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

# Waits until GET $1 answers (at most $2 seconds, default 20).
wait_up() {
  for _ in $(seq $(( ${2:-20} * 10 ))); do curl -sf "$1" >/dev/null && return 0; sleep 0.1; done
  echo "not up: $1" >&2; exit 1
}

# The access token of a client id and secret at a base URL.
mint() { curl -sf -u "$2:$3" -d grant_type=client_credentials "$1/oauth/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/'; }

# wrk_row NAME URL [wrk args…]: runs wrk --latency and prints a Markdown table row.
wrk_row() {
  local name=$1 url=$2; shift 2
  wrk -t$(( CONN < 2 ? 1 : 2 )) -c"$CONN" -d"${DUR}s" --latency "$@" "$url" > "$OUT/$name.txt"
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$(awk '/Requests\/sec/ {print $2}' "$OUT/$name.txt")" \
    "$(awk '$1=="50%" {print $2}' "$OUT/$name.txt")" "$(awk '$1=="99%" {print $2}' "$OUT/$name.txt")" \
    "$(awk '/Non-2xx/ {print $5}' "$OUT/$name.txt" | grep . || echo 0)"
}

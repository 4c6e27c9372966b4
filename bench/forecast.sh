#!/usr/bin/env bash
# Forecast benchmark: the monthly forecaster (pp-forecast-models) on competition data, beside
# statsforecast's Theta, AutoETS and their mean run on the same files, horizons and cores in
# the same run. Prints sMAPE, MASE, 95% coverage and MSIS per method, and the wall time of
# every series tested for a season, backtested, fitted and forecast. The harness takes any
# long-format file (series_id, period_index, value, split; other columns ignored) and a
# horizon. Usage: bench/forecast.sh [FILE HORIZON]...   (default: M1 monthly 18, Tourism 24)
# The reference runs in a virtual environment beside the build cache; Python stays out of the
# product.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="$(cd .. && pwd)/shared/benchmarks/forecast"
CACHE="$HOME/.cache/partner-platform"
VENV="$CACHE/forecast-bench-venv"
if [ $# -eq 0 ]; then set -- "$DATA/m1_monthly.csv" 18 "$DATA/tourism_monthly.csv" 24; fi
if ! "$VENV/bin/python" -c "import statsforecast" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check statsforecast
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target-bench}"
cargo build --quiet --release -p pp-forecast-models --example benchmark
BIN="$CARGO_TARGET_DIR/release/examples/benchmark"
while [ $# -ge 2 ]; do
  echo "== pp-forecast-models"
  "$BIN" "$1" "$2" 2
  echo
  echo "== statsforecast $("$VENV/bin/python" -c 'import statsforecast; print(statsforecast.__version__)')"
  "$VENV/bin/python" bench/forecast_reference.py "$1" "$2" 2 2>/dev/null
  echo
  shift 2
done

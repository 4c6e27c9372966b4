"""Reference forecasters for bench/forecast.sh: statsforecast's Theta, AutoETS and their mean,
scored like the Rust harness (sMAPE, MASE over the in-sample seasonal-naive error, 95%
coverage, MSIS). Reads the same long-format file (columns by name, others ignored) and
horizon. Times AutoETS and Theta over all series after a warm-up that compiles numba's code.

    python forecast_reference.py FILE HORIZON [THREADS]
"""
import sys
import time

import numpy as np
import pandas as pd
from statsforecast import StatsForecast
from statsforecast.models import AutoETS, Theta


def scale(train, m=12):
    lag = m if len(train) > m else 1
    return np.mean(np.abs(train[lag:] - train[:-lag]))


def smape(a, f):
    d = np.abs(a) + np.abs(f)
    return np.mean(np.where(d == 0, 0.0, 200.0 * np.abs(a - f) / np.where(d == 0, 1, d)))


def main():
    path, horizon = sys.argv[1], int(sys.argv[2])
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    raw = pd.read_csv(path)
    raw = raw.sort_values(["series_id", "period_index"])
    train = raw[raw["split"] == "train"]
    test = raw[raw["split"] == "test"].groupby("series_id").head(horizon)
    df = pd.DataFrame({
        "unique_id": train["series_id"].values,
        "ds": train["period_index"].astype(int).values,
        "y": train["value"].astype(float).values,
    })
    # warm-up: compile numba's code before timing
    warm = pd.DataFrame({"unique_id": "w", "ds": np.arange(1, 49), "y": 100 + np.arange(48.0) % 12})
    StatsForecast(models=[AutoETS(season_length=12), Theta(season_length=12)], freq=1).forecast(df=warm, h=2, level=[95])

    timings, out = {}, {}
    for name, model in [("AutoETS", AutoETS(season_length=12)), ("Theta", Theta(season_length=12))]:
        sf = StatsForecast(models=[model], freq=1, n_jobs=threads)
        t0 = time.perf_counter()
        fc = sf.forecast(df=df, h=horizon, level=[95])
        timings[name] = time.perf_counter() - t0
        out[name] = fc.reset_index() if "unique_id" not in fc.columns else fc

    rows = {k: [0.0, 0.0, 0.0, 0.0] for k in ["AutoETS", "Theta", "mean of Theta and AutoETS"]}
    n = 0
    for sid, g in train.groupby("series_id"):
        y = g["value"].to_numpy(float)
        a = test[test["series_id"] == sid]["value"].to_numpy(float)
        s = scale(y)
        preds = {}
        for name in ["AutoETS", "Theta"]:
            f = out[name][out[name]["unique_id"] == sid]
            preds[name] = (f[name].to_numpy(), f[f"{name}-lo-95"].to_numpy(), f[f"{name}-hi-95"].to_numpy())
        preds["mean of Theta and AutoETS"] = tuple((preds["AutoETS"][i] + preds["Theta"][i]) / 2 for i in range(3))
        for name, (f, lo, hi) in preds.items():
            r = rows[name]
            r[0] += smape(a, f)
            r[1] += np.mean(np.abs(a - f)) / s
            r[2] += np.mean((lo <= a) & (a <= hi))
            r[3] += np.mean((hi - lo) + 40.0 * (np.maximum(lo - a, 0) + np.maximum(a - hi, 0))) / s
        n += 1
    print(f"{path}: {n} series, horizon {horizon}, statsforecast, {threads} processes")
    print("| method | sMAPE | MASE | 95% coverage | MSIS |")
    print("|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r[0]/n:.3f} | {r[1]/n:.3f} | {100*r[2]/n:.1f}% | {r[3]/n:.3f} |")
    print(f"\nAutoETS: {timings['AutoETS']:.2f} s wall; Theta: {timings['Theta']:.2f} s wall (numba compiled beforehand)")


if __name__ == "__main__":
    main()

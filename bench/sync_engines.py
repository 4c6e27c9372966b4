#!/usr/bin/env python3
"""The small world's whole backfill on each warehouse engine (issue 67, "per engine").

For each engine and each binary, one after the other: the small world (the dev server's demo
world: its three sellers, vendor and advertising logins) served by a sandbox with its usage
plans off, one managed tenant with every grant connected and its warehouse on the engine
(embedded SQLite, a PostgreSQL database, a MariaDB database), a gateway with pacing off, 16
job workers and 50 ms polls — the issue's setting, as bench/sync_small.sh has it for the dev
server's SQLite tenant. Timed from the gateway answering to `sync run --wait` ending (every
dataset synced or unavailable), or the cap.

Usage (from the repository root):
  python3 bench/sync_engines.py NAME=BINARY [NAME=BINARY ...] [--engines sqlite,postgres,mariadb] [--cap 2400]
PostgreSQL at $PP_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/postgres), MariaDB
at $PP_TEST_MARIADB (default mysql://root@127.0.0.1:3306/test). Prints a Markdown table and
writes it to bench/out/sync-engines-latest.md; every database it makes is dropped.
"""

import argparse
import collections
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet import admin_runner, log, provider_toml, psql, publish, stop, wait_up  # noqa: E402

PG = os.environ.get("PP_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres").rsplit("/", 1)[0]
MY = os.environ.get("PP_TEST_MARIADB", "mysql://root@127.0.0.1:3306/test").rsplit("/", 1)[0]
DEMO_SEED = "20261122"  # crates/cli/src/dev.rs: the dev server's demo world
SIM_PORT, GW_PORT = 18710, 18720
READER = "pp_engines_reader"  # the tenant's SQL reads through a login that can only SELECT


def mariadb(sql):
    host = MY.split("@")[-1]
    r = subprocess.run(["mysql", "-h", host.split(":")[0], "-P", host.split(":")[1], "-u", "root", "-e", sql],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"mysql: {r.stderr.strip()}")


def backfill(name, binary, engine, cap):
    """Seconds until every dataset of the tenant ended, and the states they ended in."""
    work = tempfile.mkdtemp(prefix=f"sync-engines-{engine}-")
    db = f"pp_engines_{os.getpid()}"
    procs = []
    try:
        subprocess.run([binary, "world", "generate", "--scale", "small", "--seed", DEMO_SEED,
                        "--out", f"{work}/world"], check=True, stdout=subprocess.DEVNULL)
        sim_url = f"http://127.0.0.1:{SIM_PORT}"
        procs.append(subprocess.Popen([binary, "sim", "--world", f"{work}/world", "--listen", sim_url[7:],
                                       "--data-dir", f"{work}/sim", "--no-rate-limits"],
                                      stdout=open(f"{work}/sim.log", "w"), stderr=subprocess.STDOUT))
        wait_up(f"{sim_url}/__sandbox/world")
        creds = json.load(open(f"{work}/sim/sandbox-credentials.json"))
        key = secrets.token_hex(32)
        provider, regions = provider_toml(creds, sim_url)
        open(f"{work}/gateway.toml", "w").write(f"""secret_key = "{key}"
{provider}job_workers = 16
sync_poll_ms = 50
upstream_pacing = false
{regions}""")
        env = dict(os.environ, PARTNER_CONFIG=f"{work}/gateway.toml", PARTNER_LOG="warn", PARTNER_SECRET_KEY=key)
        run = admin_runner([binary, "admin", "--data-dir", f"{work}/gw"], env)

        where = []
        if engine == "postgres":
            psql("postgres", f"DO $$BEGIN CREATE ROLE {READER} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END$$")
            psql("postgres", f"CREATE DATABASE {db}")
            psql(db, f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {READER}")
            reader = PG.replace("//postgres@", f"//{READER}@", 1)
            where = ["--managed", f"{PG}/{db}", "--warehouse", f"{reader}/{db}"]
        elif engine == "mariadb":
            mariadb(f"CREATE DATABASE {db}; CREATE USER IF NOT EXISTS {READER}@'%'; "
                    f"GRANT SELECT ON {db}.* TO {READER}@'%'")
            url = MY.replace("mysql://", "mariadb://", 1)
            reader = url.replace("//root@", f"//{READER}@", 1)
            where = ["--managed", f"{url}/{db}", "--warehouse", f"{reader}/{db}"]
        run(["tenant", "create", "small"] + where)
        for kind, grants, key_name in (("seller", creds["merchants"], "merchant"), ("ads", creds["advertising"], "account")):
            for g in grants:
                run(["connection", "add", "--tenant", "small", "--merchant", g[key_name], "--kind", kind],
                    {"PARTNER_REFRESH_TOKEN": g["refresh_token"]})
        cred = json.loads(run(["credential", "create", "--tenant", "small", "--scopes",
                               "account:read,retail:read,ads:read,sync:write", "--label", "bench", "--json"]))
        base = f"http://127.0.0.1:{GW_PORT}"
        procs.append(subprocess.Popen([binary, "server", "--data-dir", f"{work}/gw", "--listen", base[7:],
                                       "--public-url", base], env=env,
                                      stdout=open(f"{work}/gw.log", "w"), stderr=subprocess.STDOUT))
        wait_up(f"{base}/health")
        began = time.monotonic()
        client = dict(os.environ, PP_BASE_URL=base, PP_TOKEN_URL=f"{base}/oauth/token", PP_TENANT="small",
                      PP_CLIENT_ID=cred["client_id"], PP_CLIENT_SECRET=cred["client_secret"])
        subprocess.run([binary, "sync", "run", "--wait", "--timeout", str(cap)], env=client,
                       stdout=open(f"{work}/sync.out", "w"), stderr=subprocess.STDOUT)
        secs = time.monotonic() - began
        status = subprocess.run([binary, "sync", "status", "--json"], env=client, capture_output=True, text=True)
        try:
            states = collections.Counter(d["state"] for d in json.loads(status.stdout)["datasets"])
            ended = ", ".join(f"{k} {v}" for k, v in sorted(states.items()))
        except (ValueError, KeyError):
            ended = "?"
        log(f"{name} on {engine}: {secs:.0f} s, {ended}")
        return secs, ended
    finally:
        stop(procs)
        if engine == "postgres":
            subprocess.run(["psql", f"{PG}/postgres", "-qc", f"DROP DATABASE IF EXISTS {db} WITH (FORCE)"],
                           capture_output=True)
        elif engine == "mariadb":
            mariadb(f"DROP DATABASE IF EXISTS {db}")
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs="+", help="NAME=PATH, run in the order given")
    ap.add_argument("--engines", default="sqlite,postgres,mariadb")
    ap.add_argument("--cap", type=int, default=2400)
    a = ap.parse_args()
    bins = [(b.split("=", 1)[0], os.path.abspath(b.split("=", 1)[1])) for b in a.binaries]
    lines = [f"Run: {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())} on {os.cpu_count()} cores; the small world, "
             f"one managed tenant with every grant, the sandbox's plans and the gateway's pacing off, 16 workers, "
             f"50 ms polls; cap {a.cap} s", "",
             "| engine | binary | whole backfill | datasets at the end |", "|---|---|---|---|"]
    for engine in a.engines.split(","):
        for name, binary in bins:
            secs, ended = backfill(name, binary, engine, a.cap)
            lines.append(f"| {engine} | {name} | {secs:.0f} s | {ended} |")
    publish(lines, "sync-engines-latest.md")


if __name__ == "__main__":
    main()

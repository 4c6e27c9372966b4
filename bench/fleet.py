#!/usr/bin/env python3
"""Many tenants on several instances (issue 67, item 5).

One sandbox serves a world with a fleet of tiny sellers; TENANTS managed tenants of one to
three of them each (every tenant its own sellers, grants and usage plans; the sandbox's plans
on), their warehouses on PostgreSQL (a database each), are synced by INSTANCES gateway
instances on one PostgreSQL state, each tenant with a webhook endpoint for its sync events.

Phase 1, the first sync: from the instances' start until every dataset of every tenant is
synced (each tenant's history is HISTORY days, so a first sync is its last month). Phase 2,
a daily run: the world moves a day forward and every sync job becomes due at once, as at the
daily hour; until every dataset holds the new day. Measured: the time of each phase, the
claim (its query, and how late a due job was taken) from the instances' metrics, the state
database's transactions and CPU, each process's CPU, the webhook deliveries received and how
late, and the provider's 429s.

Usage (from the repository root, PostgreSQL at $PP_TEST_POSTGRES or the local default):
  python3 bench/fleet.py BINARY [--tenants 500] [--instances 2] [--workers 4] [--history 35]
Prints a Markdown report and writes it to bench/out/fleet-latest.md. Every database it makes
is dropped at the end.
"""

import argparse
import atexit
import calendar
import http.server
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ADMIN_URL = os.environ.get("PP_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BASE = ADMIN_URL.rsplit("/", 1)[0]
HOST = BASE.split("@")[-1]
PREFIX = f"pp_fleet_{os.getpid()}"
READER = "pp_fleet_reader"
SIM_PORT, FIRST_PORT, HOOK_PORT = 18600, 18610, 18650
TICK = os.sysconf("SC_CLK_TCK")


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def psql(db, sql):
    r = subprocess.run(["psql", f"{BASE}/{db}", "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"psql {db}: {r.stderr.strip()}")
    return r.stdout.strip()


def call(method, url, body=None, token=None, basic=None, form=None, timeout=120):
    headers = {}
    data = None
    if body is not None:
        data, headers["content-type"] = json.dumps(body).encode(), "application/json"
    if form is not None:
        data, headers["content-type"] = form.encode(), "application/x-www-form-urlencoded"
    if token:
        headers["authorization"] = f"Bearer {token}"
    if basic:
        import base64
        headers["authorization"] = "Basic " + base64.b64encode(basic.encode()).decode()
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        text = r.read().decode()
    return json.loads(text) if text.startswith(("{", "[")) else text


def wait_up(url, seconds=300):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except Exception:
            time.sleep(0.2)
    sys.exit(f"not up: {url}")


def ticks(pid):
    """CPU time (user + system) of a process and its waited-for children, in seconds."""
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in f[11:15]) / TICK
    except OSError:
        return 0.0


def postgres_cpu():
    """CPU seconds of every postgres process now (connections come and go: a lower bound)."""
    out = subprocess.run(["ps", "-C", "postgres", "-o", "pid="], capture_output=True, text=True).stdout
    return sum(ticks(int(p)) for p in out.split())


class Hooks(http.server.BaseHTTPRequestHandler):
    """The tenants' webhook endpoint: counts deliveries, and how late each came after its event."""
    seen, late, lock = set(), [], threading.Lock()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        at = time.time()
        with Hooks.lock:
            first = self.headers["webhook-id"] not in Hooks.seen
            Hooks.seen.add(self.headers["webhook-id"])
            if first:
                made = calendar.timegm(time.strptime(body["timestamp"][:19], "%Y-%m-%dT%H:%M:%S"))
                Hooks.late.append(at - made)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_):
        pass


def metric_sums(text, name):
    """(sum, count) of a histogram over every label set, and its buckets' counts."""
    total = count = 0.0
    buckets = {}
    for line in text.splitlines():
        if line.startswith(name + "_sum"):
            total += float(line.split()[-1])
        elif line.startswith(name + "_count"):
            count += float(line.split()[-1])
        elif line.startswith(name + "_bucket"):
            le = line.split('le="')[1].split('"')[0]
            buckets[le] = buckets.get(le, 0.0) + float(line.split()[-1])
    return total, count, buckets


def quantile(buckets, q):
    """The upper bound of the bucket holding quantile q of a Prometheus histogram."""
    items = sorted(((float("inf") if k == "+Inf" else float(k)), v) for k, v in buckets.items())
    if not items or items[-1][1] == 0:
        return None
    want = q * items[-1][1]
    return next(le for le, n in items if n >= want)


def provider_toml(creds, sim_url):
    """A gateway config's lines that make the sandbox at `sim_url` its provider (the app's LWA
    client and every region's advertising token endpoint)."""
    token_url = f"{sim_url}/auth/o2/token"
    return f"""lwa_client_id = "{creds['client_id']}"
lwa_client_secret = "{creds['client_secret']}"
lwa_token_url = "{token_url}"
spapi_url = "{sim_url}"
ads_url = "{sim_url}"
""", f"""
[ads_token_urls]
na = "{token_url}"
eu = "{token_url}"
fe = "{token_url}"
"""


def admin_runner(admin, env):
    """`run(args, extra_env)`: the `admin` command line `admin` with `args`, its output (raises
    with its error when it fails)."""
    def run(args, extra_env=None):
        r = subprocess.run(admin + args, env=dict(env, **(extra_env or {})), capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")
        return r.stdout
    return run


def stop(procs):
    """Terminates the processes, killing any still there after 10 s."""
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def publish(lines, name):
    """Prints the report and writes it to bench/out/<name>."""
    report = "\n".join(lines)
    print(report)
    os.makedirs("bench/out", exist_ok=True)
    open(f"bench/out/{name}", "w").write(report + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--tenants", type=int, default=500)
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--history", type=int, default=35)
    ap.add_argument("--cap", type=int, default=3600, help="seconds the first sync may take")
    ap.add_argument("--daily-cap", type=int, default=None, help="seconds the daily run may take (default: --cap)")
    ap.add_argument("--report-ms", type=int, default=1500)
    ap.add_argument("--keep", action="store_true", help="leave the databases and files (to look into a run)")
    ap.add_argument("--no-plans", action="store_true", help="no usage plans: the sandbox enforces none and the gateway paces to none (a quick try)")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    # the jobs table is rewritten by every claim and step: without autovacuum its dead rows
    # and stale statistics, not the gateway, decide how long a claim takes (this project's
    # CI machines turn it off: `ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf();`)
    autovacuum = psql("postgres", "SHOW autovacuum")
    if autovacuum != "on":
        log("warning: PostgreSQL's autovacuum is off; the state database's claims will slow down as the run goes")
    work = tempfile.mkdtemp(prefix="fleet-")
    procs = []
    dbs = [f"{PREFIX}_state"] + [f"{PREFIX}_w{i}" for i in range(1, a.tenants + 1)] + [f"{PREFIX}_tpl"]

    def cleanup():
        if a.keep:
            log(f"kept: {work}, databases {PREFIX}_*; the processes still run")
            return
        stop(procs)
        for db in dbs:
            subprocess.run(["psql", ADMIN_URL, "-qc", f"DROP DATABASE IF EXISTS {db} WITH (FORCE)"],
                           capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    atexit.register(cleanup)

    # the tenants' merchants: one to three each, from the fleet in turn
    counts = [1 + i % 3 for i in range(a.tenants)]
    fleet = sum(counts)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    t = time.monotonic()
    subprocess.run([binary, "world", "generate", "--scale", "tiny", "--fleet", str(fleet), "--today", today,
                    "--out", f"{work}/world"], check=True, stdout=subprocess.DEVNULL)
    world_s = time.monotonic() - t
    log(f"world of {fleet} fleet sellers in {world_s:.0f} s")
    sim_url = f"http://127.0.0.1:{SIM_PORT}"
    procs.append(subprocess.Popen([binary, "sim", "--world", f"{work}/world", "--listen", f"127.0.0.1:{SIM_PORT}",
                                   "--data-dir", f"{work}/sim", "--report-ms", str(a.report_ms)]
                                  + (["--no-rate-limits"] if a.no_plans else []),
                                  stdout=open(f"{work}/sim.log", "w"), stderr=subprocess.STDOUT))
    wait_up(f"{sim_url}/__sandbox/world")
    creds = json.load(open(f"{work}/sim/sandbox-credentials.json"))
    seller_tokens = {m["merchant"]: m["refresh_token"] for m in creds["merchants"]}
    ads_tokens = {m["account"]: m["refresh_token"] for m in creds["advertising"]}

    t = time.monotonic()
    psql("postgres", f"DO $$BEGIN CREATE ROLE {READER} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END$$")
    for db in (f"{PREFIX}_state", f"{PREFIX}_tpl"):
        psql("postgres", f"CREATE DATABASE {db}")
    psql(f"{PREFIX}_tpl", f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {READER}")
    for i in range(1, a.tenants + 1):
        psql("postgres", f"CREATE DATABASE {PREFIX}_w{i} TEMPLATE {PREFIX}_tpl")
    log(f"{a.tenants + 2} databases in {time.monotonic() - t:.0f} s")

    key = secrets.token_hex(32)
    provider, regions = provider_toml(creds, sim_url)
    config = f"""state_url = "{BASE}/{PREFIX}_state"
secret_key = "{key}"
{provider}sync_history_days = {a.history}
job_workers = {a.workers}
upstream_pacing = {'false' if a.no_plans else 'true'}
webhook_allow_hosts = ["localhost"]
{regions}
[limits]
credential_burst = 1000000000
credential_per_minute = 1000000000
token_burst_per_address = 1000000000
token_per_minute_per_address = 1000000000
"""
    cfg = f"{work}/gateway.toml"
    open(cfg, "w").write(config)
    env = dict(os.environ, PARTNER_CONFIG=cfg, PARTNER_LOG="warn")
    run = admin_runner([binary, "admin", "--data-dir", f"{work}/admin", "--state-url", f"{BASE}/{PREFIX}_state"], env)

    # the state's schema once, before the tenants are made side by side
    run(["tenant", "list"])
    merchants = [f"AFLEET{n:06d}" for n in range(1, fleet + 1)]
    plan, k = [], 0
    for i, c in enumerate(counts, 1):
        plan.append((f"f{i}", merchants[k:k + c]))
        k += c

    def provision(item):
        tenant, mine = item
        n = tenant[1:]
        run(["tenant", "create", tenant, "--managed", f"{BASE}/{PREFIX}_w{n}",
             "--warehouse", f"postgres://{READER}@{HOST}/{PREFIX}_w{n}"])
        for m in mine:
            for kind, tokens in (("seller", seller_tokens), ("ads", ads_tokens)):
                run(["connection", "add", "--tenant", tenant, "--merchant", m, "--kind", kind],
                    {"PARTNER_REFRESH_TOKEN": tokens[m], "PARTNER_SECRET_KEY": key})
        cred = json.loads(run(["credential", "create", "--tenant", tenant, "--scopes",
                               "account:read,webhooks:write", "--label", "fleet", "--json"]))
        return tenant, cred
    t = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        creds_of = dict(pool.map(provision, plan))
    log(f"{a.tenants} tenants, {fleet} merchants connected in {time.monotonic() - t:.0f} s")

    hooks = http.server.ThreadingHTTPServer(("127.0.0.1", HOOK_PORT), Hooks)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    bases = [f"http://127.0.0.1:{FIRST_PORT + k}" for k in range(a.instances)]
    began = time.monotonic()
    cpu0 = {"postgres": postgres_cpu()}
    for k, base in enumerate(bases):
        procs.append(subprocess.Popen([binary, "server", "--data-dir", f"{work}/i{k}", "--listen", base[7:],
                                       "--public-url", base], env=env,
                                      stdout=open(f"{work}/i{k}.log", "w"), stderr=subprocess.STDOUT))
    for base in bases:
        wait_up(f"{base}/health")
    gateways = procs[1:]

    def register(item):
        tenant, cred = item
        base = bases[int(tenant[1:]) % len(bases)]
        tok = call("POST", f"{base}/oauth/token", form="grant_type=client_credentials",
                   basic=f"{cred['client_id']}:{cred['client_secret']}")["access_token"]
        call("POST", f"{base}/api/webhooks", {"url": f"http://localhost:{HOOK_PORT}/{tenant}",
                                              "types": ["warehouse.sync.*"]}, token=tok)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(register, creds_of.items()))
    log(f"webhooks registered after {time.monotonic() - began:.0f} s")

    state = f"{PREFIX}_state"

    def xacts():
        return int(psql("postgres", f"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{state}'"))

    def counts_by_state():
        rows = psql(state, "SELECT state, count(*) FROM sync_datasets GROUP BY state")
        return {r.split("|")[0]: int(r.split("|")[1]) for r in rows.splitlines() if r}

    def until(done, what, since, cap):
        """Seconds from `since` until `done` holds of the dataset states (None past `cap`)."""
        while time.monotonic() - since < cap:
            c = counts_by_state()
            if done(c):
                return time.monotonic() - since, c
            log(what, c)
            time.sleep(10)
        return None, counts_by_state()

    x0 = xacts()

    def adopting():
        return int(psql(state, "SELECT count(*) FROM jobs WHERE kind = 'warehouse_adopt' AND status IN ('queued', 'running')"))

    # a dataset that failed (it tries again later, with the reason in its status) counts as
    # ended: the report says how many, and a phase is not held open by one provider failure
    def ended(c):
        return c.get("synced", 0) + c.get("unavailable", 0) + c.get("failing", 0)

    def all_synced(c):
        total = sum(c.values())
        return adopting() == 0 and total > 0 and ended(c) == total
    first_s, first_counts = until(all_synced, "first sync", began, a.cap)
    first_total = time.monotonic() - began
    x1 = xacts()
    cpu1 = {"postgres": postgres_cpu()}
    gw_cpu1 = [ticks(p.pid) for p in gateways]
    sim_cpu1 = ticks(procs[0].pid)
    hooks1, late1 = len(Hooks.seen), sorted(Hooks.late)
    metrics1 = [call("GET", f"{b}/metrics") for b in bases]
    log(f"first sync: {first_s} s, {first_counts}, {x1 - x0} state transactions, webhooks {hooks1} "
        f"(late p50 {late1[len(late1) // 2] if late1 else None}), CPU gateways {sum(gw_cpu1):.0f} s")

    # phase 2: a day later, every dataset's daily run due at once
    secret = creds["client_secret"]
    # (the sandbox generates the moved world: a minute or more for a thousand sellers)
    call("POST", f"{sim_url}/__sandbox/world", {"days": 1}, token=secret, timeout=900)
    new_last = today
    began2 = time.monotonic()
    psql(state, "UPDATE jobs SET run_after = (extract(epoch FROM now()) * 1000)::bigint "
                "WHERE kind = 'warehouse_sync' AND status = 'queued'")

    def all_current(c):
        total = sum(c.values())
        behind = int(psql(state, f"SELECT count(*) FROM sync_datasets WHERE state = 'synced' AND dataset = 'sales_and_traffic' AND data_through < '{new_last}'"))
        return total > 0 and ended(c) == total and behind == 0
    daily_s, daily_counts = until(all_current, "daily run", began2, a.daily_cap or a.cap)
    x2 = xacts()
    cpu2 = {"postgres": postgres_cpu()}
    gw_cpu2 = [ticks(p.pid) for p in gateways]
    sim_cpu2 = ticks(procs[0].pid)
    metrics2 = [call("GET", f"{b}/metrics") for b in bases]
    throttled = call("GET", f"{sim_url}/__sandbox/calls", token=secret).get("throttled", {})

    def claims(texts):
        q = [metric_sums(t, "pp_job_claim_seconds") for t in texts]
        d = [metric_sums(t, "pp_job_claim_delay_seconds") for t in texts]
        merge = lambda xs: {k: sum(x[2].get(k, 0) for x in xs) for x in xs for k in x[2]}
        qs, ds = merge(q), merge(d)
        return (sum(x[0] for x in q) / max(1, sum(x[1] for x in q)), quantile(qs, 0.99), sum(x[1] for x in q),
                sum(x[0] for x in d) / max(1, sum(x[1] for x in d)), quantile(ds, 0.5), quantile(ds, 0.99), sum(x[1] for x in d))

    def fmt(s):
        return "over the cap" if s is None else f"{s:.0f} s"
    c1, c2 = claims(metrics1), claims(metrics2)
    rows = sum(first_counts.values())
    lines = [
        f"Run: {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())} on {os.cpu_count()} cores; {a.tenants} tenants "
        f"({fleet} merchants, {rows} datasets), {a.instances} instances of {a.workers} workers on one PostgreSQL "
        f"state (autovacuum {autovacuum}), warehouses on PostgreSQL (a database each), history {a.history} days, the sandbox's plans "
        f"{'off' if a.no_plans else 'on'}, "
        f"reports made in {a.report_ms} ms; world generated in {world_s:.0f} s",
        "",
        "| phase | until every dataset synced | state transactions/s | claim query mean / p99 | claims | due → claimed mean / p50 / p99 | jobs claimed | CPU s: gateways / sandbox / PostgreSQL | webhooks received (late p50 / p99) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, secs, span, x, c, gw, sim_cpu, pg, hooks_n, late in [
        ("first sync (last month of each)", first_s, first_total, x1 - x0, c1, sum(gw_cpu1), sim_cpu1,
         cpu1["postgres"] - cpu0["postgres"], hooks1, late1),
        ("daily run (a day later, all due at once)", daily_s, time.monotonic() - began2, x2 - x1,
         tuple(v2 - v1 if i in (2, 6) else v2 for i, (v1, v2) in enumerate(zip(c1, c2))),
         sum(gw_cpu2) - sum(gw_cpu1), sim_cpu2 - sim_cpu1, cpu2["postgres"] - cpu1["postgres"],
         len(Hooks.seen) - hooks1, sorted(Hooks.late[len(late1):])),
    ]:
        p = lambda xs, q: f"{xs[min(len(xs) - 1, int(q * len(xs)))]:.1f} s" if xs else "—"
        ms = lambda v: "—" if v is None else f"{v * 1000:.1f} ms"
        lines.append(f"| {name} | {fmt(secs)} | {x / max(span, 1):.0f} | {ms(c[0])} / ≤ {ms(c[1])} | {c[2]:.0f} | "
                     f"{c[3]:.1f} s / ≤ {c[4]} s / ≤ {c[5]} s | {c[6]:.0f} | {gw:.0f} / {sim_cpu:.0f} / {pg:.0f} | "
                     f"{hooks_n} ({p(late, 0.5)} / {p(late, 0.99)}) |")
    lines += ["", f"Provider 429s: {json.dumps(throttled)}. Dataset states after the first sync: "
              f"{json.dumps(first_counts)}; at the end: {json.dumps(daily_counts)} (failing: ended with "
              f"the provider's or the warehouse's reason, to be tried again)."]
    publish(lines, "fleet-latest.md")


if __name__ == "__main__":
    main()

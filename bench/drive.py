"""Sends one kind of request N times, one after another on one keep-alive connection, and
checks each answer: the load for bench/instructions.sh, whose counts must not depend on a load
generator's pace. Usage:

    drive.py init  BASE_URL TOKEN           prints a new session-era MCP session id
    drive.py KIND  N BASE_URL TOKEN [SID]   KIND: hello, me, query, tool (2026-07-28), session
"""

import http.client
import json
import sys
from urllib.parse import urlsplit

SQL = "SELECT ID, MarketplaceSellerID, Marketplace FROM seller WHERE ID = ?"
MCP = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def request(kind, token, session):
    """(method, path, body, headers, text every answer holds) for one request of KIND."""
    auth = {"authorization": f"Bearer {token}"}
    if kind == "hello":
        return "GET", "/", None, {}, "Hello"
    if kind == "me":
        return "GET", "/v1/me", None, auth, '"tenant_id"'
    if kind == "query":
        body = json.dumps({"sql": SQL, "params": [1]})
        return "POST", "/api/query", body, {**auth, "content-type": "application/json"}, '"rowCount":1'
    call = {"name": "legacy_query", "arguments": {"sql": SQL, "params": [1]}}
    if kind == "tool":
        call["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        headers = {**auth, **MCP, "mcp-protocol-version": "2026-07-28",
                   "mcp-method": "tools/call", "mcp-name": "legacy_query"}
    elif kind == "session":
        headers = {**auth, **MCP, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    else:
        sys.exit(f"unknown kind {kind}")
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    return "POST", "/mcp", body, headers, '"isError":false'


def connect(base):
    url = urlsplit(base)
    return http.client.HTTPConnection(url.hostname, url.port)


def init(base, token):
    c = connect(base)
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {}}})
    c.request("POST", "/mcp", body, {"authorization": f"Bearer {token}", **MCP})
    r = c.getresponse()
    r.read()
    print(r.getheader("mcp-session-id"))


def main():
    if sys.argv[1] == "init":
        return init(sys.argv[2], sys.argv[3])
    kind, n, base, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    session = sys.argv[5] if len(sys.argv) > 5 else ""
    method, path, body, headers, expect = request(kind, token, session)
    c = connect(base)
    for _ in range(n):
        c.request(method, path, body, headers)
        r = c.getresponse()
        text = r.read().decode()
        if r.status != 200 or expect not in text:
            sys.exit(f"{kind}: {r.status} {text[:300]}")


main()

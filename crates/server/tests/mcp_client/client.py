"""Drives the gateway's MCP server with the official Python MCP SDK (the `mcp` package), as an
MCP client in the field would. Called by the Rust integration tests in `tests/api/mcp_client.rs`:

    python client.py SCENARIO BASE_URL TOKEN
    python client.py oauth BASE_URL EMAIL PASSWORD
    python client.py client-credentials BASE_URL CLIENT_ID CLIENT_SECRET

Each scenario prints what it saw and exits non-zero with the reason on the first surprise.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

SCENARIO, BASE, TOKEN = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def leaf_messages(e):
    """The messages of an exception and, for a group, of everything inside it."""
    if isinstance(e, BaseExceptionGroup):
        return " | ".join(leaf_messages(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


def text_json(result):
    return json.loads(result.content[0].text)


class TokenMemory:
    """Where the SDK's OAuth providers keep their tokens and client registration: memory."""

    def __init__(self):
        self.tokens, self.client = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info):
        self.client = info


async def exercise(call_tool, list_tools, version):
    """Lists tools and calls each surface's read tools; returns nothing, checks everything."""
    tools = await list_tools()
    names = {t.name for t in tools.tools}
    for name in ["legacy_query", "warehouse_list_tables", "warehouse_describe_table",
                 "timeline_list", "timeline_add_event", "timeline_corroborate",
                 "context_list_docs", "context_get_doc", "context_set_brand_lifecycle"]:
        check(name in names, f"[{version}] tools/list names {name}")
    lq = next(t for t in tools.tools if t.name == "legacy_query")
    check(lq.annotations is not None and lq.annotations.read_only_hint is True,
          f"[{version}] legacy_query is annotated read-only")

    r = await call_tool("legacy_query", {"sql": "SELECT Slug FROM brand ORDER BY Slug"})
    check(not r.is_error, f"[{version}] legacy_query succeeds")
    body = text_json(r)
    check([row["Slug"] for row in body["rows"]] == ["acme-kitchen", "northwind", "sierra-casa", "trailhead"],
          f"[{version}] legacy_query returns the demo brands")
    if version >= "2025-06-18":
        check(r.structured_content is not None and r.structured_content["rowCount"] == 4,
              f"[{version}] legacy_query result is structured")
    else:
        check(r.structured_content is None, f"[{version}] no structuredContent before 2025-06-18")

    r = await call_tool("legacy_query", {"sql": "SELECT Date FROM spapi_sales_and_traffic_by_date", "maxRows": 3})
    body = text_json(r)
    check(body["rowCount"] == 3 and body["truncated"] is True and "OFFSET" in body["next"],
          f"[{version}] a large result is capped and says how to get the rest")

    r = await call_tool("legacy_query", {"sql": "DELETE FROM brand"})
    check(r.is_error and text_json(r)["kind"] == "read_only_violation",
          f"[{version}] a write is a tool error carrying the /api envelope")

    r = await call_tool("timeline_list", {"brand": "northwind", "limit": 2})
    check(not r.is_error and len(text_json(r)["events"]) == 2, f"[{version}] timeline_list pages")

    r = await call_tool("context_list_docs", {"lifecycle": "all"})
    brands = text_json(r)["brands"]
    check(not r.is_error and all("lifecycle" in b for b in brands),
          f"[{version}] context_list_docs lists brands with their lifecycle")

    r = await call_tool("context_get_doc", {"brand": "northwind", "type": "overview"})
    check(not r.is_error and len(text_json(r)["content"]) > 0, f"[{version}] context_get_doc reads a document")


async def streamable(mode, offer=None):
    if offer is not None:
        # The SDK offers its newest handshake revision; make it offer an older one it also speaks.
        import mcp.client.session as session_module
        session_module.LATEST_HANDSHAKE_VERSION = offer
    async with httpx2.AsyncClient(headers=AUTH, timeout=30) as http:
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode=mode) as c:
            print("negotiated", c.protocol_version)
            if mode == "legacy":
                want = offer or "2025-11-25"
                check(c.protocol_version == want, f"session-era handshake agrees {want}")
            else:
                check(c.protocol_version == "2026-07-28", f"mode {mode} speaks 2026-07-28")
            await exercise(c.call_tool, c.list_tools, c.protocol_version)


async def sse():
    async with sse_client(f"{BASE}/mcp/sse", headers=AUTH) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            print("negotiated", init.protocol_version)
            check(init.server_info.name == "partner-platform", "SSE initialize names the server")
            await exercise(s.call_tool, s.list_tools, init.protocol_version)


async def timeline_reader():
    """A credential holding only timeline:read."""
    async with httpx2.AsyncClient(headers=AUTH, timeout=30) as http:
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode="legacy") as c:
            tools = await c.list_tools()
            check(len(tools.tools) >= 9, "connects and lists every tool")
            r = await c.call_tool("timeline_list", {"limit": 1})
            check(not r.is_error and len(text_json(r)["events"]) == 1, "reads the timeline")
            for name, args in [("legacy_query", {"sql": "SELECT 1"}),
                               ("timeline_add_event", {"brand": "northwind", "kind": "comment", "note": "x"})]:
                r = await c.call_tool(name, args)
                body = text_json(r)
                check(r.is_error and body["error"] == "insufficient_scope" and body["required_scopes"],
                      f"{name} answers insufficient_scope as a tool result, naming {body.get('required_scopes')}")


async def refused():
    """A credential whose scopes open no tool: refused at connect, with the reason."""
    try:
        async with httpx2.AsyncClient(headers=AUTH, timeout=30) as http:
            async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode="legacy"):
                pass
    except Exception as e:  # the SDK raises the server's JSON-RPC error
        msg = leaf_messages(e)
        print("refused:", msg)
        check("none of the scopes" in msg, "the refusal says why")
        return
    check(False, "a credential without any tool scope must not connect")


async def bad_token():
    """A bad token is refused with a pointer to the protected-resource metadata."""
    async with httpx2.AsyncClient(timeout=30) as http:
        r = await http.post(f"{BASE}/mcp", headers={"Authorization": "Bearer nope",
                                                    "Content-Type": "application/json",
                                                    "Accept": "application/json, text/event-stream"},
                            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
        check(r.status_code == 401, "bad token: 401")
        challenge = r.headers.get("www-authenticate", "")
        check('resource_metadata="' in challenge, "401 names resource_metadata")
        url = challenge.split('resource_metadata="')[1].split('"')[0]
        meta = (await http.get(url)).json()
        check(meta["resource"] == f"{BASE}/mcp" and meta["authorization_servers"] == [BASE],
              "the metadata names the resource and its authorization server")
    try:
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer nope"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode="legacy"):
                pass
    except Exception as e:
        print("client refused:", leaf_messages(e))
        return
    check(False, "the SDK client must not connect with a bad token")


async def oauth():
    """No token at all: the SDK's OAuth client finds the metadata from the 401, registers
    itself, and sends a person through the real sign-in and consent pages (driven here over
    HTTP as a browser would), then lists and calls tools with the token it got."""
    from html import unescape
    from urllib.parse import parse_qs, urlparse

    from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    email, password = sys.argv[3], sys.argv[4]
    redirect = "http://127.0.0.1:45999/callback"
    got = {}

    def hidden(html, name):
        marker = f'name="{name}" value="'
        start = html.index(marker) + len(marker)
        return unescape(html[start:html.index('"', start)])

    async def browser(authorization_url):
        """A person: follows the authorization URL, signs in, and allows."""
        check(authorization_url.startswith(f"{BASE}/oauth/authorize?"), "the SDK sends the person to /oauth/authorize")
        query = parse_qs(urlparse(authorization_url).query)
        check(query.get("code_challenge_method") == ["S256"], "the SDK asks with an S256 challenge")
        async with httpx2.AsyncClient(timeout=30, follow_redirects=False) as web:
            r = await web.get(authorization_url)
            check(r.status_code == 303 and r.headers["location"].startswith("/login?"), "signed out: sent to sign in")
            r = await web.get(BASE + r.headers["location"])
            form = {"csrf": hidden(r.text, "csrf"), "next": hidden(r.text, "next"),
                    "email": email, "password": password}
            r = await web.post(f"{BASE}/login", data=form)
            check(r.status_code == 303, "signed in")
            r = await web.get(BASE + r.headers["location"])
            check(r.status_code == 200 and "Allow" in r.text,
                  f"the consent page asks (got {r.status_code} {r.headers.get('location')})")
            check("Read your brand timeline" in r.text, "the consent page names scopes in plain words")
            form = {k: v[0] for k, v in query.items()}
            form.update({"csrf": hidden(r.text, "csrf"), "decision": "allow"})
            r = await web.post(f"{BASE}/oauth/authorize", data=form)
            check(r.status_code == 303 and r.headers["location"].startswith(redirect), "consent sends the browser back")
            back = parse_qs(urlparse(r.headers["location"]).query)
            got["code"], got["state"] = back["code"][0], back.get("state", [None])[0]

    async def callback():
        return AuthorizationCodeResult(code=got["code"], state=got["state"])

    storage = TokenMemory()
    provider = OAuthClientProvider(
        server_url=f"{BASE}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="SDK test client", redirect_uris=[redirect],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none"),
        storage=storage, redirect_handler=browser, callback_handler=callback)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode="legacy") as c:
            check(storage.client is not None and storage.client.client_id.startswith("ppapp_"),
                  "the SDK registered itself")
            check(storage.tokens is not None and storage.tokens.refresh_token is not None,
                  "the SDK holds an access and a refresh token")
            tools = await c.list_tools()
            names = {t.name for t in tools.tools}
            check("timeline_list" in names and "context_get_doc" in names, "tools/list over the OAuth token")
            r = await c.call_tool("timeline_list", {"brand": "northwind", "limit": 2})
            check(not r.is_error and len(text_json(r)["events"]) == 2, "timeline_list answers")
            r = await c.call_tool("legacy_query", {"sql": "SELECT 1"})
            check(r.is_error and text_json(r)["error"] == "insufficient_scope",
                  "a sign-in does not carry sql:query")


async def client_credentials():
    """A service credential and nothing else: the SDK's client-credentials provider finds the
    metadata from the 401, asks the token endpoint for the scopes it names, is granted the
    ones the credential holds, and lists tools and runs legacy_query."""
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    client_id, client_secret = sys.argv[3], sys.argv[4]

    storage = TokenMemory()
    provider = ClientCredentialsOAuthProvider(
        server_url=f"{BASE}/mcp", storage=storage, client_id=client_id,
        client_secret=client_secret, issuer=BASE)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode="legacy") as c:
            check(storage.tokens is not None, "the SDK got a token with the credential alone")
            granted = set((storage.tokens.scope or "").split())
            check("sql:query" in granted and "corrections:write" not in granted,
                  f"granted the scopes the credential holds ({storage.tokens.scope})")
            tools = await c.list_tools()
            check("legacy_query" in {t.name for t in tools.tools}, "tools/list over the token")
            r = await c.call_tool("legacy_query", {"sql": "SELECT Slug FROM brand ORDER BY Slug"})
            check(not r.is_error and len(text_json(r)["rows"]) == 4, "legacy_query answers")


SCENARIOS = {
    "streamable-session": lambda: streamable("legacy"),
    "streamable-2025-06-18": lambda: streamable("legacy", "2025-06-18"),
    "streamable-2025-03-26": lambda: streamable("legacy", "2025-03-26"),
    "streamable-2024-11-05": lambda: streamable("legacy", "2024-11-05"),
    "streamable-2026": lambda: streamable("2026-07-28"),
    "streamable-auto": lambda: streamable("auto"),
    "sse": sse,
    "timeline-reader": timeline_reader,
    "refused": refused,
    "bad-token": bad_token,
    "oauth": oauth,
    "client-credentials": client_credentials,
}

asyncio.run(SCENARIOS[SCENARIO]())
print("PASS", SCENARIO)

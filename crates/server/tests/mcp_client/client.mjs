// The MCP server driven by the official TypeScript SDK (@modelcontextprotocol/sdk from npm),
// as the MCP Inspector and the conformance suite drive it: Streamable HTTP with a bearer
// token, the tool list, tool calls whose structuredContent the SDK validates against each
// tool's outputSchema, and protocol errors read as JSON-RPC errors (-32601, -32602), not as
// transport failures.
//
// usage: node client.mjs <npm prefix holding the SDK> <base URL> <token>; prints PASS.

const [prefix, base, token] = process.argv.slice(2);
const sdk = (path) => import(`${prefix}/node_modules/@modelcontextprotocol/sdk/dist/esm/${path}`);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { McpError } = await sdk("types.js");
const { z } = await import(`${prefix}/node_modules/zod/index.js`);

function check(cond, what) {
  if (!cond) {
    console.error(`FAIL: ${what}`);
    process.exit(1);
  }
}

/// The JSON-RPC error code `promise` rejects with (it must reject with an McpError).
async function rpcCode(promise, what) {
  try {
    await promise;
  } catch (e) {
    check(e instanceof McpError, `${what}: an McpError, not ${e?.constructor?.name}: ${e}`);
    return e.code;
  }
  check(false, `${what} succeeded`);
}

const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "pp-ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
check(client.getServerVersion()?.name === "partner-platform", "server info");

const { tools } = await client.listTools();
check(tools.length >= 30, `every tool listed (${tools.length})`);
for (const t of tools) {
  check(t.outputSchema?.type === "object", `${t.name} has an outputSchema`);
}
const retire = tools.find((t) => t.name === "context_set_brand_lifecycle");
check(retire?.annotations?.destructiveHint === true, "retiring a brand is marked destructive");

// results the SDK checks against each tool's outputSchema (it throws when they disagree)
for (const [name, args] of [
  ["timeline_list", { limit: 5 }],
  ["context_list_docs", {}],
  ["warehouse_list_tables", {}],
  ["warehouse_describe_table", { table: "seller" }],
  ["legacy_query", { sql: "SELECT ID, Marketplace FROM seller" }],
  ["marketplace_list_merchants", {}],
  ["marketplace_spapi_operations", { prefix: "orders." }],
  ["marketplace_ads_profiles", {}],
]) {
  const r = await client.callTool({ name, arguments: args });
  check(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  check(r.structuredContent !== undefined, `${name} has structuredContent`);
}

// protocol errors arrive as JSON-RPC errors the SDK reads
check((await rpcCode(client.request({ method: "nope/method", params: {} }, z.object({})), "an unknown method")) === -32601, "unknown method is -32601");
check((await rpcCode(client.callTool({ name: "no_such_tool", arguments: {} }), "an unknown tool")) === -32602, "unknown tool is -32602");
check((await rpcCode(client.setLoggingLevel("info"), "logging/setLevel")) === -32601, "an undeclared method is -32601");
// and the session still works after them
check((await client.listTools()).tools.length === tools.length, "the session lives on");

await client.close();
console.log("PASS");

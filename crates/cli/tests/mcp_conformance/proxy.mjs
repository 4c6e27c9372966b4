// A pass-through HTTP proxy that signs every request with a bearer token: the MCP conformance
// suite's client sends no credential, and the gateway's MCP server requires one. Headers
// (Host and Origin included), bodies and event streams go through unchanged.
//
// usage: node proxy.mjs <upstream base URL> <token>; prints "listening <port>" once ready.
import http from "node:http";

const [upstream, token] = process.argv.slice(2);
const target = new URL(upstream);

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const up = http.request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    },
  );
  up.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(`proxy: ${e.message}`);
  });
  res.on("close", () => up.destroy());
  req.pipe(up);
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));

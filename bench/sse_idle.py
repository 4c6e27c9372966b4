"""Opens N legacy MCP SSE streams (GET /mcp/sse) and holds them idle: the load for measuring
the gateway's resident memory per open stream. Standard library only.

    python3 bench/sse_idle.py HOST PORT TOKEN N HOLD_SECONDS

Prints "open N" once every stream has its endpoint event, then holds them for HOLD_SECONDS.
"""

import asyncio
import sys

HOST, PORT, TOKEN, N, HOLD = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])


async def one(i, ready):
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write(
        f"GET /mcp/sse HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    seen = b""
    while b"event: endpoint" not in seen:
        chunk = await reader.read(4096)
        if not chunk:
            raise SystemExit(f"stream {i} closed early: {seen[:200]!r}")
        seen += chunk
    ready.append(i)
    return reader, writer


async def main():
    ready = []
    conns = []
    for start in range(0, N, 100):  # open in waves so the listener's backlog never overflows
        conns += await asyncio.gather(*(one(i, ready) for i in range(start, min(N, start + 100))))
    print(f"open {len(ready)}", flush=True)
    await asyncio.sleep(HOLD)
    for _, w in conns:
        w.close()


asyncio.run(main())

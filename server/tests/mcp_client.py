"""The official MCP Python SDK as a client of Airlock over stdio.

    python mcp_client.py leave <tool> <arguments-json>

starts `$AIRLOCK_BINARY mcp` (with `--config $AIRLOCK_MCP_CONFIG` when set),
asks for the call and, once a line comes on its own standard input, leaves
mid-call as a program using the SDK does: its `stdio_client` block ends
with the call in flight, and the SDK closes the server's input, then sends
SIGTERM 2 s later. Prints one JSON line: `left`, how long leaving took, and
the answer if one came first.
"""

import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def main() -> None:
    command, tool, arguments = sys.argv[1:4]
    assert command == "leave", f"unknown command {command}"
    config = os.environ.get("AIRLOCK_MCP_CONFIG")
    server = StdioServerParameters(
        command=os.environ["AIRLOCK_BINARY"],
        args=["mcp", "--config", config] if config else ["mcp"],
        env=dict(os.environ),
    )
    answered = "not answered"
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            async with anyio.create_task_group() as calls:

                async def ask() -> None:
                    nonlocal answered
                    result = await session.call_tool(tool, json.loads(arguments))
                    answered = result.model_dump(mode="json")

                calls.start_soon(ask)
                await anyio.to_thread.run_sync(sys.stdin.readline)
                started = time.monotonic()
                calls.cancel_scope.cancel()
    closed_ms = int((time.monotonic() - started) * 1000)
    print(json.dumps({"left": True, "closed_ms": closed_ms, "answered": answered}))


anyio.run(main)

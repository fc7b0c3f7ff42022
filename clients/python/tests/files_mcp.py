"""An MCP server (the official SDK's MCPServer, over stdio) with the file
tools, writing under the folder `FILES_ROOT` names, whatever path it is given."""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("files")
root = Path(os.environ["FILES_ROOT"])


def _under_root(path: str) -> Path:
    return root / path.lstrip("/")


@server.tool()
def write_file(path: str, content: str) -> str:
    """Writes a file."""
    target = _under_root(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    return f"wrote {content!r} to {path}"


@server.tool()
def read_file(path: str) -> str:
    """Reads a file."""
    return f"contents of {path}"


if __name__ == "__main__":
    server.run("stdio")

"""Agno's tool hooks, asking Airlock: an agent whose model is scripted behind
an OpenAI-compatible endpoint on loopback, against a real Airlock."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from agno.agent import Agent
from agno.models.openai import OpenAIChat
from conftest import KEY, Server
from scripted_model import ScriptedModel

from airlock_client import Airlock, AsyncAirlock
from airlock_client.agno import airlock_hook

ran: List[Dict[str, Any]] = []


def write_file(path: str, content: str) -> str:
    """Writes a file."""
    ran.append({"path": path, "content": content})
    return f"wrote {content!r} to {path}"


@pytest.fixture
def calls(session_id: str) -> List[Dict[str, Any]]:
    ran.clear()
    return [
        {"name": "write_file", "args": {"path": f"{session_id}.txt", "content": "draft"}},
        {"name": "write_file", "args": {"path": f"{session_id}.old", "content": "x"}},
        {"name": "write_file", "args": {"path": "/etc/passwd", "content": "x"}},
        {"name": "read_file", "args": {"path": "a"}},
    ]


@pytest.fixture
def model(calls: List[Dict[str, Any]]) -> Iterator[ScriptedModel]:
    scripted = ScriptedModel(calls)
    for url in scripted.serve():
        scripted.url = url  # type: ignore[attr-defined]
        yield scripted


def decide(server: Server, calls: List[Dict[str, Any]]) -> None:
    edited = dict(calls[0]["args"], content="final")

    def person() -> None:
        waiting = server.waiting_call("write_file", calls[0]["args"])
        server.press("edit_call", call_id=waiting["id"], arguments=json.dumps(edited))
        waiting = server.waiting_call("write_file", calls[1]["args"])
        server.press("reject_call", call_id=waiting["id"], reason="keep it")

    threading.Thread(target=person, daemon=True).start()


def read_file(path: str) -> str:
    """Reads a file."""
    return f"contents of {path}"


def check(model: ScriptedModel, calls: List[Dict[str, Any]]) -> None:
    said = model.tool_results()
    assert said["call_0"] == f"wrote 'final' to {calls[0]['args']['path']}"
    assert said["call_1"] == "This call was rejected: keep it. It did not run."
    assert "matched rule 1: write_file /path glob /etc/**" in said["call_2"]
    assert said["call_3"] == "contents of a"
    assert ran == [{"path": calls[0]["args"]["path"], "content": "final"}]


# Given either kind of client, the hook asks under `run`: Agno would skip an
# `async def` hook there and run the tool unasked.
@pytest.mark.parametrize("given", ["blocking", "asyncio"])
def test_a_hooked_agent_runs_calls_as_decided(
    server: Server,
    model: ScriptedModel,
    calls: List[Dict[str, Any]],
    session_id: str,
    given: str,
) -> None:
    decide(server, calls)
    if given == "blocking":
        hook = airlock_hook(source="files", airlock=Airlock(server.url, KEY))
    else:
        hook = airlock_hook(source="files", async_airlock=AsyncAirlock(server.url, KEY))
    agent = Agent(
        model=OpenAIChat(id="scripted", base_url=model.url, api_key="x"),  # type: ignore[attr-defined]
        tools=[write_file, read_file],
        tool_hooks=[hook],
        session_id=session_id,
    )
    agent.run("tidy up")
    check(model, calls)


def test_the_same_hook_asks_for_an_agent_run_with_arun(
    server: Server, model: ScriptedModel, calls: List[Dict[str, Any]], session_id: str
) -> None:
    decide(server, calls)
    agent = Agent(
        model=OpenAIChat(id="scripted", base_url=model.url, api_key="x"),  # type: ignore[attr-defined]
        tools=[write_file, read_file],
        tool_hooks=[airlock_hook(source="files", async_airlock=AsyncAirlock(server.url, KEY))],
        session_id=session_id,
    )
    asyncio.run(agent.arun("tidy up"))
    check(model, calls)


def test_a_cancelled_arun_withdraws_the_waiting_call(server: Server, session_id: str) -> None:
    """An async tool is asked about on the run's loop, so cancelling the run
    withdraws the call. (A plain function tool is run, hook and all, on a
    worker thread that Agno cannot stop: its call waits on until decided.)"""
    ran.clear()
    args = {"path": f"{session_id}.cancelled", "content": "x"}
    scripted = ScriptedModel([{"name": "write_file", "args": args}])

    async def write_file(path: str, content: str) -> str:  # noqa: F811 - the same tool, async
        """Writes a file."""
        ran.append({"path": path, "content": content})
        return f"wrote {content!r} to {path}"

    async def scenario(url: str) -> str:
        agent = Agent(
            model=OpenAIChat(id="scripted", base_url=url, api_key="x"),
            tools=[write_file],
            tool_hooks=[airlock_hook(source="files", async_airlock=AsyncAirlock(server.url, KEY))],
            session_id=session_id,
        )
        running = asyncio.ensure_future(agent.arun("tidy up"))
        waiting = await asyncio.to_thread(server.waiting_call, "write_file", args)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        return str(waiting["id"])

    for url in scripted.serve():
        decided = server.call(asyncio.run(scenario(url)))
    assert decided["status"] == "cancelled"
    assert decided["decision"]["reason"] == "the agent's task was cancelled"
    assert ran == []


def test_an_agents_mcp_tools_are_hooked_too(
    server: Server,
    model: ScriptedModel,
    calls: List[Dict[str, Any]],
    session_id: str,
    tmp_path: Path,
) -> None:
    """Airlock's policy for the tools of an MCP server, in place of the
    include and exclude lists MCPTools would otherwise keep."""
    from agno.tools.mcp import MCPTools

    decide(server, calls)
    ran_by_mcp = tmp_path / "written"
    script = Path(__file__).with_name("files_mcp.py")
    hook = airlock_hook(source="files", async_airlock=AsyncAirlock(server.url, KEY))

    async def run() -> None:
        env = dict(os.environ, FILES_ROOT=str(ran_by_mcp))
        async with MCPTools(f"{sys.executable} {script}", env=env) as files:
            agent = Agent(
                model=OpenAIChat(id="scripted", base_url=model.url, api_key="x"),  # type: ignore[attr-defined]
                tools=[files],
                tool_hooks=[hook],
                session_id=session_id,
            )
            await agent.arun("tidy up")

    asyncio.run(run())
    said = model.tool_results()
    assert said["call_1"] == "This call was rejected: keep it. It did not run."
    assert "matched rule 1: write_file /path glob /etc/**" in said["call_2"]
    assert "contents of a" in said["call_3"]
    written = sorted(str(p.relative_to(ran_by_mcp)) for p in ran_by_mcp.rglob("*") if p.is_file())
    assert written == [calls[0]["args"]["path"]]
    assert (ran_by_mcp / calls[0]["args"]["path"]).read_text() == "final"

"""The OpenAI Agents SDK's function tools, gated by Airlock: an agent with a
scripted model (no network) against a real Airlock."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List

import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.exceptions import UserError
from agents.testing import ScriptedModel, assistant_message, function_call
from conftest import KEY, Server

from airlock_client import AsyncAirlock, Unreachable
from airlock_client.openai_agents import airlock_tools

set_tracing_disabled(True)
ran: List[Dict[str, Any]] = []


@function_tool
def write_file(path: str, content: str) -> str:
    """Writes a file."""
    ran.append({"path": path, "content": content})
    return f"wrote {content!r} to {path}"


def agent(airlock: AsyncAirlock, calls: List[Dict[str, Any]]) -> Agent[Any]:
    first = [function_call("write_file", c, call_id=f"call_{n}") for n, c in enumerate(calls)]
    model = ScriptedModel([first, [assistant_message("done")]])
    tools = airlock_tools([write_file], source="files", airlock=airlock)
    return Agent(name="files", model=model, tools=list(tools))


def outputs(result: Any) -> Dict[str, str]:
    return {
        item.raw_item["call_id"]: str(item.output)
        for item in result.new_items
        if type(item).__name__ == "ToolCallOutputItem"
    }


def test_calls_run_as_decided_and_the_model_reads_each_refusal(
    server: Server, session_id: str
) -> None:
    ran.clear()
    asked = {"path": f"{session_id}.txt", "content": "draft"}
    edited = {"path": asked["path"], "content": "final"}
    rejected = {"path": f"{session_id}.old", "content": "x"}
    denied = {"path": "/etc/passwd", "content": "x"}

    def person() -> None:
        waiting = server.waiting_call("write_file", asked)
        server.press("edit_call", call_id=waiting["id"], arguments=json.dumps(edited))
        waiting = server.waiting_call("write_file", rejected)
        server.press("reject_call", call_id=waiting["id"], reason="keep it")

    threading.Thread(target=person, daemon=True).start()
    airlock = AsyncAirlock(server.url, KEY)
    result = asyncio.run(Runner.run(agent(airlock, [asked, rejected, denied]), "tidy up"))
    said = outputs(result)
    assert said["call_0"] == f"wrote 'final' to {asked['path']}"
    assert said["call_1"] == "This call was rejected: keep it. It did not run."
    assert "matched rule 1: write_file /path glob /etc/**" in said["call_2"]
    assert ran == [edited]
    assert result.final_output == "done"


def test_a_cancelled_run_withdraws_the_waiting_call(server: Server, session_id: str) -> None:
    ran.clear()
    asked = {"path": f"{session_id}.tmp", "content": "x"}

    async def scenario() -> str:
        airlock = AsyncAirlock(server.url, KEY)
        running = asyncio.ensure_future(Runner.run(agent(airlock, [asked]), "go"))
        waiting = await asyncio.to_thread(server.waiting_call, "write_file", asked)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        # The SDK cancels the tool's own task as the run ends: the call is
        # withdrawn from there, while the loop still runs.
        while server.call(str(waiting["id"]))["status"] != "cancelled":
            await asyncio.sleep(0.05)
        return str(waiting["id"])

    call = server.call(asyncio.run(scenario()))
    assert call["decision"]["reason"] == "the agent's task was cancelled"
    assert ran == []


def test_an_unreachable_airlock_runs_nothing() -> None:
    ran.clear()
    airlock = AsyncAirlock("http://127.0.0.1:9", KEY)
    # The SDK wraps what a tool raises in its own error; Airlock's is the cause.
    with pytest.raises(UserError) as failed:
        asyncio.run(Runner.run(agent(airlock, [{"path": "a", "content": "b"}]), "go"))
    assert isinstance(failed.value.__cause__, Unreachable)
    assert ran == []

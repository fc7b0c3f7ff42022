"""The asyncio client against a real Airlock: the same answers, and a
cancelled task withdraws its call."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest
from conftest import KEY, Server

from airlock_client import AsyncAirlock, Outcome, Rejected


def test_an_async_guard_runs_with_the_edits_and_stops_at_a_rejection(
    server: Server, session_id: str
) -> None:
    ran: List[Dict[str, Any]] = []

    async def scenario() -> None:
        airlock = AsyncAirlock(server.url, KEY)

        @airlock.guard(source="files", session_id=session_id)
        async def write_file(path: str, content: str) -> str:
            ran.append({"path": path, "content": content})
            return "written"

        asked = {"path": f"{session_id}.md", "content": "v1"}

        async def person() -> None:
            call = await asyncio.to_thread(server.waiting_call, "write_file", asked)
            edits = json.dumps({"path": asked["path"], "content": "v2"})
            await asyncio.to_thread(server.press, "edit_call", call_id=call["id"], arguments=edits)

        deciding = asyncio.ensure_future(person())
        assert await write_file(**asked) == "written"
        await deciding
        assert ran == [{"path": asked["path"], "content": "v2"}]

        asked = {"path": f"{session_id}.old", "content": "x"}

        async def rejecter() -> None:
            call = await asyncio.to_thread(server.waiting_call, "write_file", asked)
            await asyncio.to_thread(
                server.press, "reject_call", call_id=call["id"], reason="keep it"
            )

        deciding = asyncio.ensure_future(rejecter())
        with pytest.raises(Rejected) as rejected:
            await write_file(**asked)
        await deciding
        assert rejected.value.reason == "keep it" and len(ran) == 1
        await airlock.aclose()

    asyncio.run(scenario())


def test_a_cancelled_task_withdraws_its_call(server: Server, session_id: str) -> None:
    arguments = {"path": f"{session_id}-cancelled"}

    async def scenario() -> Dict[str, Any]:
        async with AsyncAirlock(server.url, KEY) as airlock:
            asking = asyncio.ensure_future(
                airlock.ask("delete_file", arguments, source="files", session_id=session_id)
            )
            call = await asyncio.to_thread(server.waiting_call, "delete_file", arguments)
            asking.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asking
            return call

    call = server.call(asyncio.run(scenario())["id"])
    assert call["status"] == "cancelled"
    assert call["decision"]["reason"] == "the agent's task was cancelled"


def test_an_allowed_call_is_a_decision_at_once(server: Server) -> None:
    async def scenario() -> None:
        async with AsyncAirlock(server.url, KEY) as airlock:
            decision = await airlock.ask("read_file", {"path": "b"}, source="files")
            assert decision.outcome is Outcome.ALLOWED

    asyncio.run(scenario())

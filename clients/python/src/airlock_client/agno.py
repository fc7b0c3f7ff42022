"""Agno: a tool hook that asks Airlock before each tool call runs, MCP
toolkits' tools included, so Airlock's policy replaces hand-kept include and
exclude lists.

    from airlock_client.agno import airlock_hook

    agent = Agent(model=..., tools=[MCPTools(...)], tool_hooks=[airlock_hook(source="files")])

A call runs with the arguments decided (a person's edits applied); one that
may not run gives the model the reason as the tool's result. The agent's
session is the call's session in Airlock unless `session_id` says otherwise.

One hook serves `run` and `arun`: Agno skips an `async def` hook in `run`
with a warning and runs the tool unasked, so this one is a plain function
that asks at once when no event loop runs, and otherwise returns the asking
as a coroutine, which Agno's `arun` awaits.
"""

from __future__ import annotations

import asyncio
from inspect import isawaitable
from typing import Any, Callable, Dict, List, Optional

from .aio import AsyncAirlock
from .client import Airlock
from .decision import Decision
from .errors import Refused

Hook = Callable[..., Any]


def airlock_hook(
    *,
    source: str,
    airlock: Optional[Airlock] = None,
    async_airlock: Optional[AsyncAirlock] = None,
    session_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    wait: Optional[float] = None,
) -> Hook:
    """A tool hook for agents run with `run` or `arun`; under `arun`, a
    cancelled run withdraws the waiting call."""
    blocking: List[Airlock] = [airlock] if airlock else []
    asynchronous: List[AsyncAirlock] = [async_airlock] if async_airlock else []

    def airlock_gate(
        function_name: str,
        function_call: Callable[..., Any],
        arguments: Dict[str, Any],
        run_context: Any = None,
    ) -> Any:
        ask: Dict[str, Any] = {
            "source": source,
            "session_id": session_id or getattr(run_context, "session_id", None),
            "agent_id": agent_id,
            "wait": wait,
        }
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if not blocking:
                blocking.append(Airlock.like(async_airlock))
            try:
                decision = blocking[0].ask(function_name, arguments, **ask)
            except Refused as refused:
                return refused.why_not
            return _run(decision, function_call, arguments)

        async def asking() -> Any:
            if not asynchronous:
                asynchronous.append(AsyncAirlock.like(airlock))
            try:
                decision = await asynchronous[0].ask(function_name, arguments, **ask)
            except Refused as refused:
                return refused.why_not
            result = _run(decision, function_call, arguments)
            return await result if isawaitable(result) else result

        return asking()

    return airlock_gate


def _run(decision: Decision, function_call: Callable[..., Any], arguments: Dict[str, Any]) -> Any:
    """The tool's result, or why it did not run. Agno runs a tool with the
    call's own arguments, whatever a hook passes on: a person's edits are
    written into them."""
    if not decision.runs:
        return decision.why_not
    arguments.clear()
    arguments.update(decision.arguments)
    return function_call(**decision.arguments)

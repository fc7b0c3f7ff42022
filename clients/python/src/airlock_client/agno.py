"""Agno: a tool hook that asks Airlock before each tool call runs, MCP
toolkits' tools included, so Airlock's policy replaces hand-kept include and
exclude lists.

    from airlock_client.agno import airlock_hook

    agent = Agent(model=..., tools=[MCPTools(...)], tool_hooks=[airlock_hook(source="files")])

A call runs with the arguments decided (a person's edits applied); one that
may not run gives the model the reason as the tool's result. The agent's
session is the call's session in Airlock unless `session_id` says otherwise.
`airlock_ahook` is the same for agents run with `arun`.
"""

from __future__ import annotations

from inspect import isawaitable
from typing import Any, Callable, Dict, Optional

from .aio import AsyncAirlock
from .client import Airlock
from .decision import Decision
from .errors import Refused

Hook = Callable[..., Any]


def airlock_hook(
    *,
    source: str,
    airlock: Optional[Airlock] = None,
    session_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    wait: Optional[float] = None,
) -> Hook:
    """A tool hook for agents run with `run` (blocking)."""
    clients = [airlock] if airlock else []

    def airlock_gate(
        function_name: str,
        function_call: Callable[..., Any],
        arguments: Dict[str, Any],
        run_context: Any = None,
    ) -> Any:
        if not clients:
            clients.append(Airlock())
        session = session_id or getattr(run_context, "session_id", None)
        try:
            decision = clients[0].ask(
                function_name,
                arguments,
                source=source,
                session_id=session,
                agent_id=agent_id,
                wait=wait,
            )
        except Refused as refused:
            return refused.why_not
        if not decision.runs:
            return decision.why_not
        _decided(arguments, decision)
        return function_call(**decision.arguments)

    return airlock_gate


def airlock_ahook(
    *,
    source: str,
    airlock: Optional[AsyncAirlock] = None,
    session_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    wait: Optional[float] = None,
) -> Hook:
    """A tool hook for agents run with `arun` (asyncio); a cancelled run
    withdraws the waiting call."""
    clients = [airlock] if airlock else []

    async def airlock_gate(
        function_name: str,
        function_call: Callable[..., Any],
        arguments: Dict[str, Any],
        run_context: Any = None,
    ) -> Any:
        if not clients:
            clients.append(AsyncAirlock())
        session = session_id or getattr(run_context, "session_id", None)
        try:
            decision = await clients[0].ask(
                function_name,
                arguments,
                source=source,
                session_id=session,
                agent_id=agent_id,
                wait=wait,
            )
        except Refused as refused:
            return refused.why_not
        if not decision.runs:
            return decision.why_not
        _decided(arguments, decision)
        result = function_call(**decision.arguments)
        return await result if isawaitable(result) else result

    return airlock_gate


def _decided(arguments: Dict[str, Any], decision: Decision) -> None:
    """Agno runs the tool with the call's own arguments, whatever the hook
    passes on: a person's edits are written into them."""
    arguments.clear()
    arguments.update(decision.arguments)

"""The OpenAI Agents SDK: function tools whose calls Airlock decides.

    from airlock_client.openai_agents import airlock_tools

    agent = Agent(name="ops", tools=airlock_tools([delete_file], source="files"))

Each call asks Airlock when the agent makes it, and waits there for a person
when the policy says so: it runs with the arguments decided (a person's edits
applied, which the SDK's own `approve()` cannot do), or the model reads why it
did not run as the tool's output. A cancelled run withdraws the waiting call.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, List, Optional, Sequence

from agents import FunctionTool
from agents.tool_context import ToolContext

from .aio import AsyncAirlock
from .errors import Refused


def airlock_tools(
    tools: Sequence[FunctionTool],
    *,
    source: str,
    airlock: Optional[AsyncAirlock] = None,
    session_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    wait: Optional[float] = None,
) -> List[FunctionTool]:
    """Copies of `tools` whose calls Airlock's `source` policy decides first.
    Airlock decides instead of the SDK's `needs_approval`, which the copies
    leave off. `wait` bounds each wait in seconds (then `StillWaiting`)."""
    clients: List[AsyncAirlock] = [airlock] if airlock else []

    def gated(tool: FunctionTool) -> FunctionTool:
        run = tool.on_invoke_tool

        async def ask_first(context: ToolContext[Any], arguments: str) -> Any:
            if not clients:
                clients.append(AsyncAirlock())
            try:
                decision = await clients[0].ask(
                    tool.name,
                    json.loads(arguments or "{}"),
                    source=source,
                    session_id=session_id,
                    agent_id=agent_id,
                    wait=wait,
                )
            except Refused as refused:
                return refused.why_not
            if not decision.runs:
                return decision.why_not
            return await run(context, json.dumps(decision.arguments))

        return dataclasses.replace(tool, on_invoke_tool=ask_first, needs_approval=False)

    return [gated(tool) for tool in tools]

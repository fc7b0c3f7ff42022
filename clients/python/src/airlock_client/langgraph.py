"""LangGraph: a `ToolNode` whose calls ask Airlock before they run.

    from airlock_client.langgraph import airlock_tool_node

    tools = airlock_tool_node([delete_file, read_file], source="files")
    graph.add_node("tools", tools)

A call Airlock allows runs with the arguments decided (a person's edits
applied); one it does not comes back to the model as an error `ToolMessage`
with the reason. The wait happens inside the node. When the graph has a store
(`compile(store=…)`, a durable one for restarts), each waiting call is kept in
it under its thread and tool call, so a node run again after a restart, or
after the wait given ran out (`StillWaiting`), waits on the same call in
Airlock instead of asking again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from langchain_core.messages import ToolMessage
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from .aio import AsyncAirlock
from .client import Airlock
from .decision import Decision, Pending
from .errors import Refused

Answer = Union[ToolMessage, "Command[Any]"]


def airlock_tool_node(
    tools: Sequence[Any],
    *,
    source: str,
    airlock: Optional[Airlock] = None,
    async_airlock: Optional[AsyncAirlock] = None,
    session_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    wait: Optional[float] = None,
    **tool_node: Any,
) -> ToolNode:
    """A `ToolNode` of `tools` whose calls Airlock's `source` policy decides.

    `session_id` defaults to the graph's thread, so a thread's calls are one
    conversation in Airlock. `wait` bounds each wait in seconds (then
    `StillWaiting` ends the run; run it again to pick the call up). Both the
    blocking and the asyncio paths are gated, whichever the graph uses."""
    gate = _Gate(airlock, async_airlock, source, session_id, agent_id, wait)
    return ToolNode(tools, wrap_tool_call=gate.run, awrap_tool_call=gate.arun, **tool_node)


@dataclasses.dataclass
class _Gate:
    airlock: Optional[Airlock]
    async_airlock: Optional[AsyncAirlock]
    source: str
    session_id: Optional[str]
    agent_id: Optional[str]
    wait: Optional[float]

    def run(self, request: ToolCallRequest, execute: Any) -> Answer:
        airlock = self.airlock = self.airlock or Airlock.like(self.async_airlock)
        name, args, kept = self._call(request)
        if kept is not None:
            decision = airlock.wait(kept, timeout=self.wait)
        else:
            try:
                asked = airlock.request(name, args, **self._ask(request))
            except Refused as refused:
                return _refusal(request, refused.why_not)
            if isinstance(asked, Pending):
                self._keep(request, asked)
                asked = airlock.wait(asked, timeout=self.wait)
            decision = asked
        return _answer(request, decision, execute)

    async def arun(self, request: ToolCallRequest, execute: Any) -> Answer:
        airlock = self.async_airlock = self.async_airlock or AsyncAirlock.like(self.airlock)
        name, args, kept = self._call(request)
        if kept is not None:
            decision = await airlock.wait(kept, timeout=self.wait)
        else:
            try:
                asked = await airlock.request(name, args, **self._ask(request))
            except Refused as refused:
                return _refusal(request, refused.why_not)
            if isinstance(asked, Pending):
                self._keep(request, asked)
                asked = await airlock.wait(asked, timeout=self.wait)
            decision = asked
        if not decision.runs:
            return _refusal(request, decision.why_not)
        answer: Answer = await execute(_decided(request, decision))
        return answer

    def _call(self, request: ToolCallRequest) -> Tuple[str, Dict[str, Any], Optional[Pending]]:
        """The call's name and arguments, and the waiting call kept for it."""
        call = request.tool_call
        store, where = _where(request)
        kept = store.get(*where) if store is not None else None
        pending = Pending(**kept.value) if kept is not None else None
        return call["name"], dict(call["args"]), pending

    def _ask(self, request: ToolCallRequest) -> Dict[str, Any]:
        thread = _thread(request)
        # The thread and the tool call name one call for good: a run that
        # died before keeping its case gets the same case back when resumed.
        key = f"langgraph/{thread}/{request.tool_call['id']}" if thread is not None else None
        return {
            "source": self.source,
            "session_id": self.session_id or (str(thread) if thread is not None else None),
            "agent_id": self.agent_id,
            "idempotency_key": key,
        }

    @staticmethod
    def _keep(request: ToolCallRequest, pending: Pending) -> None:
        store, where = _where(request)
        if store is not None:
            store.put(*where, dataclasses.asdict(pending))


def _answer(request: ToolCallRequest, decision: Decision, execute: Any) -> Answer:
    if not decision.runs:
        return _refusal(request, decision.why_not)
    answer: Answer = execute(_decided(request, decision))
    return answer


def _decided(request: ToolCallRequest, decision: Decision) -> ToolCallRequest:
    """The call as decided: a person's edits applied."""
    call = request.tool_call.copy()
    call["args"] = decision.arguments
    return request.override(tool_call=call)


def _refusal(request: ToolCallRequest, why: str) -> ToolMessage:
    call = request.tool_call
    return ToolMessage(content=why, tool_call_id=call["id"], name=call["name"], status="error")


def _thread(request: ToolCallRequest) -> Optional[Any]:
    return (request.runtime.config.get("configurable") or {}).get("thread_id")


def _where(request: ToolCallRequest) -> Tuple[Any, Tuple[Tuple[str, ...], str]]:
    """The graph's store, and where a call's case is kept in it."""
    namespace = ("airlock", str(_thread(request)))
    return request.runtime.store, (namespace, str(request.tool_call["id"]))


__all__ = ["airlock_tool_node"]

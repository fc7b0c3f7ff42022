"""LangGraph's ToolNode, gated by Airlock: a graph with a scripted model (no
network) against a real Airlock."""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, List

import httpx
import pytest
from conftest import KEY, Server
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import tools_condition
from langgraph.store.memory import InMemoryStore

from airlock_client import Airlock, StillWaiting, Unreachable
from airlock_client.langgraph import airlock_tool_node

ran: List[Dict[str, Any]] = []


@tool
def delete_file(path: str) -> str:
    """Deletes a file."""
    ran.append({"delete_file": path})
    return f"deleted {path}"


@tool
def write_file(path: str, content: str) -> str:
    """Writes a file."""
    ran.append({"write_file": path, "content": content})
    return f"wrote {content!r} to {path}"


def call(name: str, args: Dict[str, Any], n: int) -> Dict[str, Any]:
    return {"name": name, "args": args, "id": f"call_{n}", "type": "tool_call"}


def graph(airlock: Airlock, calls: List[Dict[str, Any]], wait: Any = None) -> Any:
    """The model asks for `calls` at once, then says it is done."""

    def model(state: MessagesState) -> Dict[str, List[AnyMessage]]:
        if any(isinstance(m, ToolMessage) for m in state["messages"]):
            return {"messages": [AIMessage("done")]}
        return {"messages": [AIMessage("", tool_calls=calls)]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    tools = [delete_file, write_file]
    builder.add_node("tools", airlock_tool_node(tools, source="files", airlock=airlock, wait=wait))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=InMemorySaver(), store=InMemoryStore())


def tool_messages(result: Dict[str, Any]) -> Dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}


def test_calls_run_as_decided_and_the_model_reads_each_refusal(
    server: Server, session_id: str
) -> None:
    ran.clear()
    edited = {"path": f"{session_id}.txt", "content": "final"}
    calls = [
        call("write_file", {"path": f"{session_id}.txt", "content": "draft"}, 1),
        call("delete_file", {"path": f"{session_id}.log"}, 2),
        call("write_file", {"path": "/etc/passwd", "content": "x"}, 3),
    ]

    def person() -> None:
        waiting = server.waiting_call("write_file", calls[0]["args"])
        server.press("edit_call", call_id=waiting["id"], arguments=json.dumps(edited))
        waiting = server.waiting_call("delete_file", calls[1]["args"])
        server.press("reject_call", call_id=waiting["id"], reason="keep the log")

    threading.Thread(target=person, daemon=True).start()
    config = {"configurable": {"thread_id": session_id}}
    result = graph(Airlock(server.url, KEY), calls).invoke(
        {"messages": [HumanMessage("tidy up")]}, config
    )
    answers = tool_messages(result)
    assert answers["call_1"].content == "wrote 'final' to " + edited["path"]
    assert answers["call_2"].status == "error"
    assert "keep the log" in str(answers["call_2"].content)
    assert answers["call_3"].status == "error"
    assert "matched rule 1: write_file /path glob /etc/**" in str(answers["call_3"].content)
    assert ran == [{"write_file": edited["path"], "content": "final"}]
    assert result["messages"][-1].content == "done"


def test_a_run_again_waits_on_the_same_call_and_never_asks_twice(
    server: Server, session_id: str
) -> None:
    ran.clear()
    args = {"path": f"{session_id}.tmp"}
    airlock = Airlock(server.url, KEY)
    app = graph(airlock, [call("delete_file", args, 1)], wait=0.2)
    config = {"configurable": {"thread_id": session_id}}
    with pytest.raises(StillWaiting) as still:
        app.invoke({"messages": [HumanMessage("clean")]}, config)
    assert app.get_state(config).next == ("tools",)
    waiting = server.waiting_call("delete_file", args)
    server.press("approve_call", call_id=waiting["id"])

    result = app.invoke(None, config)
    assert tool_messages(result)["call_1"].content == f"deleted {args['path']}"
    assert ran == [{"delete_file": args["path"]}]
    decided = server.call(waiting["id"])
    assert decided["status"] in ("approved", "executed", "completed")
    assert still.value.case_id.startswith("review_")


def test_a_run_that_died_before_keeping_its_case_gets_the_same_case(
    server: Server, session_id: str
) -> None:
    ran.clear()
    args = {"path": f"{session_id}.lost"}
    airlock = Airlock(server.url, KEY)
    app = graph(airlock, [call("delete_file", args, 1)], wait=0.2)
    config = {"configurable": {"thread_id": session_id}}
    with pytest.raises(StillWaiting) as first:
        app.invoke({"messages": [HumanMessage("clean")]}, config)
    # As if the process died between asking and keeping the case.
    app.store.delete(("airlock", session_id), "call_1")
    with pytest.raises(StillWaiting) as again:
        app.invoke(None, config)
    assert again.value.case_id == first.value.case_id
    pending = httpx.get(f"{server.url}/api/v1/calls/pending", params={"tool": "delete_file"})
    assert [c["arguments"] for c in pending.json()["calls"]].count(args) == 1
    assert ran == []


def test_an_async_graph_is_gated_too(server: Server, session_id: str) -> None:
    import asyncio

    ran.clear()
    args = {"path": "/etc/hosts", "content": "x"}
    app = graph(Airlock(server.url, KEY), [call("write_file", args, 1)])
    config = {"configurable": {"thread_id": session_id}}
    result = asyncio.run(app.ainvoke({"messages": [HumanMessage("go")]}, config))
    assert tool_messages(result)["call_1"].status == "error"
    assert ran == []


def test_a_cancelled_async_run_withdraws_the_waiting_call(server: Server, session_id: str) -> None:
    import asyncio

    ran.clear()
    args = {"path": f"{session_id}.cancelled"}
    app = graph(Airlock(server.url, KEY), [call("delete_file", args, 1)])
    config = {"configurable": {"thread_id": session_id}}

    async def scenario() -> str:
        running = asyncio.ensure_future(app.ainvoke({"messages": [HumanMessage("go")]}, config))
        waiting = await asyncio.to_thread(server.waiting_call, "delete_file", args)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        return str(waiting["id"])

    call_id = asyncio.run(scenario())
    decided = server.call(call_id)
    assert decided["status"] == "cancelled"
    assert decided["decision"]["reason"] == "the agent's task was cancelled"
    assert ran == []


def test_an_unreachable_airlock_stops_the_run_and_nothing_runs(session_id: str) -> None:
    ran.clear()
    app = graph(Airlock("http://127.0.0.1:9", KEY), [call("delete_file", {"path": "a"}, 1)])
    with pytest.raises(Unreachable):
        app.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": session_id}})
    assert ran == []

"""AdalFlow's runner with Airlock's permission manager: an agent with a
scripted model client (no network) against a real Airlock."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List

import tiktoken

# AdalFlow loads OpenAI's tokenizer when it is imported, which downloads its
# table; these tests have no network, and only count tokens with it.
_bytes = tiktoken.Encoding(
    "bytes", pat_str=r".", mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={}
)
tiktoken.get_encoding = lambda name: _bytes

from adalflow.apps.permission_manager import ApprovalOutcome  # noqa: E402
from adalflow.components.agent import Agent  # noqa: E402
from adalflow.core.func_tool import FunctionTool  # noqa: E402
from adalflow.core.model_client import ModelClient  # noqa: E402
from adalflow.core.types import GeneratorOutput, ModelType  # noqa: E402
from conftest import KEY, Server  # noqa: E402

from airlock_client import AsyncAirlock  # noqa: E402
from airlock_client.adalflow import AirlockPermissionManager, AirlockRunner  # noqa: E402

ran: List[Dict[str, Any]] = []


def write_file(path: str, content: str) -> str:
    """Writes a file."""
    ran.append({"path": path, "content": content})
    return f"wrote {content!r} to {path}"


class ScriptedClient(ModelClient):  # type: ignore[misc]
    """Answers each step with the next planned call, then the final answer."""

    def __init__(self, calls: List[Dict[str, Any]]) -> None:
        super().__init__()
        self.steps = [self.step(c["name"], c["args"]) for c in calls]
        self.steps.append(self.step("finish", {}, final=True))

    @staticmethod
    def step(name: str, kwargs: Dict[str, Any], final: bool = False) -> str:
        answer = "done" if final else None
        plan = {"thought": "", "name": name, "kwargs": kwargs}
        return json.dumps({**plan, "_is_answer_final": final, "_answer": answer})

    def convert_inputs_to_api_kwargs(
        self, input: Any = None, model_kwargs: Any = None, model_type: Any = ModelType.UNDEFINED
    ) -> Dict[str, Any]:
        return {"input": input}

    def call(self, api_kwargs: Any = None, model_type: Any = ModelType.UNDEFINED) -> str:
        return self.steps.pop(0)

    async def acall(self, api_kwargs: Any = None, model_type: Any = ModelType.UNDEFINED) -> str:
        return self.call(api_kwargs, model_type)

    def parse_chat_completion(self, completion: Any) -> GeneratorOutput:
        return GeneratorOutput(data=completion, raw_response=completion)


def scenario(server: Server, session_id: str) -> Any:
    ran.clear()
    # "Always allow" comes last: Airlock lets such calls through from then on.
    calls = [
        {"name": "write_file", "args": {"path": f"{session_id}.txt", "content": "draft"}},
        {"name": "write_file", "args": {"path": f"{session_id}.old", "content": "x"}},
        {"name": "write_file", "args": {"path": "/etc/passwd", "content": "x"}},
        {"name": "write_file", "args": {"path": f"{session_id}.md", "content": "notes"}},
    ]
    edited = dict(calls[0]["args"], content="final")

    def person() -> None:
        waiting = server.waiting_call("write_file", calls[0]["args"])
        server.press("edit_call", call_id=waiting["id"], arguments=json.dumps(edited))
        waiting = server.waiting_call("write_file", calls[1]["args"])
        server.press("reject_call", call_id=waiting["id"], reason="keep it")
        waiting = server.waiting_call("write_file", calls[3]["args"])
        server.press("always_allow_call", call_id=waiting["id"], everywhere="false")

    threading.Thread(target=person, daemon=True).start()
    agent = Agent(
        name="files",
        tools=[FunctionTool(write_file)],
        model_client=ScriptedClient(calls),
        model_kwargs={"model": "scripted"},
        max_steps=6,
        use_cache=False,
    )
    manager = AirlockPermissionManager(
        source="files", airlock=AsyncAirlock(server.url, KEY), session_id=session_id
    )
    return calls, edited, manager, AirlockRunner(agent=agent, permission_manager=manager)


def check(result: Any, manager: AirlockPermissionManager, calls: List[Any], edited: Any) -> None:
    seen = [step.observation for step in result.step_history]
    assert seen[0] == f"wrote 'final' to {edited['path']}"
    assert seen[1] == "This call was rejected: keep it. It did not run."
    assert "matched rule 1: write_file /path glob /etc/**" in seen[2]
    assert seen[3] == f"wrote 'notes' to {calls[3]['args']['path']}"
    assert list(manager.outcomes.values()) == [
        ApprovalOutcome.PROCEED_ONCE,
        ApprovalOutcome.CANCEL,
        ApprovalOutcome.CANCEL,
        ApprovalOutcome.PROCEED_ALWAYS,
    ]
    assert ran == [edited, calls[3]["args"]]
    assert result.answer == "done"


def test_the_blocking_runner_takes_airlocks_outcomes(server: Server, session_id: str) -> None:
    calls, edited, manager, runner = scenario(server, session_id)
    check(runner.call(prompt_kwargs={"input_str": "tidy up"}), manager, calls, edited)


def test_the_async_runner_takes_airlocks_outcomes(server: Server, session_id: str) -> None:
    calls, edited, manager, runner = scenario(server, session_id)
    result = asyncio.run(runner.acall(prompt_kwargs={"input_str": "tidy up"}))
    check(result, manager, calls, edited)

"""Scripted Google ADK agent served over A2A, for tool-confirmation tests.

Runs fully offline: the LLM is a scripted ``BaseLlm`` subclass, no API key or
network is needed.

Usage:
        python adk_agent.py [--payload-reason]

Binds a free port on 127.0.0.1, starts listening, prints one JSON line
``{"url": "http://127.0.0.1:<port>/"}`` on stdout and then serves the agent
with ADK's own A2A support (``google.adk.a2a.utils.agent_to_a2a.to_a2a``):
JSON-RPC at ``/`` (A2A v1.0 methods plus v0.3 compat methods) and the card at
``/.well-known/agent-card.json``.

Script of the model:
    * user text "delete a.txt and b.txt" -> one response with a ``delete_file``
        function call per path (each needs confirmation, so the A2A task stops in
        input-required with one ``adk_request_confirmation`` data part per call);
    * once function responses are in the request -> text summary built from
        them, e.g. "deleted a.txt; kept b.txt (This tool call is rejected.)";
    * any other user text -> "Hello from ADK.".

Tool modes:
    * default: ``FunctionTool(delete_file, require_confirmation=True)`` - ADK's
        built-in flow; a rejection reaches the model only as
        ``{"error": "This tool call is rejected."}`` (payload is dropped).
    * ``--payload-reason``: the tool calls ``tool_context.request_confirmation``
        itself and, on rejection, returns ``{"kept": path, "reason": ...}`` taken
        from ``toolConfirmation.payload.reason`` of the client's answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import sys
import warnings
from typing import Any, AsyncGenerator

warnings.filterwarnings("ignore")  # ADK marks A2A as experimental; keep quiet.

import uvicorn  # noqa: E402
from google.adk.a2a.utils.agent_to_a2a import to_a2a  # noqa: E402
from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.tools.function_tool import FunctionTool  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from google.genai import types  # noqa: E402

PAYLOAD_REASON = "--payload-reason" in sys.argv[1:]


def _text(parts: list[types.Part] | None) -> str:
    return "".join(p.text for p in parts or [] if p.text and not p.thought)


def _summary(responses: list[tuple[str, Any]]) -> str:
    """Builds "deleted a.txt; kept b.txt (reason)" from delete_file responses."""
    out = []
    for path, resp in responses:
        resp = resp if isinstance(resp, dict) else {"result": resp}
        if "deleted" in resp:
            out.append(f"deleted {resp['deleted']}")
        elif "requires confirmation" in str(resp.get("error", "")):
            out.append(f"{path} awaiting confirmation")  # answered only partially
        else:
            reason = resp.get("reason") or resp.get("error") or "not confirmed"
            out.append(f"kept {path} ({reason})")
    return "; ".join(out)


class ScriptedLlm(BaseLlm):
    """Deterministic stand-in for a real model (no network)."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        contents = llm_request.contents or []
        # Only look at the current turn: everything from the last user text on.
        start = max(
            (i for i, c in enumerate(contents) if c.role == "user" and _text(c.parts)),
            default=0,
        )
        turn = contents[start:]
        user_text = _text(turn[0].parts) if turn else ""
        # ADK strips its generated "adk-..." call ids before calling the model and
        # merges the latest response of each call into one content, in call order,
        # so responses are matched to calls by id when present, else by position.
        calls: list[tuple[str | None, str]] = []  # (id, path) in call order
        responses: list[tuple[str, Any]] = []  # from the last response content
        for content in turn[1:]:
            fcs = [p.function_call for p in content.parts or [] if p.function_call]
            calls += [
                (fc.id, (fc.args or {}).get("path", "?")) for fc in fcs if fc.name == "delete_file"
            ]
            frs = [
                p.function_response
                for p in content.parts or []
                if p.function_response and p.function_response.name == "delete_file"
            ]
            if frs:
                by_id = {cid: path for cid, path in calls if cid}
                responses = [
                    (by_id.get(fr.id) or (calls[i][1] if i < len(calls) else "?"), fr.response)
                    for i, fr in enumerate(frs)
                ]
        paths = re.findall(r"[\w./-]+\.\w+", user_text)
        if responses:
            parts = [types.Part(text=_summary(responses))]
        elif user_text.strip().lower().startswith("delete") and paths:
            parts = [
                types.Part(function_call=types.FunctionCall(name="delete_file", args={"path": p}))
                for p in paths
            ]
        else:
            parts = [types.Part(text="Hello from ADK.")]
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=0, candidates_token_count=0, total_token_count=0
            ),  # keeps ADK's telemetry from warning about missing usage
        )


def delete_file(path: str) -> dict:
    """Deletes a file (pretend). Needs user confirmation."""
    return {"deleted": path}


def delete_file_with_reason(path: str, tool_context: ToolContext) -> dict:
    """Deletes a file (pretend). Needs user confirmation."""
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
        tool_context.request_confirmation(
            hint=f"Delete {path}? Reply confirmed=true/false, payload.reason.",
            payload={"reason": ""},
        )
        tool_context.actions.skip_summarization = True
        return {"error": "This tool call requires confirmation."}
    if not confirmation.confirmed:
        payload = confirmation.payload if isinstance(confirmation.payload, dict) else {}
        return {"kept": path, "reason": payload.get("reason") or "rejected"}
    return {"deleted": path}


delete_file_with_reason.__name__ = "delete_file"  # tool name seen by the model


def build_agent() -> LlmAgent:
    tool = (
        FunctionTool(delete_file_with_reason)
        if PAYLOAD_REASON
        else FunctionTool(delete_file, require_confirmation=True)
    )
    return LlmAgent(
        name="adk_confirm_agent",
        description="Scripted ADK agent whose delete_file tool needs confirmation.",
        instruction="Scripted; no real model.",
        model=ScriptedLlm(),
        tools=[tool],
    )


async def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = to_a2a(build_agent(), host="127.0.0.1", port=port)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    print(json.dumps({"url": f"http://127.0.0.1:{port}/"}), flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass

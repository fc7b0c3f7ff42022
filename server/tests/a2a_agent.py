"""A kagent-style agent over A2A, for Airlock's tests: a2a-sdk's server
(0.3 or 1.x, whichever is installed) with a scripted model and no network.
It asks for approval in one of kagent's three contracts, as kagent's own
code writes them, and reads the answer the way kagent does.

    python a2a_agent.py <first|released|extension> [<bearer>]

"slowly delete a.txt" takes three seconds before it asks. It listens on a
free port (or on $A2A_AGENT_PORT) and prints {"url": ...}
first; then, for each answer it reads, {"task": ..., "verdicts": {call id:
{"approved", "reason"}}}. With a bearer, every request must carry it. With
$A2A_AGENT_STATE (a file; a2a-sdk 0.3), its tasks and what they wait on
outlive a restart, as a kagent agent's do in its database. With
$A2A_AGENT_TELL, it also prints {"started": task id, "words": ...} for each
new task.

The model: "delete a.txt and b.txt" asks to delete each file; anything
else is answered in words, in three pieces.
"""

import asyncio
import json
import os
import re
import socket
import sys
import uuid

import uvicorn
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater

try:  # a2a-sdk 1.x: protobuf types, A2A v1.0
    from a2a.types import a2a_pb2 as pb
    from google.protobuf.json_format import MessageToDict, ParseDict

    V1 = True
except ImportError:
    from a2a import types as t

    V1 = False

HITL = "https://kagent.dev/extensions/hitl/v1"
CONFIRMATION = "adk_request_confirmation"
APPROVING = ["approved", "approve", "proceed", "yes", "continue"]
REFUSING = ["denied", "deny", "reject", "no", "cancel", "stop"]


def say(line):
    print(json.dumps(line), flush=True)


def plain(message):
    """A message as v0.3 JSON, from either SDK."""
    if V1:
        found = MessageToDict(message)
        for part in found.get("parts", []):
            if "text" in part:
                part["kind"] = "text"
            elif "data" in part:
                part["kind"] = "data"
        return found
    return message.model_dump(mode="json", by_alias=True, exclude_none=True)


def sdk_message(found):
    """A message for either SDK, from v0.3 JSON."""
    if V1:
        found = dict(found, role="ROLE_AGENT")
        found["parts"] = [{k: v for k, v in p.items() if k != "kind"} for p in found["parts"]]
        return ParseDict(found, pb.Message())
    return t.Message.model_validate(found)


def state(name):
    return (
        getattr(pb.TaskState, "TASK_STATE_" + name.upper().replace("-", "_"))
        if V1
        else t.TaskState(name)
    )


def text_part(text):
    return pb.Part(text=text) if V1 else t.Part(root=t.TextPart(text=text))


class Kept(InMemoryTaskStore):
    """Tasks kept in a file (a2a-sdk 0.3), with what the agent asked."""

    def __init__(self, path, asked):
        super().__init__()
        self.path, self.asked = path, asked
        if os.path.exists(path):
            with open(path) as f:
                kept = json.load(f)
            self.tasks.update({k: t.Task.model_validate(v) for k, v in kept["tasks"].items()})
            asked.update(kept["asked"])

    async def save(self, task, *args, **kwargs):
        await super().save(task, *args, **kwargs)
        self.keep()

    def keep(self):
        tasks = {
            k: v.model_dump(mode="json", by_alias=True, exclude_none=True)
            for k, v in self.tasks.items()
        }
        with open(self.path, "w") as f:
            json.dump({"tasks": tasks, "asked": self.asked}, f)


class Kagent(AgentExecutor):
    def __init__(self, generation, asked):
        self.generation = generation
        self.asked = asked  # task id: the calls it waits on

    async def execute(self, context, queue):
        task = context.current_task
        if task is None:
            if V1:
                from a2a.helpers.proto_helpers import new_task_from_user_message

                task = new_task_from_user_message(context.message)
            else:
                from a2a.utils import new_task

                task = new_task(context.message)
            await queue.enqueue_event(task)
        updater = TaskUpdater(queue, task.id, task.context_id)
        message = plain(context.message)
        if task.id in self.asked:
            await self.decided(updater, task, message)
            return
        await updater.start_work()
        words = context.get_user_input()
        if os.environ.get("A2A_AGENT_TELL"):
            say({"started": task.id, "words": words})
        if words.startswith("slowly "):
            # Long enough for a client to be stopped while the task works.
            words = words.removeprefix("slowly ")
            await asyncio.sleep(3)
        paths = re.findall(r"[\w./-]+\.\w+", words) if words.lower().startswith("delete") else []
        if not paths:
            for piece in ["Hello", " from", " the agent."]:
                await updater.add_artifact(
                    [text_part(piece)], artifact_id="reply", append=piece != "Hello"
                )
            await updater.complete(updater.new_agent_message([text_part("Hello from the agent.")]))
            return
        calls = [
            {"name": "delete_file", "args": {"path": p}, "id": f"call_{uuid.uuid4().hex[:8]}"}
            for p in paths
        ]
        self.asked[task.id] = calls
        asking, metadata = self.interrupt(calls)
        asking.update(
            messageId=str(uuid.uuid4()), role="agent", taskId=task.id, contextId=task.context_id
        )
        if V1:
            await updater.update_status(
                state("input-required"), sdk_message(asking), metadata=metadata
            )
        else:
            await updater.update_status(
                state("input-required"), sdk_message(asking), final=True, metadata=metadata
            )

    def interrupt(self, calls):
        """kagent's interrupt message (v0.3 JSON) and its status metadata."""
        hint = "Approval needed"
        if self.generation == "first":
            data = {"interrupt_type": "tool_approval", "action_requests": calls}
            part = {"kind": "data", "data": data, "metadata": {"kagent_type": "interrupt_data"}}
            return {"parts": [part]}, {"interrupt_type": "tool_approval"}
        if self.generation == "released":
            parts = [
                {
                    "kind": "data",
                    "data": {
                        "name": CONFIRMATION,
                        "id": "adk-" + c["id"],
                        "args": {
                            "originalFunctionCall": c,
                            "toolConfirmation": {"hint": hint, "confirmed": False, "payload": None},
                        },
                    },
                    "metadata": {"kagent_type": "function_call", "kagent_is_long_running": True},
                }
                for c in calls
            ]
            return {"parts": parts}, None
        tools = [
            {"id": "adk-" + c["id"], "call_id": c["id"], "name": c["name"], "args": c["args"]}
            for c in calls
        ]
        request = {"type": "tool_approval_request", "tools": tools}
        parts = [{"kind": "text", "text": hint}]
        return {"parts": parts, "metadata": {HITL: request}, "extensions": [HITL]}, None

    async def decided(self, updater, task, message):
        calls = self.asked.pop(task.id)
        verdicts = self.read(message, calls)
        say({"task": task.id, "verdicts": verdicts})
        done = [f"deleted {c['args']['path']}" for c in calls if verdicts[c["id"]]["approved"]]
        kept = [
            f"kept {c['args']['path']} ({verdicts[c['id']]['reason'] or 'no reason'})"
            for c in calls
            if not verdicts[c["id"]]["approved"]
        ]
        await updater.complete(updater.new_agent_message([text_part("; ".join(done + kept))]))

    def read(self, message, calls):
        """Each call's verdict, read as kagent reads the answer."""
        response = message.get("metadata", {}).get(HITL)
        if response:
            by_token = {"adk-" + c["id"]: c["id"] for c in calls}
            return {
                by_token[a["id"]]: {"approved": a["approved"], "reason": a.get("rejection_reason")}
                for a in response["approvals"]
            }
        data = next((p["data"] for p in message["parts"] if p.get("kind") == "data"), None)
        if data is None:
            text = " ".join(p.get("text", "") for p in message["parts"]).lower()
            approved = not any(w in text for w in REFUSING) and any(w in text for w in APPROVING)
            return {
                c["id"]: {"approved": approved, "reason": None if approved else text} for c in calls
            }
        kind = data["decision_type"]
        if kind == "batch":
            return {
                c["id"]: {
                    "approved": data["decisions"][c["id"]] == "approve",
                    "reason": data.get("rejection_reasons", {}).get(c["id"]),
                }
                for c in calls
            }
        reason = data.get("rejection_reason") or data.get("reason")
        return {
            c["id"]: {
                "approved": kind == "approve",
                "reason": None if kind == "approve" else reason,
            }
            for c in calls
        }

    async def cancel(self, context, queue):
        await TaskUpdater(queue, context.task_id, context.context_id).cancel()


def app(generation, url):
    extension = {"uri": HITL, "description": "tool approval", "required": False}
    skill = {"id": "files", "name": "Files", "description": "deletes files", "tags": ["files"]}
    if V1:
        from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
        from starlette.applications import Starlette

        card = ParseDict(
            {
                "name": "kagent-style agent",
                "description": "asks before it deletes",
                "version": "1.0.0",
                "supportedInterfaces": [
                    {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ],
                "capabilities": {"streaming": True, "extensions": [extension]},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [skill],
            },
            pb.AgentCard(),
        )
        handler = DefaultRequestHandler(Kagent(generation, {}), InMemoryTaskStore(), card)
        return Starlette(
            routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/")
        )
    from a2a.server.apps import A2AStarletteApplication

    card = t.AgentCard.model_validate(
        {
            "name": "kagent-style agent",
            "description": "asks before it deletes",
            "url": url,
            "version": "1.0.0",
            "capabilities": {"streaming": True, "extensions": [extension]},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [skill],
        }
    )
    asked = {}
    state = os.environ.get("A2A_AGENT_STATE")
    store = Kept(state, asked) if state else InMemoryTaskStore()
    handler = DefaultRequestHandler(Kagent(generation, asked), store)
    return A2AStarletteApplication(card, handler).build()


def guarded(inner, bearer):
    """`inner`, refusing requests without `bearer` with 401."""

    async def asgi(scope, receive, send):
        if scope["type"] == "http" and bearer:
            headers = dict(scope["headers"])
            if headers.get(b"authorization", b"").decode() != f"Bearer {bearer}":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await inner(scope, receive, send)

    return asgi


def main(generation, bearer=None):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(os.environ.get("A2A_AGENT_PORT", "0"))))
    # Listening before it says where: a client may connect at once, and
    # waits in the backlog until the server takes it.
    listener.listen(64)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    served = guarded(app(generation, url), bearer)
    server = uvicorn.Server(uvicorn.Config(served, log_level="warning"))
    say({"url": url, "version": "1.0" if V1 else "0.3"})
    server.run(sockets=[listener])


main(*sys.argv[1:])

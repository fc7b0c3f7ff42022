"""An A2A client of Airlock's agent: a2a-sdk 1.x's, speaking A2A v1.0
(`SendMessage`, `TASK_STATE_INPUT_REQUIRED`), picked from the card. The
same run as a2a_client_03.py, printing the same line of JSON.

    python a2a_client_10.py <base url> <bearer>
"""

import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict, ParseDict

HITL = "https://kagent.dev/extensions/hitl/v1"


def message(text, task=None, data=None, metadata=None, extensions=()):
    parts = [Part(text=text)]
    if data is not None:
        parts.append(Part(data=ParseDict(data, struct_pb2.Value())))
    sent = Message(
        role=Role.ROLE_USER,
        message_id=str(uuid.uuid4()),
        parts=parts,
        task_id=task.id if task else "",
        context_id=task.context_id if task else "",
        extensions=list(extensions),
    )
    if metadata is not None:
        sent.metadata.update(metadata)
    return SendMessageRequest(message=sent)


async def task_of(client, sent, context=None):
    task = None
    async for response in client.send_message(sent, context=context):
        if response.HasField("task"):
            task = response.task
    assert task is not None
    return task


def state(task):
    return TaskState.Name(task.status.state)


def asked(task):
    """The call ids kagent's released interrupt asks about."""
    parts = [MessageToDict(p) for p in task.status.message.parts]
    return [
        p["data"]["args"]["originalFunctionCall"]["id"]
        for p in parts
        if "data" in p and p["data"].get("name") == "adk_request_confirmation"
    ]


async def main(base, bearer):
    seen = {}
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=60)
    card = await A2ACardResolver(http, base).get_agent_card()
    seen["card"] = {"name": card.name, "streaming": card.capabilities.streaming}
    client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
    seen["transport"] = type(client._transport).__name__

    waiting = await task_of(client, message("delete one.txt and two.txt"))
    ids = asked(waiting)
    seen["asked"] = {"state": state(waiting), "ids": ids}
    decision = {
        "decision_type": "batch",
        "decisions": {ids[0]: "approve", ids[1]: "reject"},
        "rejection_reasons": {ids[1]: "keep two"},
    }
    done = await task_of(client, message("Batch decision", waiting, data=decision))
    seen["decided"] = state(done)

    activated = ServiceParametersFactory.create([with_a2a_extensions([HITL])])
    extension = ClientCallContext(service_parameters=activated)
    waiting = await task_of(client, message("delete three.txt"), extension)
    request = MessageToDict(waiting.status.message)["metadata"][HITL]
    tool = request["tools"][0]["id"]
    seen["extension"] = {"type": request["type"], "id": tool}
    response = {
        "type": "tool_approval_response",
        "approvals": [{"id": tool, "approved": False, "rejection_reason": "not three"}],
    }
    answer = message(
        "0 approved, 1 rejected", waiting, metadata={HITL: response}, extensions=[HITL]
    )
    seen["refused"] = state(await task_of(client, answer, extension))

    streaming = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
    kinds = []
    async for response in streaming.send_message(message("hello")):
        kind = response.WhichOneof("payload")
        kinds.append(kind)
        if kind == "task":
            last = response.task.status.state
        elif kind == "status_update":
            last = response.status_update.status.state
    seen["stream"] = {"events": kinds, "state": TaskState.Name(last)}

    got = await client.get_task(GetTaskRequest(id=done.id, history_length=10))
    seen["got"] = state(got)
    waiting = await task_of(client, message("delete four.txt"))
    canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
    seen["canceled"] = state(canceled)
    await http.aclose()
    print(json.dumps(seen))


asyncio.run(main(sys.argv[1], sys.argv[2]))

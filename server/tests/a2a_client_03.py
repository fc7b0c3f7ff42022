"""An A2A client of Airlock's agent: a2a-sdk 0.3's, as kagent's agents
and their callers use it. One run goes through what a client does and
prints one line of JSON: what it saw.

    python a2a_client_03.py <base url> <bearer> [<a viewer's token>]

1. The card, from /.well-known/agent-card.json.
2. Two deletes wait (kagent's released interrupt); the first is approved
   and the second rejected with a reason, in one batch decision part.
3. With kagent's HITL extension activated, a delete waits; it is refused
   with a reason in a tool_approval_response.
4. A streamed message, to its end.
5. The first task read back; a waiting task canceled.
6. With a viewer's token: the refusal.
"""

import asyncio
import json
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError
from a2a.types import (
    DataPart,
    Message,
    Part,
    Role,
    Task,
    TaskIdParams,
    TaskQueryParams,
    TextPart,
)

HITL = "https://kagent.dev/extensions/hitl/v1"


def message(text, task=None, data=None, metadata=None, extensions=None):
    parts = [Part(root=TextPart(text=text))]
    if data is not None:
        parts.append(Part(root=DataPart(data=data)))
    return Message(
        role=Role.user,
        parts=parts,
        message_id=str(uuid.uuid4()),
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
        metadata=metadata,
        extensions=extensions,
    )


async def task_of(client, sent):
    task = None
    async for event in client.send_message(sent):
        task = event[0] if isinstance(event, tuple) else event
    assert isinstance(task, Task), task
    return task


def asked(task):
    """The call ids kagent's released interrupt asks about."""
    parts = [p.root for p in task.status.message.parts]
    return [
        p.data["args"]["originalFunctionCall"]["id"]
        for p in parts
        if isinstance(p, DataPart) and p.data.get("name") == "adk_request_confirmation"
    ]


async def main(base, bearer, viewer=None):
    seen = {}
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=60)
    card = await A2ACardResolver(http, base).get_agent_card()
    seen["card"] = {"name": card.name, "streaming": card.capabilities.streaming}
    client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)

    waiting = await task_of(client, message("delete one.txt and two.txt"))
    ids = asked(waiting)
    seen["asked"] = {"state": waiting.status.state.value, "ids": ids}
    decision = {
        "decision_type": "batch",
        "decisions": {ids[0]: "approve", ids[1]: "reject"},
        "rejection_reasons": {ids[1]: "keep two"},
    }
    done = await task_of(client, message("Batch decision", waiting, data=decision))
    seen["decided"] = done.status.state.value

    extended = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(
        card, extensions=[HITL]
    )
    waiting = await task_of(extended, message("delete three.txt"))
    request = waiting.status.message.metadata[HITL]
    tool = request["tools"][0]["id"]
    seen["extension"] = {"type": request["type"], "id": tool}
    response = {
        "type": "tool_approval_response",
        "approvals": [{"id": tool, "approved": False, "rejection_reason": "not three"}],
    }
    answer = message(
        "0 approved, 1 rejected", waiting, metadata={HITL: response}, extensions=[HITL]
    )
    seen["refused"] = (await task_of(extended, answer)).status.state.value

    streaming = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
    kinds = []
    async for task, update in streaming.send_message(message("hello")):
        kinds.append(type(update).__name__ if update else "Task")
        state = task.status.state.value
    seen["stream"] = {"events": kinds, "state": state}

    got = await client.get_task(TaskQueryParams(id=done.id, history_length=10))
    seen["got"] = got.status.state.value
    waiting = await task_of(client, message("delete four.txt"))
    canceled = await client.cancel_task(TaskIdParams(id=waiting.id))
    seen["canceled"] = canceled.status.state.value
    await http.aclose()

    if viewer:
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {viewer}"}, timeout=60)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        try:
            await task_of(client, message("delete five.txt"))
        except A2AClientHTTPError as refused:
            seen["viewer"] = refused.status_code
        await http.aclose()
    print(json.dumps(seen))


asyncio.run(main(*sys.argv[1:]))

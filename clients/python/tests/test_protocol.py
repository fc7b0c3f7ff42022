"""The protocol's reading without a server: events, poll answers, and the
fallback to polling where an event stream does not get through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import httpx
import pytest

from airlock_client import Airlock, Outcome, Pending, ServerError
from airlock_client.protocol import EventParser, arguments_of, read_status

PENDING = Pending(
    case_id="review_1",
    tool="delete_file",
    arguments={"path": "a"},
    review_url="http://x/review/review_1?token=t",
    poll_url="http://x/api/v1/reviews/review_1/status",
    events_url="http://x/api/v1/reviews/review_1/events",
    call_id="call_1",
    retry_after=0.0,
)


def test_events_are_read_as_the_stream_sends_them() -> None:
    parser = EventParser()
    lines = [
        ": keep-alive",
        "",
        "event: review.opened",
        "id: 3",
        "data: {}",
        "",
        "event: review.completed",
        "id: 4",
        'data: {"a":',
        "data: 1}",
        "",
    ]
    events = [event for line in lines for event in parser.feed(line)]
    assert [(e.name, e.id, e.data) for e in events] == [
        ("review.opened", "3", "{}"),
        ("review.completed", "4", '{"a":\n1}'),
    ]
    assert parser.last_id == "4"


def test_poll_answers_become_decisions() -> None:
    assert read_status({"status": "in_progress"}, PENDING) is None
    edited = read_status(
        {
            "status": "completed",
            "result": {"action": "edit", "data": {"edits": {"path": "b"}}},
            "responded_by": {"name": "Ana"},
        },
        PENDING,
    )
    assert edited is not None and edited.outcome is Outcome.APPROVED
    assert edited.arguments == {"path": "b"} and edited.edited and edited.decided_by == "Ana"
    always = read_status(
        {"status": "completed", "result": {"action": "approve", "data": {"always_allow": True}}},
        PENDING,
    )
    assert always is not None and always.always_allowed and not always.edited
    expired = read_status({"status": "expired", "default_action": "approve"}, PENDING)
    assert expired is not None and expired.outcome is Outcome.EXPIRED and expired.runs
    with pytest.raises(ServerError):
        read_status({"status": "completed", "result": {"action": "dance"}}, PENDING)
    with pytest.raises(ServerError):
        read_status([], PENDING)


def test_arguments_are_sent_and_run_as_json_has_them() -> None:
    assert arguments_of({"path": Path("/tmp/a"), "n": 1}) == {"path": "/tmp/a", "n": 1}
    with pytest.raises(TypeError):
        arguments_of(["not", "a", "mapping"])  # type: ignore[arg-type]


def test_without_an_event_stream_the_client_polls_and_honours_retry_after() -> None:
    seen: List[str] = []
    polls: List[Dict[str, Any]] = [
        {"status": 429, "headers": {"retry-after": "0"}, "body": {"code": "rate_limited"}},
        {"status": 200, "headers": {"etag": '"v1"'}, "body": {"status": "pending"}},
        {"status": 304, "headers": {"etag": '"v1"'}, "body": None},
        {
            "status": 200,
            "headers": {},
            "body": {"status": "completed", "result": {"action": "approve", "data": {}}},
        },
    ]

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path} {request.headers.get('if-none-match')}")
        if request.url.path.endswith("/events"):
            return httpx.Response(404, json={"code": "not_found"})
        answer = polls.pop(0)
        content = json.dumps(answer["body"]).encode() if answer["body"] else b""
        return httpx.Response(answer["status"], headers=answer["headers"], content=content)

    with Airlock("http://airlock.test", "k", transport=httpx.MockTransport(handle)) as airlock:
        decision = airlock.wait(PENDING)
    assert decision.outcome is Outcome.APPROVED and decision.arguments == {"path": "a"}
    assert seen == [
        "GET /api/v1/reviews/review_1/events None",
        "GET /api/v1/reviews/review_1/status None",
        "GET /api/v1/reviews/review_1/status None",
        'GET /api/v1/reviews/review_1/status "v1"',
        'GET /api/v1/reviews/review_1/status "v1"',
    ]

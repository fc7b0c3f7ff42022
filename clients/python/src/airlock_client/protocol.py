"""The HITL Protocol as Airlock speaks it, without any I/O: the bodies to
send, and what each answer means. The sync and async clients share it, so
they differ only in how they wait."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from .decision import Decision, Outcome, Pending
from .errors import Closed, Refused, ServerError, error_of

TERMINAL_EVENTS = ("review.completed", "review.expired", "review.cancelled")
OPEN_STATUSES = ("pending", "opened", "in_progress")


def arguments_of(arguments: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The arguments as JSON has them: what a person sees is what runs, so a
    value JSON cannot hold (a path, a date) is sent, and run, as text."""
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise TypeError("arguments must be a mapping of names to values")
    value = json.loads(json.dumps(dict(arguments), default=str))
    assert isinstance(value, dict)
    return value


def ask_body(
    tool: str,
    arguments: Dict[str, Any],
    source: str,
    session_id: Optional[str],
    agent_id: Optional[str],
    previous_case_id: Optional[str],
) -> Dict[str, Any]:
    """The body of `POST /api/v1/tool-calls`."""
    body: Dict[str, Any] = {"tool": tool, "source": source, "arguments": arguments}
    if session_id is not None:
        body["session_id"] = session_id
    if agent_id is not None:
        body["agent_id"] = agent_id
    if previous_case_id is not None:
        body["previous_case_id"] = previous_case_id
    return body


def read_ask(
    status: int, body: Any, headers: Mapping[str, str], tool: str, arguments: Dict[str, Any]
) -> Union[Decision, Pending]:
    """What the gateway's answer means: a decision made at once (allowed), a
    refusal (raised), or a call that waits."""
    if status == 200 and isinstance(body, dict) and body.get("status") == "allowed":
        return Decision(
            outcome=Outcome.ALLOWED,
            tool=tool,
            arguments=arguments,
            asked=arguments,
            call_id=body.get("call_id"),
            reason=body.get("message"),
            receipt=body.get("receipt"),
        )
    if status == 403 and isinstance(body, dict) and body.get("call_id"):
        raise Refused(str(body.get("code")), str(body.get("message")), body["call_id"], tool)
    if status == 202 and isinstance(body, dict) and isinstance(body.get("hitl"), dict):
        hitl = body["hitl"]
        context = hitl.get("context") or {}
        try:
            return Pending(
                case_id=hitl["case_id"],
                tool=tool,
                arguments=arguments,
                review_url=hitl["review_url"],
                poll_url=hitl["poll_url"],
                events_url=hitl["events_url"],
                call_id=context.get("call_id"),
                expires_at=hitl.get("expires_at"),
                retry_after=retry_after(headers, 30.0),
                hitl=hitl,
            )
        except KeyError as missing:
            raise ServerError("unreadable", f"the 202 has no {missing}") from None
    if status >= 400:
        raise error_of(status, body)
    raise ServerError("unreadable", f"Airlock answered {status} with an unexpected body", status)


def read_status(body: Any, pending: Pending) -> Optional[Decision]:
    """The decision a poll answer (or a withdrawal's) holds; None while the
    case is open."""
    if not isinstance(body, dict) or not isinstance(body.get("status"), str):
        raise ServerError("unreadable", "a poll answer without a status")
    status = body["status"]
    if status in OPEN_STATUSES:
        return None
    decided_by = (body.get("responded_by") or {}).get("name")

    def decision(outcome: Outcome, **rest: Any) -> Decision:
        values: Dict[str, Any] = {"arguments": pending.arguments, "decided_by": decided_by}
        values.update(rest)
        return Decision(
            outcome=outcome,
            tool=pending.tool,
            asked=pending.arguments,
            call_id=pending.call_id,
            case_id=pending.case_id,
            **values,
        )

    if status == "expired":
        return decision(Outcome.EXPIRED, default_action=body.get("default_action"))
    if status == "cancelled":
        return decision(Outcome.WITHDRAWN, reason=body.get("reason"))
    result = body.get("result") or {}
    action = result.get("action")
    data = result.get("data") or {}
    receipt = (result.get("signature") or {}).get("value")
    if action == "approve":
        always = data.get("always_allow") is True
        return decision(Outcome.APPROVED, always_allowed=always, receipt=receipt)
    if action == "edit" and isinstance(data.get("edits"), dict):
        edits = data["edits"]
        return decision(
            Outcome.APPROVED, arguments=edits, reason=data.get("feedback"), receipt=receipt
        )
    if action == "reject":
        return decision(Outcome.REJECTED, reason=data.get("feedback"), receipt=receipt)
    raise ServerError("unreadable", f"a completed case with the action {action!r}")


def read_poll(
    status: int, body: Any, headers: Mapping[str, str], pending: Pending, etag: Optional[str]
) -> Tuple[Optional[Decision], Optional[str]]:
    """What a poll's answer (other than a 429) says: the decision once the
    case is over, and the ETag to send with the next poll."""
    if status == 304:
        return None, etag
    if status != 200:
        raise error_of(status, body)
    return read_status(body, pending), headers.get("etag")


def read_withdrawal(status: int, body: Any, pending: Pending) -> Optional[Decision]:
    """The decision a withdrawal's answer holds; None when the case was over
    first (decided or expired), so that a poll says how it ended."""
    if status == 200:
        decision = read_status(body, pending)
        if decision is None:
            raise ServerError("unreadable", "a withdrawal answered with an open case")
        return decision
    error = error_of(status, body)
    if isinstance(error, Closed):
        return None
    raise error


def retry_after(headers: Mapping[str, str], default: float) -> float:
    """Seconds the answer asks to wait (`Retry-After`), within reason."""
    try:
        return min(max(float(headers.get("retry-after", default)), 0.0), 300.0)
    except ValueError:
        return default


@dataclass
class Event:
    """One server-sent event."""

    name: str
    data: str
    id: Optional[str]


class EventParser:
    """Reads a server-sent event stream line by line (the WHATWG rules this
    stream needs: `event`, `data`, `id`, comments, blank line ends one)."""

    def __init__(self) -> None:
        self.last_id: Optional[str] = None
        self._name = ""
        self._data: List[str] = []

    def feed(self, line: str) -> Iterator[Event]:
        if line == "":
            if self._data or self._name:
                yield Event(self._name or "message", "\n".join(self._data), self.last_id)
            self._name, self._data = "", []
            return
        if line.startswith(":"):
            return
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "event":
            self._name = value
        elif key == "data":
            self._data.append(value)
        elif key == "id" and "\0" not in value:
            self.last_id = value

"""The blocking client against a real Airlock: each outcome a call can have,
and what goes wrong."""

from __future__ import annotations

import json
import signal
import threading
from typing import Any, Callable, Dict, List

import pytest
from conftest import KEY, Server

from airlock_client import (
    Airlock,
    Outcome,
    Pending,
    Refused,
    Rejected,
    StillWaiting,
    Unauthorized,
    Unreachable,
)


def beside(work: Callable[[], None]) -> threading.Thread:
    """Runs `work` (a person's part) beside the test's own waiting."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_a_call_the_policy_allows_runs_at_once(server: Server, session_id: str) -> None:
    with Airlock(server.url, KEY) as airlock:
        decision = airlock.ask(
            "read_file", {"path": "a.txt"}, source="files", session_id=session_id
        )
    assert decision.outcome is Outcome.ALLOWED
    assert decision.runs and not decision.edited
    assert decision.arguments == {"path": "a.txt"}
    assert decision.call_id and decision.reason and decision.receipt


def test_a_call_the_policy_refuses_raises_with_the_rule(server: Server, session_id: str) -> None:
    with Airlock(server.url, KEY) as airlock:
        with pytest.raises(Refused) as denied:
            airlock.ask("write_file", {"path": "/etc/passwd"}, source="files")
        assert denied.value.rule == "matched rule 1: write_file /path glob /etc/**"
        assert not denied.value.hidden and denied.value.code == "denied"
        with pytest.raises(Refused) as hidden:
            airlock.ask("admin_wipe", source="files", session_id=session_id)
        assert hidden.value.hidden and hidden.value.code == "hidden"


def test_a_person_approves_with_edits_and_the_call_runs_with_them(
    server: Server, session_id: str
) -> None:
    asked = {"path": f"{session_id}.txt", "content": "draft"}
    edited = {"path": f"{session_id}.txt", "content": "final"}

    def person() -> None:
        call = server.waiting_call("write_file", asked)
        server.press("edit_call", call_id=call["id"], arguments=json.dumps(edited))

    beside(person)
    with Airlock(server.url, KEY) as airlock:
        decision = airlock.ask("write_file", asked, source="files", session_id=session_id)
    assert decision.outcome is Outcome.APPROVED
    assert decision.runs and decision.edited
    assert decision.arguments == edited and decision.asked == asked
    assert decision.case_id and decision.decided_by


def test_a_guarded_function_runs_only_with_what_was_approved(
    server: Server, session_id: str
) -> None:
    airlock = Airlock(server.url, KEY)
    ran: List[Dict[str, Any]] = []

    @airlock.guard(source="files", session_id=session_id)
    def send_email(to: str, body: str = "hello") -> str:
        ran.append({"to": to, "body": body})
        return f"sent to {to}"

    def approve(arguments: Dict[str, Any]) -> Callable[[], None]:
        def press() -> None:
            call = server.waiting_call("send_email", arguments)
            server.press("approve_call", call_id=call["id"])

        return press

    beside(approve({"to": "ana@example.com", "body": "hello"}))
    assert send_email("ana@example.com") == "sent to ana@example.com"
    assert ran == [{"to": "ana@example.com", "body": "hello"}]

    def reject() -> None:
        call = server.waiting_call("send_email", {"to": "eve@example.com", "body": "hi"})
        server.press("reject_call", call_id=call["id"], reason="not to Eve")

    beside(reject)
    with pytest.raises(Rejected) as rejected:
        send_email(to="eve@example.com", body="hi")
    assert rejected.value.reason == "not to Eve"
    assert rejected.value.decision is not None
    assert rejected.value.decision.outcome is Outcome.REJECTED
    assert len(ran) == 1


def test_a_wait_that_ends_first_leaves_the_call_to_pick_up_or_withdraw(
    server: Server, session_id: str
) -> None:
    with Airlock(server.url, KEY) as airlock:
        asked = airlock.request("delete_file", {"path": f"{session_id}"}, source="files")
        assert isinstance(asked, Pending)
        with pytest.raises(StillWaiting) as still:
            airlock.wait(asked, timeout=0.3)
        assert still.value.case_id == asked.case_id
        withdrawn = airlock.withdraw(asked, "changed my mind")
        assert withdrawn.outcome is Outcome.WITHDRAWN and not withdrawn.runs
        assert withdrawn.reason == "changed my mind"
        assert airlock.wait(asked) == withdrawn
        assert server.call(asked.call_id or "")["status"] == "cancelled"


def test_an_interrupted_wait_withdraws_the_call(
    server: Server, session_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    arguments = {"path": f"{session_id}-interrupted"}
    found: List[Dict[str, Any]] = []
    # The signal goes once the client waits: the call is stored a moment
    # before the client has read that it was asked.
    waiting = threading.Event()
    wait = Airlock._wait

    def noted_wait(self: Airlock, *args: Any) -> Any:
        waiting.set()
        return wait(self, *args)

    monkeypatch.setattr(Airlock, "_wait", noted_wait)

    def interrupt() -> None:
        found.append(server.waiting_call("delete_file", arguments))
        waiting.wait()
        # Ctrl-C: a real signal, which also ends the wait's blocking read.
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    beside(interrupt)
    # Python's own Ctrl-C handler, also where the tests run in the background
    # (as `make test` runs them), which starts them with SIGINT ignored.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with Airlock(server.url, KEY) as airlock, pytest.raises(KeyboardInterrupt):
            airlock.ask("delete_file", arguments, source="files", session_id=session_id)
    finally:
        signal.signal(signal.SIGINT, before)
    call = server.call(found[0]["id"])
    assert call["status"] == "cancelled"
    assert call["decision"]["reason"] == "the agent was interrupted"


def test_a_call_nobody_decides_expires_and_does_not_run(lapsing: Server, session_id: str) -> None:
    with Airlock(lapsing.url, KEY) as airlock:
        decision = airlock.ask("delete_file", {"path": session_id}, source="files")
    assert decision.outcome is Outcome.EXPIRED
    assert decision.default_action == "reject" and not decision.runs


def test_mistakes_are_typed_and_nothing_runs(server: Server) -> None:
    ran: List[str] = []
    unreachable = Airlock("http://127.0.0.1:9", KEY)

    @unreachable.guard(source="files")
    def delete_file(path: str) -> None:
        ran.append(path)

    with pytest.raises(Unreachable):
        delete_file("notes.txt")
    assert ran == []
    with Airlock(server.url, "not-a-key") as stranger, pytest.raises(Unauthorized) as unknown:
        stranger.ask("read_file", {"path": "a"}, source="files")
    assert unknown.value.status == 401
    with pytest.raises(Unauthorized):
        Airlock(server.url, "")

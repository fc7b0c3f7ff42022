"""Receipts checked here as Airlock checks them: every vector in
clients/receipt-vectors.json (made by the engine) comes out the same; and
the lines docs/http-api.md shows a service downstream, run against a real
Airlock's receipt."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest
from conftest import KEY, Server

from airlock_client import Airlock
from airlock_client.receipts import ReceiptRefused, verify_receipt

VECTORS = json.loads((Path(__file__).parents[2] / "receipt-vectors.json").read_text())


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_each_vector_is_judged_as_the_engine_judges_it(case: dict) -> None:
    arguments = None if case["arguments"] is None else json.loads(case["arguments"])
    expected = case["outcome"]
    if expected["valid"]:
        claims = verify_receipt(
            case["receipt"], VECTORS["keys"], arguments=arguments, now=case["now"]
        )
        assert claims == expected["claims"]
    else:
        with pytest.raises(ReceiptRefused) as refused:
            verify_receipt(case["receipt"], VECTORS["keys"], arguments=arguments, now=case["now"])
        assert refused.value.code == expected["code"]


def documented_lines() -> str:
    """The Python a service downstream is shown in docs/http-api.md."""
    text = (Path(__file__).parents[3] / "docs" / "http-api.md").read_text()
    start = text.index("```python", text.index("### Receipts")) + len("```python")
    return text[start : text.index("```", start)]


def test_the_documented_lines_run_an_approved_call_and_refuse_any_other(
    server: Server, session_id: str
) -> None:
    arguments = {"to": f"{session_id}@example.com", "body": "hello"}

    def person() -> None:
        call = server.waiting_call("send_email", arguments)
        server.press("approve_call", call_id=call["id"])

    threading.Thread(target=person, daemon=True).start()
    with Airlock(server.url, KEY) as airlock:
        decision = airlock.ask("send_email", arguments, source="files", session_id=session_id)
    assert decision.runs and decision.receipt

    sent: List[Dict[str, Any]] = []
    service: Dict[str, Any] = {"TOOLS": {"send_email": lambda **a: sent.append(a) or "sent"}}
    exec(documented_lines().replace("https://airlock.example", server.url), service)
    run_if_approved = service["run_if_approved"]
    assert run_if_approved("send_email", arguments, decision.receipt) == "sent"
    assert sent == [arguments]
    with pytest.raises(PermissionError, match="once"):
        run_if_approved("send_email", arguments, decision.receipt)
    other = dict(arguments, to="eve@example.com")
    with pytest.raises(PermissionError, match="other arguments"):
        run_if_approved("send_email", other, decision.receipt)
    with pytest.raises(PermissionError):
        run_if_approved("delete_file", arguments, decision.receipt)
    bent = (
        decision.receipt[:-8]
        + ("A" if decision.receipt[-8] != "A" else "B")
        + decision.receipt[-7:]
    )
    with pytest.raises(PermissionError, match="signature"):
        run_if_approved("send_email", arguments, bent)
    assert len(sent) == 1

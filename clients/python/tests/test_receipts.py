"""Receipts checked here as Airlock checks them: every vector in
clients/receipt-vectors.json (made by the engine) comes out the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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

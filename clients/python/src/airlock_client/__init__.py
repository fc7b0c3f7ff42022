"""Ask Airlock before a tool call runs.

    from airlock_client import Airlock

    airlock = Airlock()  # AIRLOCK_URL, AIRLOCK_API_KEY
    decision = airlock.ask("delete_file", {"path": "notes.txt"}, source="files")
    if decision.runs:
        delete_file(**decision.arguments)

`AsyncAirlock` is the same for asyncio; `guard` wraps a function in the ask;
`verify_receipt` checks a decision's receipt without asking Airlock.
"""

from .aio import AsyncAirlock
from .client import Airlock
from .decision import Decision, Outcome, Pending
from .errors import (
    AirlockError,
    Closed,
    InvalidRequest,
    NotFound,
    Refused,
    Rejected,
    ServerError,
    StillWaiting,
    Unauthorized,
    Unreachable,
)
from .receipts import ReceiptRefused, verify_receipt
from .settings import VERSION as __version__

__all__ = [
    "Airlock",
    "AirlockError",
    "AsyncAirlock",
    "Closed",
    "Decision",
    "InvalidRequest",
    "NotFound",
    "Outcome",
    "Pending",
    "ReceiptRefused",
    "Refused",
    "Rejected",
    "ServerError",
    "StillWaiting",
    "Unauthorized",
    "Unreachable",
    "verify_receipt",
    "__version__",
]

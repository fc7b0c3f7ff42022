"""What Airlock decided about one call, and a call still waiting for a person."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, Optional


class Outcome(str, enum.Enum):
    """How a call ended."""

    ALLOWED = "allowed"
    """The policy allows it: it runs as asked, and nobody was asked."""
    APPROVED = "approved"
    """A person approved it, perhaps with edited arguments."""
    REJECTED = "rejected"
    """A person rejected it; `reason` is what they said."""
    EXPIRED = "expired"
    """Nobody decided in time; the policy's default action applies."""
    WITHDRAWN = "withdrawn"
    """Its review was withdrawn, by the reviewer or by this agent."""


@dataclass(frozen=True)
class Decision:
    """The end of one call's question. Run the tool only if `runs`, and with
    `arguments`: they are the ones decided, edits applied."""

    outcome: Outcome
    tool: str
    arguments: Dict[str, Any]
    """The arguments to run with: a person's edits applied."""
    asked: Dict[str, Any]
    """The arguments as they were asked."""
    call_id: Optional[str] = None
    case_id: Optional[str] = None
    reason: Optional[str] = None
    """The policy's reason when allowed; the person's when rejected or withdrawn."""
    decided_by: Optional[str] = None
    default_action: Optional[str] = None
    """For an expired call: what the policy does then (`approve` or `reject`)."""
    always_allowed: bool = False
    """The person approved with "Always allow": such calls pass from now on."""
    receipt: Optional[str] = None
    """The decision's receipt, signed by Airlock: pass it with the call to a
    service that checks it (`verify_receipt`) before acting."""

    @property
    def runs(self) -> bool:
        """Whether the call may run: allowed, approved, or expired into an
        approval because the operator's policy says so."""
        if self.outcome is Outcome.EXPIRED:
            return self.default_action == "approve"
        return self.outcome in (Outcome.ALLOWED, Outcome.APPROVED)

    @property
    def why_not(self) -> str:
        """Why the call did not run, in words a model reads as the tool's result."""
        said = f": {self.reason}" if self.reason else ""
        return f"This call was {self.outcome.value}{said}. It did not run."

    @property
    def edited(self) -> bool:
        """Whether a person changed the arguments before approving."""
        return self.arguments != self.asked


@dataclass(frozen=True)
class Pending:
    """A call waiting for a person: hand `review_url` to someone who may
    decide, or just wait; Airlock's inbox and notices reach its approvers."""

    case_id: str
    tool: str
    arguments: Dict[str, Any]
    review_url: str
    poll_url: str
    events_url: str
    call_id: Optional[str] = None
    expires_at: Optional[str] = None
    retry_after: float = 30.0
    hitl: Dict[str, Any] = field(default_factory=dict, repr=False)
    """The protocol's whole `hitl` object, as Airlock sent it."""

"""What can go wrong when asking Airlock, one class per thing a caller handles
differently. Every error carries Airlock's stable `code` and a message for
people; `AirlockError` catches them all."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .decision import Decision


class AirlockError(Exception):
    """Anything this client raises on purpose."""

    def __init__(self, code: str, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class Unreachable(AirlockError):
    """Airlock did not answer (refused, timed out, or a broken connection)."""

    def __init__(self, url: str, cause: BaseException) -> None:
        super().__init__("unreachable", f"Airlock at {url} did not answer: {cause}")
        self.url = url


class Unauthorized(AirlockError):
    """No API key, or one Airlock does not know (401)."""


class InvalidRequest(AirlockError):
    """Airlock refused the request itself (400 or 422): a mistake in the call,
    named by `field` when one field is at fault."""

    def __init__(self, code: str, message: str, status: int, field: Optional[str]) -> None:
        super().__init__(code, message, status)
        self.field = field


class NotFound(AirlockError):
    """No such case for this API key (404)."""


class Closed(AirlockError):
    """The case is over already (409 when decided, 410 when it expired)."""


class ServerError(AirlockError):
    """Airlock failed on its side (5xx), or answered something unreadable."""


class Rejected(AirlockError):
    """The call may not run: a person rejected it, its review was withdrawn,
    nobody decided in time, or (as `Refused`) the policy refuses it. `reason`
    says why; `decision` is the whole decision, when a person was asked."""

    def __init__(self, decision: Decision) -> None:
        what = {
            "rejected": "was rejected",
            "expired": "expired before anyone decided",
            "withdrawn": "was withdrawn",
        }.get(decision.outcome.value, "was not allowed")
        reason = f": {decision.reason}" if decision.reason else ""
        super().__init__(decision.outcome.value, f"{decision.tool} {what}{reason}")
        self.decision: Optional[Decision] = decision
        self.reason = decision.reason


class Refused(Rejected):
    """The policy refuses the call outright (403): no person is asked.

    `rule` is the policy's reason, naming the rule that matched; `hidden`
    says the tool is not offered at all."""

    def __init__(self, code: str, rule: str, call_id: Optional[str], tool: str) -> None:
        AirlockError.__init__(self, code, f"Airlock's policy refuses {tool}: {rule}", 403)
        self.decision = None
        self.reason: Optional[str] = rule
        self.rule = rule
        self.hidden = code == "hidden"
        self.call_id = call_id
        self.tool = tool

    @property
    def why_not(self) -> str:
        """Why the call did not run, in words a model reads as the tool's result."""
        return f"Airlock's policy refuses this call: {self.rule}. It did not run."


class StillWaiting(AirlockError):
    """The wait given to `ask` or `wait` ended before anyone decided. The call
    still waits in Airlock: `wait(case_id)` picks it up again, `withdraw`
    takes it back."""

    def __init__(self, case_id: str, review_url: Optional[str]) -> None:
        super().__init__("still_waiting", f"nobody has decided {case_id} yet")
        self.case_id = case_id
        self.review_url = review_url


def error_of(status: int, body: Any) -> AirlockError:
    """The error an answer with a 4xx or 5xx status stands for."""
    body = body if isinstance(body, dict) else {}
    code = str(body.get("code") or body.get("error") or f"http_{status}")
    message = str(body.get("message") or f"Airlock answered {status}")
    if status == 401:
        return Unauthorized(code, message, status)
    if status == 404:
        return NotFound(code, message, status)
    if status in (409, 410):
        return Closed(code, message, status)
    if status in (400, 422):
        return InvalidRequest(code, message, status, body.get("field"))
    if status >= 500:
        return ServerError(code, message, status)
    return AirlockError(code, message, status)

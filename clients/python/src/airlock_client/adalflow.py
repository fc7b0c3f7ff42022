"""AdalFlow: a permission manager whose every answer is Airlock's.

    from airlock_client.adalflow import AirlockPermissionManager, AirlockRunner

    runner = AirlockRunner(agent=agent, permission_manager=AirlockPermissionManager(source="files"))

Each tool call asks Airlock (its policy replaces AdalFlow's own categories),
and the person's decision comes back as the design's outcomes: an approval is
`PROCEED_ONCE`, one given with "Always allow" is `PROCEED_ALWAYS` (Airlock
keeps the grant, so such calls pass from now on), anything else `CANCEL`. A
call runs with the arguments decided, a person's edits applied.

AdalFlow's `Runner` tells the model "Tool execution cancelled by user" for
every refusal; `AirlockRunner` tells it why instead (the person's reason, or
the policy's rule).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from adalflow.apps.permission_manager import ApprovalOutcome, PermissionManager
from adalflow.components.agent import Runner
from adalflow.core.types import Function

from .aio import AsyncAirlock
from .errors import Refused


class AirlockPermissionManager(PermissionManager):  # type: ignore[misc]
    """Asks Airlock's `source` policy about every tool call, on the blocking
    and the asyncio runners alike (AdalFlow runs this check in an event loop
    either way)."""

    def __init__(
        self,
        *,
        source: str,
        airlock: Optional[AsyncAirlock] = None,
        session_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        wait: Optional[float] = None,
    ) -> None:
        super().__init__(approval_mode="default")
        self.source = source
        self.airlock = airlock
        self.session_id = session_id
        self.agent_id = agent_id
        self.wait = wait
        self.outcomes: Dict[str, ApprovalOutcome] = {}
        """Each call's outcome, by the call's id."""
        self.reasons: Dict[str, str] = {}
        """Why each refused call did not run, by the call's id."""

    def is_approval_required(self, tool_name: str) -> bool:
        return True

    async def check_permission(
        self, func: Function
    ) -> Tuple[bool, Optional[Function], Optional[str]]:
        # A fresh client per check: the blocking runner gives each check an
        # event loop of its own, and a client's connections belong to one.
        async with self._client() as airlock:
            try:
                decision = await airlock.ask(
                    func.name,
                    _arguments(func),
                    source=self.source,
                    session_id=self.session_id,
                    agent_id=self.agent_id,
                    wait=self.wait,
                )
            except Refused as refused:
                return self._refuse(func, refused.why_not)
        if not decision.runs:
            return self._refuse(func, decision.why_not)
        if decision.always_allowed:
            self.outcomes[str(func.id)] = ApprovalOutcome.PROCEED_ALWAYS
            self.always_allowed_tools.add(func.name)
        else:
            self.outcomes[str(func.id)] = ApprovalOutcome.PROCEED_ONCE
        kwargs = dict(decision.arguments)
        args = kwargs.pop("args", []) if func.args else []
        decided = Function(
            id=func.id, name=func.name, args=args, kwargs=kwargs, thought=func.thought
        )
        return True, decided, None

    def _refuse(self, func: Function, why: str) -> Tuple[bool, None, str]:
        self.outcomes[str(func.id)] = ApprovalOutcome.CANCEL
        self.reasons[str(func.id)] = why
        return False, None, why

    def _client(self) -> AsyncAirlock:
        return AsyncAirlock.like(self.airlock)


class AirlockRunner(Runner):  # type: ignore[misc]
    """AdalFlow's `Runner`, telling the model why a call did not run."""

    def _tool_execute_sync(self, func: Function) -> Any:
        return self._told(func, super()._tool_execute_sync(func))

    async def _tool_execute_async(self, func: Function, *rest: Any, **named: Any) -> Any:
        return self._told(func, await super()._tool_execute_async(func, *rest, **named))

    def _told(self, func: Function, result: Any) -> Any:
        manager = self.permission_manager
        why = (
            manager.reasons.get(str(func.id))
            if isinstance(manager, AirlockPermissionManager)
            else None
        )
        output = getattr(result, "output", None)
        if why and output is not None and getattr(output, "status", None) == "cancelled":
            output.output = why
            output.observation = why
        return result


def _arguments(func: Function) -> Dict[str, Any]:
    """The call's arguments by name; positional ones, which a tool's schema
    does not name, as `args`."""
    arguments = dict(func.kwargs or {})
    if func.args:
        arguments["args"] = list(func.args)
    return arguments

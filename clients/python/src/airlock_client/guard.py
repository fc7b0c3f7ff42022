"""`guard`: a function that asks Airlock each time before it runs, and runs
with the arguments decided (a person's edits applied), or not at all."""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, TypeVar, cast

from .errors import Rejected

if TYPE_CHECKING:
    from .aio import AsyncAirlock
    from .client import Airlock

F = TypeVar("F", bound=Callable[..., Any])


def guarded(
    blocking: Callable[[], Airlock],
    asynchronous: Callable[[], AsyncAirlock],
    source: str,
    tool: Optional[str],
    session_id: Optional[str],
    agent_id: Optional[str],
    wait: Optional[float],
) -> Callable[[F], F]:
    """The decorator `Airlock.guard` and `AsyncAirlock.guard` return: the
    client of the function's own kind is made only when first needed."""

    def decorate(fn: F) -> F:
        name = tool or fn.__name__
        signature = inspect.signature(fn)
        if any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values()):
            raise TypeError(f"{fn.__name__}: a guarded function's parameters need names (no *args)")
        ask: Dict[str, Any] = {"source": source, "session_id": session_id, "agent_id": agent_id}

        def arguments(args: Any, kwargs: Any) -> Dict[str, Any]:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            named = dict(bound.arguments)
            for parameter in signature.parameters.values():
                if parameter.kind is parameter.VAR_KEYWORD:
                    named.update(named.pop(parameter.name, {}))
            return named

        if inspect.iscoroutinefunction(fn):
            clients: Dict[str, AsyncAirlock] = {}

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                client = clients.setdefault("client", asynchronous())
                decision = await client.ask(name, arguments(args, kwargs), wait=wait, **ask)
                if not decision.runs:
                    raise Rejected(decision)
                return await fn(**decision.arguments)

            return cast(F, run_async)

        blocking_clients: Dict[str, Airlock] = {}

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            client = blocking_clients.setdefault("client", blocking())
            decision = client.ask(name, arguments(args, kwargs), wait=wait, **ask)
            if not decision.runs:
                raise Rejected(decision)
            return fn(**decision.arguments)

        return cast(F, run)

    return decorate

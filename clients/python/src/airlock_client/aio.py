"""`AsyncAirlock`: `Airlock` (client.py) for asyncio. Cancelling the task that
waits withdraws the call, so nobody decides a call that will not run."""

from __future__ import annotations

import asyncio
import contextlib
import time
from functools import partial
from typing import Any, Callable, Mapping, Optional, Tuple, TypeVar, Union

import httpx

from . import protocol
from .client import Airlock, _json
from .decision import Decision, Pending
from .errors import Unreachable
from .settings import Client, Patience, stream_timeout

F = TypeVar("F", bound=Callable[..., Any])


class AsyncAirlock(Client):
    """A client of one Airlock, with one API key (a `gateway.api_keys` entry).

    `url` and `key` default to `AIRLOCK_URL` and `AIRLOCK_API_KEY`."""

    def __init__(
        self,
        url: Optional[str] = None,
        key: Optional[str] = None,
        *,
        timeout: float = 10.0,
        transport: Optional[httpx.AsyncBaseTransport] = None,
    ) -> None:
        super().__init__(url, key, timeout=timeout)
        self._http = httpx.AsyncClient(
            headers=self.settings.headers(), timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> AsyncAirlock:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def request(
        self,
        tool: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        source: str,
        session_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        previous_case_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Union[Decision, Pending]:
        """Asks once, without waiting: the decision when the policy allows
        the call at once, or the call waiting for a person. Raises `Refused`
        when the policy refuses it."""
        args = protocol.arguments_of(arguments)
        body = protocol.ask_body(tool, args, source, session_id, agent_id, previous_case_id)
        headers = {"idempotency-key": idempotency_key} if idempotency_key else {}
        response = await self._send("POST", "/api/v1/tool-calls", json=body, headers=headers)
        return protocol.read_ask(
            response.status_code, _json(response), response.headers, tool, args
        )

    async def ask(
        self,
        tool: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        source: str,
        session_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        previous_case_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        wait: Optional[float] = None,
    ) -> Decision:
        """Asks, and waits for the decision: at most `wait` seconds when
        given (then `StillWaiting`), else until the call is decided or
        expires. Cancelled, it withdraws the call first, even while the
        question is still on its way."""
        asking = asyncio.ensure_future(
            self.request(
                tool,
                arguments,
                source=source,
                session_id=session_id,
                agent_id=agent_id,
                previous_case_id=previous_case_id,
                idempotency_key=idempotency_key,
            )
        )
        try:
            asked = await asyncio.shield(asking)
        except asyncio.CancelledError:
            # Airlock may have stored the call already: hear the answer
            # out, and take back a call that waits.
            with contextlib.suppress(Exception):
                pending = await asking
                if isinstance(pending, Pending):
                    await asyncio.shield(
                        asyncio.ensure_future(
                            self._withdraw_quietly(pending, "the agent's task was cancelled")
                        )
                    )
            raise
        if isinstance(asked, Decision):
            return asked
        return await self.wait(asked, timeout=wait)

    async def wait(self, pending: Pending, *, timeout: Optional[float] = None) -> Decision:
        """Waits for a person to decide `pending`: following the case's event
        stream, and polling where streams do not get through."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            return await self._wait(pending, deadline)
        except asyncio.CancelledError:
            withdrawing = self._withdraw_quietly(pending, "the agent's task was cancelled")
            await asyncio.shield(asyncio.ensure_future(withdrawing))
            raise

    async def withdraw(self, pending: Pending, reason: Optional[str] = None) -> Decision:
        """Takes back a call nobody has decided: it will not run, and nobody
        is asked any more. A call decided first keeps its decision, which is
        returned."""
        body = {"reason": reason} if reason else {}
        path = f"/api/v1/reviews/{pending.case_id}/withdraw"
        response = await self._send("POST", path, json=body)
        decision = protocol.read_withdrawal(response.status_code, _json(response), pending)
        if decision is None:
            decision, _ = await self._poll(pending, None)
        assert decision is not None, "a case over first polls as over"
        return decision

    def guard(
        self,
        source: str,
        *,
        tool: Optional[str] = None,
        session_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        wait: Optional[float] = None,
    ) -> Callable[[F], F]:
        """A decorator: each call of the function asks Airlock first, runs
        with the decided arguments, and raises `Rejected` (or `Refused`)
        when it may not run. Plain functions are asked with a blocking client."""
        from .guard import guarded

        twin = partial(Airlock.like, self)
        return guarded(twin, lambda: self, source, tool, session_id, agent_id, wait)

    async def _wait(self, pending: Pending, deadline: Optional[float]) -> Decision:
        patience = Patience()
        parser = protocol.EventParser()
        streaming, etag = True, None
        while True:
            try:
                if streaming:
                    streaming = await self._follow(pending, parser, deadline)
                decision, etag = await self._poll(pending, etag)
                patience.reset()
            except Unreachable as unreachable:
                await asyncio.sleep(patience.next_pause(unreachable, deadline))
                continue
            if decision is not None:
                return decision
            await asyncio.sleep(patience.pause(pending, streaming, deadline))

    async def _follow(
        self, pending: Pending, parser: protocol.EventParser, deadline: Optional[float]
    ) -> bool:
        """Reads the case's events until a terminal one, the stream's end or
        the deadline. False when there is no stream to follow."""
        headers = {"accept": "text/event-stream"}
        if parser.last_id:
            headers["last-event-id"] = parser.last_id
        path = f"/api/v1/reviews/{pending.case_id}/events"
        try:
            async with self._http.stream(
                "GET",
                self.settings.url + path,
                headers=headers,
                timeout=stream_timeout(self.settings.timeout, deadline),
            ) as response:
                kind = response.headers.get("content-type", "")
                if response.status_code != 200 or not kind.startswith("text/event-stream"):
                    return False
                # Closed here, not when collected: a generator left to the
                # collector is closed outside its event loop.
                lines = response.aiter_lines()
                try:
                    async for line in lines:
                        for event in parser.feed(line):
                            if event.name in protocol.TERMINAL_EVENTS:
                                return True
                finally:
                    await lines.aclose()  # type: ignore[attr-defined]
        except httpx.ReadTimeout:
            return True
        except httpx.TransportError as e:
            raise Unreachable(self.settings.url, e) from e
        return True

    async def _poll(
        self, pending: Pending, etag: Optional[str]
    ) -> Tuple[Optional[Decision], Optional[str]]:
        path = f"/api/v1/reviews/{pending.case_id}/status"
        headers = {"if-none-match": etag} if etag else {}
        while True:
            response = await self._send("GET", path, headers=headers)
            if response.status_code != 429:
                break
            await asyncio.sleep(protocol.retry_after(response.headers, 5.0))
        status, body = response.status_code, _json(response)
        return protocol.read_poll(status, body, response.headers, pending, etag)

    async def _withdraw_quietly(self, pending: Pending, reason: str) -> None:
        # The interruption is what the caller sees, whatever the withdrawal met.
        with contextlib.suppress(Exception):
            await self.withdraw(pending, reason)

    async def _send(self, method: str, path: str, **rest: Any) -> httpx.Response:
        try:
            return await self._http.request(method, self.settings.url + path, **rest)
        except httpx.TransportError as e:
            raise Unreachable(self.settings.url, e) from e

"""What both clients share: where Airlock is, the key, and how long to keep
trying when it does not answer."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Dict, Optional, Type, TypeVar

import httpx

from .decision import Pending
from .errors import StillWaiting, Unauthorized, Unreachable

VERSION = "0.1.0"
PATIENCE_SECONDS = 300.0
"""How long a wait outlasts an Airlock that does not answer (a restart, a
network blip) before it gives up with `Unreachable`."""
STREAM_READ_SECONDS = 45.0
"""Airlock sends a comment every 15 s on an event stream: three missed ones
mean the connection is gone."""


@dataclass(frozen=True)
class Settings:
    url: str
    key: str
    timeout: float

    @staticmethod
    def of(url: Optional[str], key: Optional[str], timeout: float) -> Settings:
        url = url or os.environ.get("AIRLOCK_URL") or "http://127.0.0.1:3000"
        key = key or os.environ.get("AIRLOCK_API_KEY")
        if not key:
            raise Unauthorized(
                "no_api_key", "no API key: pass key= or set AIRLOCK_API_KEY (gateway.api_keys)"
            )
        return Settings(url.rstrip("/"), key, timeout)

    def headers(self) -> Dict[str, str]:
        return {
            "authorization": f"Bearer {self.key}",
            "user-agent": f"airlock-client-python/{VERSION}",
        }


C = TypeVar("C", bound="Client")


class Client:
    """What both kinds of client share: where Airlock is, and the key."""

    def __init__(
        self, url: Optional[str] = None, key: Optional[str] = None, *, timeout: float = 10.0
    ) -> None:
        self.settings = Settings.of(url, key, timeout)

    @classmethod
    def like(cls: Type[C], other: Optional[Client] = None) -> C:
        """A client of this kind asking the same Airlock as `other` (of
        either kind), with its key and timeout; without one, the
        environment's."""
        if other is None:
            return cls()
        return cls(other.settings.url, other.settings.key, timeout=other.settings.timeout)


def stream_timeout(timeout: float, deadline: Optional[float]) -> httpx.Timeout:
    """An event stream's timeouts: the usual to connect, and a read that
    ends at the caller's deadline if that comes first."""
    read = STREAM_READ_SECONDS
    if deadline is not None:
        read = max(min(read, deadline - time.monotonic()), 0.05)
    return httpx.Timeout(timeout, read=read)


class Patience:
    """Pauses between attempts while Airlock does not answer: 1 s, doubling
    to 15 s, for at most `PATIENCE_SECONDS` in a row."""

    def __init__(self) -> None:
        self._since: Optional[float] = None
        self._pause = 1.0

    def reset(self) -> None:
        self._since, self._pause = None, 1.0

    def next_pause(self, unreachable: Unreachable, deadline: Optional[float]) -> float:
        now = time.monotonic()
        self._since = self._since if self._since is not None else now
        if now - self._since >= PATIENCE_SECONDS or self.left(deadline) <= 0:
            raise unreachable
        pause, self._pause = self._pause, min(self._pause * 2, 15.0)
        return min(pause, self.left(deadline))

    def pause(self, pending: Pending, streaming: bool, deadline: Optional[float]) -> float:
        """The pause before looking at a case still open again: a moment
        before following its stream once more, else what the 202's
        `Retry-After` asked; `StillWaiting` once the deadline passed."""
        left = self.left(deadline)
        if left <= 0:
            raise StillWaiting(pending.case_id, pending.review_url)
        return min(left, 1.0 if streaming else pending.retry_after)

    @staticmethod
    def left(deadline: Optional[float]) -> float:
        return float("inf") if deadline is None else deadline - time.monotonic()

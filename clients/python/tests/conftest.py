"""A real Airlock for the tests: the binary `make test` builds, on a free port,
over a data folder of its own, with a policy for a source named `files`."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator

import httpx
import pytest

KEY = "test-key-builder"

POLICY = """
approvals:
  expires_after: {expires_after}
  default_action: reject
gateway:
  api_keys:
    - name: builder
      sha256: {sha256}
sources:
  files:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file, write_file, send_email]
    rules:
      - tool: write_file
        when: [{{ arg: /path, glob: "/etc/**" }}]
        action: deny
"""


def binary() -> Path:
    named = os.environ.get("AIRLOCK_SERVER_BIN")
    if named:
        return Path(named)
    target = os.environ.get("CARGO_TARGET_DIR") or str(Path.home() / ".cache/airlock/target")
    return Path(target) / "debug" / "airlock"


@dataclass
class Server:
    """A running Airlock, and what a person does there."""

    url: str
    process: subprocess.Popen[str]

    def waiting_call(self, tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """The call of `tool` with `arguments` once it waits for a person:
        the tests act when Airlock says so, never after a pause."""
        while True:
            page = httpx.get(f"{self.url}/api/v1/calls/pending", params={"tool": tool}).json()
            for call in page["calls"]:
                if call["arguments"] == arguments:
                    return dict(call)
            time.sleep(0.05)

    def call(self, call_id: str) -> Dict[str, Any]:
        return dict(httpx.get(f"{self.url}/api/v1/calls/{call_id}").json())

    def press(self, endpoint: str, **form: str) -> None:
        """A press on the call's card in the chat: the form the card posts."""
        response = httpx.post(
            f"{self.url}/api/fn/{endpoint}",
            data=form,
            headers={"accept": "application/json"},
        )
        assert response.status_code == 200, response.text


def start(folder: Path, expires_after: str) -> Server:
    config = folder / "airlock.yaml"
    sha256 = hashlib.sha256(KEY.encode()).hexdigest()
    config.write_text(POLICY.format(expires_after=expires_after, sha256=sha256))
    env = dict(os.environ)
    env.update(
        AIRLOCK_ADDR="127.0.0.1:0",
        AIRLOCK_DATA_DIR=str(folder / "data"),
        AIRLOCK_CONFIG=str(config),
        AIRLOCK_LOG="warn",
    )
    env.pop("AIRLOCK_DATABASE_URL", None)
    process = subprocess.Popen([str(binary()), "serve"], env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Airlock is ready at "):
            return Server(line.removeprefix("Airlock is ready at ").strip(), process)
    raise RuntimeError(f"{binary()} stopped before it was ready ({process.wait()})")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start(tmp_path_factory.mktemp("airlock"), "24h")
    yield running
    running.process.terminate()
    running.process.wait()


@pytest.fixture(scope="session")
def lapsing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An Airlock whose calls expire a second after they are asked."""
    running = start(tmp_path_factory.mktemp("lapsing"), "1s")
    yield running
    running.process.terminate()
    running.process.wait()


def sessions() -> Iterator[str]:
    n = 0
    while True:
        n += 1
        yield f"py-{os.getpid()}-{n}"


_sessions = sessions()


@pytest.fixture
def session_id() -> str:
    """A session of its own for each test: its calls are one conversation."""
    return next(_sessions)

"""A scripted model behind an OpenAI-compatible endpoint, for frameworks that
talk to one: the first request gets the scripted tool calls, every later one
(the tools' results are in) a final answer. No network beyond loopback."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List


class ScriptedModel:
    def __init__(self, calls: List[Dict[str, Any]], answer: str = "done") -> None:
        self.calls = calls
        self.answer = answer
        self.seen: List[Dict[str, Any]] = []

    def reply(self, request: Dict[str, Any]) -> Dict[str, Any]:
        self.seen.append(request)
        answered = any(m.get("role") == "tool" for m in request.get("messages", []))
        message: Dict[str, Any] = {"role": "assistant", "content": self.answer}
        reason = "stop"
        if not answered:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{n}",
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
                    }
                    for n, c in enumerate(self.calls)
                ],
            }
            reason = "tool_calls"
        return {
            "id": f"chatcmpl-{len(self.seen)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def tool_results(self) -> Dict[str, str]:
        """What the model was told each call gave, by call id."""
        last = self.seen[-1].get("messages", [])
        return {m["tool_call_id"]: str(m["content"]) for m in last if m.get("role") == "tool"}

    def serve(self) -> Iterator[str]:
        """Serves the script; yields the base URL (`…/v1`)."""
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                length = int(self.headers.get("content-length", 0))
                body = json.dumps(model.reply(json.loads(self.rfile.read(length)))).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()

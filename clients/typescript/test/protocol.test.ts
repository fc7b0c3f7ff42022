// The protocol's reading without a server: events split across chunks, poll
// answers, and the fallback to polling where an event stream does not get
// through.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Airlock, type Pending } from "../src/index.js";
import { EventParser, readStatus } from "../src/protocol.js";

const pending: Pending = {
  caseId: "review_1",
  tool: "delete_file",
  arguments: { path: "a" },
  reviewUrl: "http://x/review/review_1?token=t",
  callId: "call_1",
  retryAfter: 0,
  hitl: {},
};

test("events are read whole, however the stream is cut", () => {
  const parser = new EventParser();
  const stream =
    ': keep-alive\n\nevent: review.opened\nid: 3\ndata: {}\n\nevent: review.completed\r\nid: 4\ndata: {"a":\ndata: 1}\n\n';
  const events = [stream.slice(0, 17), stream.slice(17, 50), stream.slice(50)].flatMap((c) => parser.push(c));
  assert.deepEqual(events, [
    { name: "review.opened", data: "{}", id: "3" },
    { name: "review.completed", data: '{"a":\n1}', id: "4" },
  ]);
});

test("poll answers become decisions", () => {
  assert.equal(readStatus({ status: "in_progress" }, pending), undefined);
  const edited = readStatus(
    { status: "completed", result: { action: "edit", data: { edits: { path: "b" } } }, responded_by: { name: "Ana" } },
    pending,
  );
  assert.equal(edited?.outcome, "approved");
  assert.deepEqual(edited?.arguments, { path: "b" });
  assert.ok(edited?.edited && edited.runs && edited.decidedBy === "Ana");
  const always = readStatus(
    { status: "completed", result: { action: "approve", data: { always_allow: true } } },
    pending,
  );
  assert.ok(always?.alwaysAllowed && !always.edited);
  assert.equal(readStatus({ status: "expired", default_action: "approve" }, pending)?.runs, true);
  assert.throws(() => readStatus({ status: "completed", result: { action: "dance" } }, pending));
});

test("without an event stream the client polls, honouring Retry-After and ETags", async () => {
  const seen: string[] = [];
  const answers = [
    new Response('{"code":"rate_limited"}', { status: 429, headers: { "retry-after": "0" } }),
    new Response('{"status":"pending"}', { status: 200, headers: { etag: '"v1"' } }),
    new Response(null, { status: 304, headers: { etag: '"v1"' } }),
    new Response('{"status":"completed","result":{"action":"approve","data":{}}}', { status: 200 }),
  ];
  const fake: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const etag = new Headers(init?.headers).get("if-none-match");
    seen.push(`${url.pathname} ${etag}`);
    if (url.pathname.endsWith("/events")) return new Response('{"code":"not_found"}', { status: 404 });
    return answers.shift() as Response;
  };
  const decision = await new Airlock({ url: "http://airlock.test", key: "k", fetch: fake }).wait(pending);
  assert.equal(decision.outcome, "approved");
  assert.deepEqual(seen, [
    "/api/v1/reviews/review_1/events null",
    "/api/v1/reviews/review_1/status null",
    "/api/v1/reviews/review_1/status null",
    '/api/v1/reviews/review_1/status "v1"',
    '/api/v1/reviews/review_1/status "v1"',
  ]);
});

// The client against a real Airlock: each outcome a call can have, and what
// goes wrong.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  Airlock,
  InvalidRequest,
  ReceiptRefused,
  Refused,
  Rejected,
  StillWaiting,
  Unauthorized,
  Unreachable,
  verifyReceipt,
  type KeySet,
} from "../src/index.js";
import { KEY, Server, session } from "./support.js";

let server: Server;
let lapsing: Server;
before(async () => {
  server = await Server.start();
  lapsing = await Server.start("1s");
});
after(() => {
  server.stop();
  lapsing.stop();
});

test("a call the policy allows runs at once", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const decision = await airlock.ask("read_file", { path: "a.txt" }, { source: "files" });
  assert.equal(decision.outcome, "allowed");
  assert.ok(decision.runs && !decision.edited && decision.callId && decision.reason && decision.receipt);
});

test("a call the policy refuses throws with the rule", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  await assert.rejects(airlock.ask("write_file", { path: "/etc/passwd" }, { source: "files" }), (e: unknown) => {
    assert.ok(e instanceof Refused && e instanceof Rejected);
    assert.equal(e.rule, "matched rule 1: write_file /path glob /etc/**");
    assert.equal(e.hidden, false);
    return true;
  });
  await assert.rejects(
    airlock.ask("admin_wipe", {}, { source: "files" }),
    (e: unknown) => e instanceof Refused && e.hidden,
  );
});

test("a guarded function runs with a person's edits, and not when rejected", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const sessionId = session();
  const ran: unknown[] = [];
  const writeFile = airlock.guard(
    "write_file",
    async (args: { path: string; content: string }) => {
      ran.push(args);
      return `wrote ${args.path}`;
    },
    { source: "files", sessionId },
  );
  const asked = { path: `${sessionId}.txt`, content: "draft" };
  const edited = { path: asked.path, content: "final" };
  const person = server
    .waitingCall("write_file", asked)
    .then((call) => server.press("edit_call", { call_id: call.id, arguments: JSON.stringify(edited) }));
  assert.equal(await writeFile(asked), `wrote ${asked.path}`);
  await person;
  assert.deepEqual(ran, [edited]);

  const refused = { path: `${sessionId}.old`, content: "x" };
  const rejecter = server
    .waitingCall("write_file", refused)
    .then((call) => server.press("reject_call", { call_id: call.id, reason: "keep it" }));
  await assert.rejects(writeFile(refused), (e: unknown) => {
    assert.ok(e instanceof Rejected);
    assert.equal(e.reason, "keep it");
    assert.equal(e.decision?.outcome, "rejected");
    return true;
  });
  await rejecter;
  assert.equal(ran.length, 1);
});

test("an approval reads as approved, with who decided", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const args = { to: "ana@example.com", body: session() };
  const person = server
    .waitingCall("send_email", args)
    .then((call) => server.press("approve_call", { call_id: call.id }));
  const decision = await airlock.ask("send_email", args, { source: "files" });
  await person;
  assert.equal(decision.outcome, "approved");
  assert.ok(decision.runs && !decision.edited && decision.decidedBy && decision.caseId);
  // Its receipt, as a service downstream checks it before acting.
  const keys = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as KeySet;
  const claims = verifyReceipt(decision.receipt ?? "", keys, { arguments: args });
  assert.ok(claims.approved && claims.tool === "send_email");
  assert.throws(
    () => verifyReceipt(decision.receipt ?? "", keys, { arguments: { ...args, to: "eve@example.com" } }),
    (e: unknown) => e instanceof ReceiptRefused && e.code === "receipt_arguments_differ",
  );
});

test("an aborted wait withdraws the call", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const args = { path: `${session()}-aborted` };
  const abort = new AbortController();
  const found = server.waitingCall("delete_file", args).then((call) => {
    abort.abort();
    return call;
  });
  await assert.rejects(airlock.ask("delete_file", args, { source: "files", signal: abort.signal }), {
    name: "AbortError",
  });
  const call = await server.call((await found).id);
  assert.equal(call.status, "cancelled");
  assert.equal(call.decision?.reason, "the agent's call was aborted");
});

test("a wait that ends first leaves the call to pick up or withdraw", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const asked = await airlock.request("delete_file", { path: session() }, { source: "files" });
  assert.ok(!("outcome" in asked));
  await assert.rejects(airlock.wait(asked, { timeoutMs: 300 }), StillWaiting);
  const withdrawn = await airlock.withdraw(asked, "changed my mind");
  assert.equal(withdrawn.outcome, "withdrawn");
  assert.equal(withdrawn.reason, "changed my mind");
  assert.deepEqual(await airlock.wait(asked), withdrawn);
});

test("a request sent again with its idempotency key gets the same call", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const options = { source: "files", idempotencyKey: `${session()}-once` };
  const first = await airlock.request("delete_file", { path: "once.txt" }, options);
  const again = await airlock.request("delete_file", { path: "once.txt" }, options);
  assert.ok(!("outcome" in first) && !("outcome" in again));
  assert.equal(again.caseId, first.caseId);
  await assert.rejects(
    airlock.request("delete_file", { path: "other.txt" }, options),
    (e: unknown) => e instanceof InvalidRequest && e.code === "idempotency_key_reused",
  );
  await airlock.withdraw(first);
});

test("a call nobody decides expires and does not run", async () => {
  const airlock = new Airlock({ url: lapsing.url, key: KEY });
  const decision = await airlock.ask("delete_file", { path: session() }, { source: "files" });
  assert.equal(decision.outcome, "expired");
  assert.equal(decision.defaultAction, "reject");
  assert.equal(decision.runs, false);
});

test("mistakes are typed and nothing runs", async () => {
  const ran: unknown[] = [];
  const unreachable = new Airlock({ url: "http://127.0.0.1:9", key: KEY });
  const deleteFile = unreachable.guard("delete_file", (args: { path: string }) => ran.push(args), { source: "files" });
  await assert.rejects(deleteFile({ path: "notes.txt" }), Unreachable);
  assert.deepEqual(ran, []);
  const stranger = new Airlock({ url: server.url, key: "not-a-key" });
  await assert.rejects(
    stranger.ask("read_file", {}, { source: "files" }),
    (e: unknown) => e instanceof Unauthorized && e.status === 401,
  );
  assert.throws(() => new Airlock({ url: server.url, key: "" }), Unauthorized);
});

// The Vercel AI SDK's `generateText`, with a scripted model, against a real
// Airlock: the tools run only as Airlock decides.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";

import { Airlock, Refused, Rejected, Unreachable } from "../src/index.js";
import { airlockTools } from "../src/ai.js";
import { ScriptedModel, type ScriptedCall } from "./scripted-model.js";
import { KEY, Server, session } from "./support.js";

let server: Server;
before(async () => {
  server = await Server.start();
});
after(() => server.stop());

/** The file tools an agent has, recording what they ran with; `read_file` streams. */
function files(ran: unknown[]) {
  return {
    read_file: tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async function* ({ path }) {
        yield `opening ${path}`;
        yield `contents of ${path}`;
      },
    }),
    write_file: tool({
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async (args) => {
        ran.push(args);
        return `wrote ${args.path}`;
      },
    }),
  };
}

async function run(calls: ScriptedCall[], airlock: Airlock, abortSignal?: AbortSignal) {
  const model = new ScriptedModel(calls);
  const openai = createOpenAI({ baseURL: await model.serve(), apiKey: "scripted" });
  const ran: unknown[] = [];
  try {
    const result = await generateText({
      model: openai.chat("scripted"),
      tools: airlockTools(files(ran), { airlock, source: "files", sessionId: session() }),
      prompt: "tidy up",
      stopWhen: stepCountIs(3),
      abortSignal,
    });
    return { result, ran, told: model.toolResults() };
  } finally {
    model.stop();
  }
}

test("an allowed call runs and a refused one does not, the model told the rule", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const { result, ran, told } = await run(
    [
      { name: "read_file", args: { path: "a.txt" } },
      { name: "write_file", args: { path: "/etc/passwd", content: "x" } },
    ],
    airlock,
  );
  assert.equal(result.text, "done");
  assert.deepEqual(ran, []);
  assert.equal(told.call_0, "contents of a.txt");
  assert.match(told.call_1!, /refuses write_file: matched rule 1: write_file \/path glob \/etc\/\*\*/);
  const failed = result.steps[0]!.content.find((part) => part.type === "tool-error");
  assert.ok(failed?.type === "tool-error" && failed.error instanceof Refused);
});

test("a waiting call runs with a person's edits; a rejected one tells the model why", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const { asked, edited, refused, people } = server.editOneRejectOther();
  const { ran, told, result } = await run(
    [
      { name: "write_file", args: asked },
      { name: "write_file", args: refused },
    ],
    airlock,
  );
  await people;
  assert.deepEqual(ran, [edited]);
  assert.equal(told.call_0, `wrote ${asked.path}`);
  assert.match(told.call_1!, /write_file was rejected: keep the old one/);
  const failed = result.steps[0]!.content.find((part) => part.type === "tool-error");
  assert.ok(failed?.type === "tool-error" && failed.error instanceof Rejected);
});

test("an aborted generation withdraws the waiting call", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const args = { path: `${session()}.txt`, content: "never" };
  const abort = new AbortController();
  const found = server.waitingCall("write_file", args).then((call) => {
    abort.abort();
    return call;
  });
  await assert.rejects(run([{ name: "write_file", args }], airlock, abort.signal));
  const call = await server.call((await found).id);
  assert.equal(call.status, "cancelled");
});

test("an unreachable Airlock runs nothing", async () => {
  const airlock = new Airlock({ url: "http://127.0.0.1:9", key: KEY });
  const { ran, result } = await run([{ name: "write_file", args: { path: "a.txt", content: "x" } }], airlock);
  assert.deepEqual(ran, []);
  const failed = result.steps[0]!.content.find((part) => part.type === "tool-error");
  assert.ok(failed?.type === "tool-error" && failed.error instanceof Unreachable);
});

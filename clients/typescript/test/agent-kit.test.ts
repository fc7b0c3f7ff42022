// Inngest's AgentKit, with a scripted model, against a real Airlock: a
// network's agent runs its tools only as Airlock decides.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import { createAgent, createNetwork, createTool, openai } from "@inngest/agent-kit";
import { z } from "zod";

import { Airlock } from "../src/index.js";
import { airlockTools } from "../src/agent-kit.js";
import { ScriptedModel, type ScriptedCall } from "./scripted-model.js";
import { KEY, Server, session } from "./support.js";

let server: Server;
before(async () => {
  server = await Server.start();
});
after(() => server.stop());

/** The file tools an agent has, recording what they ran with. */
function files(ran: unknown[]) {
  return [
    createTool({
      name: "read_file",
      parameters: z.object({ path: z.string() }),
      handler: async ({ path }) => `contents of ${path}`,
    }),
    createTool({
      name: "write_file",
      parameters: z.object({ path: z.string(), content: z.string() }),
      handler: async (args) => {
        ran.push(args);
        return `wrote ${args.path}`;
      },
    }),
  ];
}

/** One network run: the agent makes the scripted calls, then reads their results and answers. */
async function run(calls: ScriptedCall[], airlock: Airlock) {
  const model = new ScriptedModel(calls);
  const baseUrl = await model.serve();
  const ran: unknown[] = [];
  const agent = createAgent({
    name: "ops",
    system: "You keep the files tidy.",
    model: openai({ model: "scripted", baseUrl, apiKey: "scripted" }),
    tools: airlockTools(files(ran), { airlock, source: "files" }),
  });
  const network = createNetwork({
    name: "tidy",
    agents: [agent],
    router: ({ callCount }) => (callCount < 2 ? agent : undefined),
  });
  try {
    await network.run("tidy up");
    return { ran, told: model.toolResults() };
  } finally {
    model.stop();
  }
}

test("an allowed call runs and a refused one does not, the model told the rule", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const { ran, told } = await run(
    [
      { name: "read_file", args: { path: "a.txt" } },
      { name: "write_file", args: { path: "/etc/passwd", content: "x" } },
    ],
    airlock,
  );
  assert.deepEqual(ran, []);
  assert.match(told.call_0!, /contents of a.txt/);
  assert.match(told.call_1!, /refuses this call: matched rule 1: write_file \/path glob/);
});

test("a waiting call runs with a person's edits; a rejected one tells the model why", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const { asked, edited, refused, people } = server.editOneRejectOther();
  const { ran, told } = await run(
    [
      { name: "write_file", args: asked },
      { name: "write_file", args: refused },
    ],
    airlock,
  );
  await people;
  assert.deepEqual(ran, [edited]);
  assert.match(told.call_0!, new RegExp(`wrote ${asked.path}`));
  assert.match(told.call_1!, /This call was rejected: keep the old one. It did not run./);
});

test("an unreachable Airlock runs nothing", async () => {
  const airlock = new Airlock({ url: "http://127.0.0.1:9", key: KEY });
  const { ran, told } = await run([{ name: "write_file", args: { path: "a.txt", content: "x" } }], airlock);
  assert.deepEqual(ran, []);
  assert.match(told.call_0!, /"code":"unreachable"/);
});

/**
 * Inngest's step tools as its replays see them, inside this test only: a
 * step's result is kept by its id, and a step that fails is run again on the
 * next replay. `failing` names a step whose first run dies.
 */
function replayedSteps(failing: string, events?: EventApi) {
  const kept = new Map<string, unknown>();
  let failed = false;
  return {
    // The event whose case the expression names, as Inngest would match it.
    waitForEvent: async (_id: string, options: { event: string; if: string }) => {
      assert.equal(options.event, "airlock/call.decided");
      return events!.next(JSON.parse(options.if.split(" == ")[1]!) as string);
    },
    run: async (id: string, fn: () => Promise<unknown>) => {
      if (kept.has(id)) return kept.get(id);
      if (id === failing && !failed) {
        failed = true;
        throw new Error("the process running the function was stopped");
      }
      kept.set(id, JSON.parse(JSON.stringify(await fn())));
      return kept.get(id);
    },
  };
}

test("inside an Inngest function a replay re-attaches to the same call", async () => {
  const airlock = new Airlock({ url: server.url, key: KEY });
  const ran: unknown[] = [];
  const [, writeFile] = airlockTools(files(ran), { airlock, source: "files", sessionId: session() });
  const asked = { path: `${session()}.txt`, content: "draft" };
  const context = { step: replayedSteps("airlock-wait-write_file") } as never;
  await assert.rejects(async () => writeFile!.handler(asked, context), /was stopped/);
  const replay = writeFile!.handler(asked, context);
  const call = await server.waitingCall("write_file", asked);
  await server.press("approve_call", { call_id: call.id });
  assert.equal(await replay, `wrote ${asked.path}`);
  assert.deepEqual(ran, [asked]);
  const pending = await (await fetch(`${server.url}/api/v1/calls/pending?tool=write_file`)).json();
  assert.ok(!JSON.stringify(pending).includes(asked.path), "no second call waits");
});

/** An Inngest Event API on loopback (`POST /e/<key>`): the events it is sent. */
class EventApi {
  readonly events: { name: string; data: { case_id: string } }[] = [];
  #server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      this.events.push(...JSON.parse(body));
      response.writeHead(200, { "content-type": "application/json" }).end('{"ids":[],"status":200}');
    });
  });

  async url(): Promise<string> {
    await new Promise<void>((ready) => this.#server.listen(0, "127.0.0.1", ready));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/e/test-event-key`;
  }

  /** The event of case `caseId`, once it arrives. */
  async next(caseId: string) {
    for (;;) {
      const found = this.events.find((event) => event.data.case_id === caseId);
      if (found) return found;
      await new Promise((tick) => setTimeout(tick, 50));
    }
  }

  stop(): void {
    this.#server.close();
  }
}

test("inside an Inngest function the decision can come as Airlock's event", async () => {
  const api = new EventApi();
  const sending = await Server.start("24h", await api.url());
  try {
    const airlock = new Airlock({ url: sending.url, key: KEY });
    const ran: unknown[] = [];
    const options = { airlock, source: "files", sessionId: session(), decidedEvents: true };
    const [, writeFile] = airlockTools(files(ran), options);
    const { asked, edited, refused, people } = sending.editOneRejectOther();
    // Each call in a function of its own: a fake step names its steps by their ids alone.
    const context = () => ({ step: replayedSteps("none", api) }) as never;
    const answers = await Promise.all([writeFile!.handler(asked, context()), writeFile!.handler(refused, context())]);
    await people;
    assert.deepEqual(answers, [`wrote ${asked.path}`, "This call was rejected: keep the old one. It did not run."]);
    assert.deepEqual(ran, [edited]);
    assert.equal(api.events.length, 2);
  } finally {
    sending.stop();
    api.stop();
  }
});

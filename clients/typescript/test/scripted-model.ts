// A scripted model behind an OpenAI-compatible endpoint, for frameworks that
// talk to one: the first request gets the scripted tool calls, every later one
// (the tools' results are in) a final answer. No network beyond loopback.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

type Message = { role: string; content?: unknown; tool_call_id?: string };
type Request = { model?: string; messages?: Message[] };

export class ScriptedModel {
  readonly seen: Request[] = [];
  #server?: Server;

  constructor(
    readonly calls: ScriptedCall[],
    readonly answer = "done",
  ) {}

  /** Serves the script; resolves to the base URL (`…/v1/`). */
  async serve(): Promise<string> {
    this.#server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const reply = JSON.stringify(this.#reply(JSON.parse(body) as Request));
        response.writeHead(200, { "content-type": "application/json" }).end(reply);
      });
    });
    await new Promise<void>((ready) => this.#server!.listen(0, "127.0.0.1", ready));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1/`;
  }

  stop(): void {
    this.#server?.close();
  }

  /** What the model was told each call gave, by call id. */
  toolResults(): Record<string, string> {
    const last = this.seen.at(-1)?.messages ?? [];
    const told = last.filter((m) => m.role === "tool");
    return Object.fromEntries(
      told.map((m) => [m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content)]),
    );
  }

  #reply(request: Request) {
    this.seen.push(request);
    const answered = (request.messages ?? []).some((m) => m.role === "tool");
    const message = answered
      ? { role: "assistant", content: this.answer }
      : {
          role: "assistant",
          content: null,
          tool_calls: this.calls.map((call, n) => ({
            id: `call_${n}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        };
    return {
      id: `chatcmpl-${this.seen.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model ?? "scripted",
      choices: [{ index: 0, message, finish_reason: answered ? "stop" : "tool_calls" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
  }
}

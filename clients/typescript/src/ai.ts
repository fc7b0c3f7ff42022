// The Vercel AI SDK (`ai`): tools whose calls Airlock decides.
//
//   import { airlockTools } from "@airlock/client/ai";
//   const result = await generateText({ model, tools: airlockTools({ deleteFile }, { source: "files" }), prompt });
//
// Each call asks Airlock when the model makes it and waits there for a person
// when the policy says so. It runs with the arguments decided (a person's
// edits applied, which the SDK's own approval cannot do). Otherwise it fails
// with `Rejected` (or `Refused`): the SDK hands the model that error's message,
// the call's reason included, and keeps the typed error in the step's
// `tool-error` part. Aborting the generation withdraws a waiting call.

import type { Tool, ToolExecutionOptions, ToolSet } from "ai";

import { lazyClient, type AdapterOptions } from "./adapter.js";
import { Rejected } from "./errors.js";

type Execute = (input: unknown, run: ToolExecutionOptions<unknown>) => unknown;

/** Copies of `tools` whose calls Airlock's `source` policy decides first; a tool without `execute` is left as it is. */
export function airlockTools<TOOLS extends ToolSet>(tools: TOOLS, options: AdapterOptions): TOOLS {
  const client = lazyClient(options);
  const decided = async (name: string, input: unknown, run: ToolExecutionOptions<unknown>) => {
    const decision = await client().ask(name, input, {
      source: options.source,
      sessionId: options.sessionId,
      agentId: options.agentId,
      waitMs: options.waitMs,
      signal: run.abortSignal,
    });
    if (!decision.runs) throw new Rejected(decision);
    return decision.arguments;
  };
  const gated = Object.entries(tools).map(([name, tool]: [string, Tool]) => {
    const execute = tool.execute as Execute | undefined;
    if (!execute) return [name, tool];
    // A streaming tool (an async generator) stays one, so its preliminary results still stream.
    const gate =
      execute.constructor.name === "AsyncGeneratorFunction"
        ? async function* (input: unknown, run: ToolExecutionOptions<unknown>) {
            yield* execute(await decided(name, input, run), run) as AsyncIterable<unknown>;
          }
        : async (input: unknown, run: ToolExecutionOptions<unknown>) => execute(await decided(name, input, run), run);
    // Airlock decides instead of the SDK's own approval, so a person is asked once.
    const { needsApproval, ...rest } = tool as Tool & { needsApproval?: unknown };
    return [name, { ...rest, execute: gate }];
  });
  return Object.fromEntries(gated) as TOOLS;
}

// Inngest's AgentKit (`@inngest/agent-kit`): tools whose calls Airlock decides.
//
//   import { airlockTools } from "@airlock/client/agent-kit";
//   const agent = createAgent({ name: "ops", system, tools: airlockTools([deleteFile], { source: "files" }) });
//
// Each call asks Airlock when the agent makes it and waits there for a person
// when the policy says so: the handler runs with the arguments decided (a
// person's edits applied), or the model reads why the call did not run as the
// tool's result (a thrown error would hand it a stack trace).
//
// Inside an Inngest function (`step` is given) the question and the wait are
// two steps: Inngest replays a function from the top for each step, and
// keeps a step's result, so a replay or a retried wait re-attaches to the same
// Airlock call and never asks twice.

import type { Tool } from "@inngest/agent-kit";

import { lazyClient, refusal, verdictOf, type AdapterOptions, type Verdict } from "./adapter.js";
import type { Airlock, AskOptions } from "./client.js";
import type { Decision, Pending } from "./decision.js";

type Step = NonNullable<Tool.Options<never>["step"]>;

/** Copies of `tools` whose calls Airlock's `source` policy decides first. */
export function airlockTools<T extends Tool.Any>(tools: T[], options: AdapterOptions): T[] {
  const client = lazyClient(options);
  return tools.map((tool) => {
    const handler: Tool.Any["handler"] = async (input, context) => {
      const ask: AskOptions = {
        source: options.source,
        // A network's thread is the agent's conversation, so its calls group as one in Airlock.
        sessionId: options.sessionId ?? context.network?.state.threadId,
        agentId: options.agentId ?? context.agent?.name,
      };
      const verdict = await decide(client(), tool.name, input, ask, options.waitMs, context.step);
      return verdict.runs ? tool.handler(verdict.arguments, context) : verdict.whyNot;
    };
    return { ...tool, handler };
  });
}

async function decide(
  airlock: Airlock,
  name: string,
  input: unknown,
  ask: AskOptions,
  waitMs: number | undefined,
  step: Step | undefined,
): Promise<Verdict> {
  if (!step) return airlock.ask(name, input, { ...ask, waitMs }).then(verdictOf, refusal);
  const asked = await step.run(`airlock-ask-${name}`, async (): Promise<Verdict | Pending> => {
    const answer = await airlock.request(name, input, ask).catch(refusal);
    return "outcome" in answer ? verdictOf(answer) : answer;
  });
  if ("runs" in asked) return asked as Verdict;
  const pending = asked as Pending;
  return verdictOf(
    (await step.run(`airlock-wait-${name}`, () => airlock.wait(pending, { timeoutMs: waitMs }))) as Decision,
  );
}

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
// Airlock call and never asks twice. With `decidedEvents`, the wait is
// `step.waitForEvent` for the `airlock/call.decided` event Airlock's
// `inngest` channel sends: nothing runs while a person decides.

import type { Tool } from "@inngest/agent-kit";

import { lazyClient, refusal, verdictOf, type AdapterOptions, type Verdict } from "./adapter.js";
import type { Airlock, AskOptions } from "./client.js";
import { decision, type Arguments, type Decision, type Outcome, type Pending } from "./decision.js";

type Step = NonNullable<Tool.Options<never>["step"]>;

/** The event Airlock's `inngest` channel sends once a call is decided. */
export const DECIDED_EVENT = "airlock/call.decided";

export interface AgentKitOptions extends AdapterOptions {
  /**
   * Airlock sends `airlock/call.decided` to this app's Inngest (a channel
   * `inngest:` in `notify:` that the source's policy names): inside an
   * Inngest function, wait for that event instead of inside a step.
   */
  decidedEvents?: boolean;
}

/** Copies of `tools` whose calls Airlock's `source` policy decides first. */
export function airlockTools<T extends Tool.Any>(tools: T[], options: AgentKitOptions): T[] {
  const client = lazyClient(options);
  return tools.map((tool) => {
    const handler: Tool.Any["handler"] = async (input, context) => {
      const ask: AskOptions = {
        source: options.source,
        // A network's thread is the agent's conversation, so its calls group as one in Airlock.
        sessionId: options.sessionId ?? context.network?.state.threadId,
        agentId: options.agentId ?? context.agent?.name,
      };
      const verdict = await decide(client(), tool.name, input, ask, options, context.step);
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
  { waitMs, decidedEvents }: AgentKitOptions,
  step: Step | undefined,
): Promise<Verdict> {
  if (!step) return airlock.ask(name, input, { ...ask, waitMs }).then(verdictOf, refusal);
  const asked = await step.run(`airlock-ask-${name}`, async (): Promise<Verdict | Pending> => {
    const answer = await airlock.request(name, input, ask).catch(refusal);
    return "outcome" in answer ? verdictOf(answer) : answer;
  });
  if ("runs" in asked) return asked as Verdict;
  const pending = asked as Pending;
  if (decidedEvents) {
    // Until the case's deadline: an event that came before the wait began is
    // missed (Inngest matches only later ones), so the case is read then.
    const deadline = pending.expiresAt ? new Date(Date.parse(pending.expiresAt) + 60_000) : "7d";
    const event = await step.waitForEvent(`airlock-decided-${name}`, {
      event: DECIDED_EVENT,
      timeout: deadline,
      if: `async.data.case_id == ${JSON.stringify(pending.caseId)}`,
    });
    if (event) return verdictOf(decidedBy(event.data as DecidedData, pending));
  }
  return verdictOf(
    (await step.run(`airlock-wait-${name}`, () => airlock.wait(pending, { timeoutMs: waitMs }))) as Decision,
  );
}

/** What an `airlock/call.decided` event says (the fields the adapter reads). */
interface DecidedData {
  outcome: Outcome;
  runs: boolean;
  arguments: Arguments;
  reason?: string | null;
  decided_by?: string | null;
  call_id: string;
  case_id: string;
}

/** The decision an `airlock/call.decided` event carries. */
export function decidedBy(data: DecidedData, pending: Pending): Decision {
  const decided = decision(data.outcome, pending.tool, pending.arguments, {
    arguments: data.arguments,
    reason: data.reason ?? undefined,
    decidedBy: data.decided_by ?? undefined,
    callId: data.call_id,
    caseId: data.case_id,
  });
  return { ...decided, runs: data.runs };
}

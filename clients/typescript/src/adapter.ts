// What the framework adapters share: their options, the client they ask
// with, and a verdict on one tool call: the arguments to run it with, or what
// the model is told instead, for frameworks where a thrown error would reach
// the model as a stack trace or end the agent's run.

import { Airlock } from "./client.js";
import { whyNot, type Arguments, type Decision } from "./decision.js";
import { Refused } from "./errors.js";

export type Verdict = { runs: true; arguments: Arguments } | { runs: false; whyNot: string };

/** How an adapter asks: `source` names the policy; the client is made from the environment unless given. */
export interface AdapterOptions {
  source: string;
  airlock?: Airlock;
  sessionId?: string;
  agentId?: string;
  /** At most this long a wait, in milliseconds (then `StillWaiting`); until decided unless given. */
  waitMs?: number;
}

/** The client an adapter asks with, made on its first call so the environment is read when the agent runs. */
export function lazyClient(options: AdapterOptions): () => Airlock {
  let airlock = options.airlock;
  return () => (airlock ??= new Airlock());
}

export function verdictOf(decision: Decision): Verdict {
  return decision.runs ? { runs: true, arguments: decision.arguments } : { runs: false, whyNot: whyNot(decision) };
}

/** A refusal by the policy as a verdict; any other error is thrown on. */
export function refusal(error: unknown): Verdict {
  if (!(error instanceof Refused)) throw error;
  return { runs: false, whyNot: `Airlock's policy refuses this call: ${error.rule}. It did not run.` };
}

// What Airlock decided about one call, and a call still waiting for a person.

import { isDeepStrictEqual } from "node:util";

/** How a call ended. */
export type Outcome = "allowed" | "approved" | "rejected" | "expired" | "withdrawn";

/** A tool's arguments, as JSON has them. */
export type Arguments = Record<string, unknown>;

/**
 * The end of one call's question. Run the tool only if `runs`, and with
 * `arguments`: they are the ones decided, a person's edits applied.
 */
export interface Decision {
  outcome: Outcome;
  /** Allowed, approved, or expired into an approval because the policy says so. */
  runs: boolean;
  /** Whether a person changed the arguments before approving. */
  edited: boolean;
  tool: string;
  /** The arguments to run with. */
  arguments: Arguments;
  /** The arguments as they were asked. */
  asked: Arguments;
  callId?: string;
  caseId?: string;
  /** The policy's reason when allowed; the person's when rejected or withdrawn. */
  reason?: string;
  decidedBy?: string;
  /** For an expired call: what the policy does then (`approve` or `reject`). */
  defaultAction?: string;
  /** The person approved with "Always allow": such calls pass from now on. */
  alwaysAllowed?: boolean;
  /**
   * The decision's receipt, signed by Airlock: pass it with the call to a
   * service that checks it (`verifyReceipt`) before acting.
   */
  receipt?: string;
}

/** A call waiting for a person: hand `reviewUrl` to someone who may decide, or just wait. */
export interface Pending {
  caseId: string;
  tool: string;
  arguments: Arguments;
  reviewUrl: string;
  callId?: string;
  expiresAt?: string;
  /** Seconds the 202 asked to wait before polling. */
  retryAfter: number;
  /** The protocol's whole `hitl` object, as Airlock sent it. */
  hitl: Record<string, unknown>;
}

export function decision(
  outcome: Outcome,
  tool: string,
  asked: Arguments,
  rest: Partial<Omit<Decision, "outcome" | "runs" | "edited" | "tool" | "asked">> = {},
): Decision {
  const args = rest.arguments ?? asked;
  const runs =
    outcome === "expired" ? rest.defaultAction === "approve" : outcome === "allowed" || outcome === "approved";
  return {
    ...rest,
    outcome,
    runs,
    edited: !isDeepStrictEqual(args, asked),
    tool,
    arguments: args,
    asked,
  };
}

/** Why a call that may not run did not, in words a model reads as the tool's result. */
export function whyNot(decision: Decision): string {
  const said = decision.reason ? `: ${decision.reason}` : "";
  return `This call was ${decision.outcome}${said}. It did not run.`;
}

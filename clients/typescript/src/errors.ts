// What can go wrong when asking Airlock, one class per thing a caller handles
// differently. Every error carries Airlock's stable `code` and a message for
// people; `AirlockError` catches them all.

import type { Decision } from "./decision.js";

export class AirlockError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Airlock did not answer (refused, timed out, or a broken connection). */
export class Unreachable extends AirlockError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super("unreachable", `Airlock at ${url} did not answer: ${String(cause)}`);
  }
}

/** No API key, or one Airlock does not know (401). */
export class Unauthorized extends AirlockError {}

/** Airlock refused the request itself (400 or 422); `field` names the mistake. */
export class InvalidRequest extends AirlockError {
  constructor(
    code: string,
    message: string,
    status: number,
    readonly field?: string,
  ) {
    super(code, message, status);
  }
}

/** No such case for this API key (404). */
export class NotFound extends AirlockError {}

/** The case is over already (409 when decided, 410 when it expired). */
export class Closed extends AirlockError {}

/** Airlock failed on its side (5xx), or answered something unreadable. */
export class ServerError extends AirlockError {}

/**
 * The call may not run: a person rejected it, its review was withdrawn, nobody
 * decided in time, or (as `Refused`) the policy refuses it.
 */
export class Rejected extends AirlockError {
  readonly reason?: string;
  constructor(
    readonly decision?: Decision,
    code?: string,
    message?: string,
    status?: number,
  ) {
    const what: Record<string, string> = {
      rejected: "was rejected",
      expired: "expired before anyone decided",
      withdrawn: "was withdrawn",
    };
    const reason = decision?.reason ? `: ${decision.reason}` : "";
    super(
      code ?? decision?.outcome ?? "rejected",
      message ?? `${decision?.tool} ${what[decision?.outcome ?? ""] ?? "was not allowed"}${reason}`,
      status,
    );
    this.reason = decision?.reason;
  }
}

/** The policy refuses the call outright (403): no person is asked. */
export class Refused extends Rejected {
  override readonly reason: string;
  readonly hidden: boolean;
  constructor(
    code: string,
    readonly rule: string,
    readonly callId: string | undefined,
    readonly tool: string,
  ) {
    super(undefined, code, `Airlock's policy refuses ${tool}: ${rule}`, 403);
    this.reason = rule;
    this.hidden = code === "hidden";
  }
}

/** The wait given ended before anyone decided; the call still waits in Airlock. */
export class StillWaiting extends AirlockError {
  constructor(
    readonly caseId: string,
    readonly reviewUrl?: string,
  ) {
    super("still_waiting", `nobody has decided ${caseId} yet`);
  }
}

/** The error an answer with a 4xx or 5xx status stands for. */
export function errorOf(status: number, body: unknown): AirlockError {
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const code = String(fields.code ?? fields.error ?? `http_${status}`);
  const message = String(fields.message ?? `Airlock answered ${status}`);
  if (status === 401) return new Unauthorized(code, message, status);
  if (status === 404) return new NotFound(code, message, status);
  if (status === 409 || status === 410) return new Closed(code, message, status);
  if (status === 400 || status === 422) {
    return new InvalidRequest(code, message, status, typeof fields.field === "string" ? fields.field : undefined);
  }
  if (status >= 500) return new ServerError(code, message, status);
  return new AirlockError(code, message, status);
}

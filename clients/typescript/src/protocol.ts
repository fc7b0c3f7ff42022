// The HITL Protocol as Airlock speaks it, without any I/O: the bodies to send,
// and what each answer means.

import { type Arguments, type Decision, type Pending, decision } from "./decision.js";
import { Refused, ServerError, errorOf } from "./errors.js";

export const TERMINAL_EVENTS = ["review.completed", "review.expired", "review.cancelled"];
const OPEN_STATUSES = ["pending", "opened", "in_progress"];

type Json = Record<string, unknown>;

function object(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The arguments as JSON has them: what a person sees is what runs. */
export function argumentsOf(args: unknown): Arguments {
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new TypeError("arguments must be an object of names to values");
  }
  return JSON.parse(JSON.stringify(args)) as Arguments;
}

/** What the gateway's answer means: allowed at once, refused (thrown), or waiting. */
export function readAsk(
  status: number,
  body: unknown,
  headers: Headers,
  tool: string,
  args: Arguments,
): Decision | Pending {
  const fields = object(body);
  if (status === 200 && fields.status === "allowed") {
    return decision("allowed", tool, args, {
      callId: text(fields.call_id),
      reason: text(fields.message),
      receipt: text(fields.receipt),
    });
  }
  if (status === 403 && fields.call_id) {
    throw new Refused(String(fields.code), String(fields.message), text(fields.call_id), tool);
  }
  if (status === 202 && typeof fields.hitl === "object" && fields.hitl !== null) {
    const hitl = object(fields.hitl);
    const caseId = text(hitl.case_id);
    const reviewUrl = text(hitl.review_url);
    if (!caseId || !reviewUrl) throw new ServerError("unreadable", "a 202 without a case", status);
    return {
      caseId,
      tool,
      arguments: args,
      reviewUrl,
      callId: text(object(hitl.context).call_id),
      expiresAt: text(hitl.expires_at),
      retryAfter: retryAfter(headers, 30),
      hitl,
    };
  }
  if (status >= 400) throw errorOf(status, body);
  throw new ServerError("unreadable", `Airlock answered ${status} with an unexpected body`, status);
}

/** The decision a poll answer (or a withdrawal's) holds; undefined while open. */
export function readStatus(body: unknown, pending: Pending): Decision | undefined {
  const fields = object(body);
  const status = text(fields.status);
  if (!status) throw new ServerError("unreadable", "a poll answer without a status");
  if (OPEN_STATUSES.includes(status)) return undefined;
  const base = {
    arguments: pending.arguments,
    callId: pending.callId,
    caseId: pending.caseId,
    decidedBy: text(object(fields.responded_by).name),
  };
  const end = (outcome: Decision["outcome"], rest: Partial<Decision> = {}) =>
    decision(outcome, pending.tool, pending.arguments, { ...base, ...rest });
  if (status === "expired") return end("expired", { defaultAction: text(fields.default_action) });
  if (status === "cancelled") return end("withdrawn", { reason: text(fields.reason) });
  const result = object(fields.result);
  const data = object(result.data);
  const receipt = text(object(result.signature).value);
  if (result.action === "approve") {
    return end("approved", { alwaysAllowed: data.always_allow === true, receipt });
  }
  if (result.action === "edit" && typeof data.edits === "object" && data.edits !== null) {
    return end("approved", { arguments: data.edits as Arguments, reason: text(data.feedback), receipt });
  }
  if (result.action === "reject") return end("rejected", { reason: text(data.feedback), receipt });
  throw new ServerError("unreadable", `a completed case with the action ${String(result.action)}`);
}

/** Seconds the answer asks to wait (`Retry-After`), within reason. */
export function retryAfter(headers: Headers, fallback: number): number {
  const seconds = Number(headers.get("retry-after") ?? fallback);
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), 300) : fallback;
}

export interface Event {
  name: string;
  data: string;
  id?: string;
}

/** Reads a server-sent event stream line by line. */
export class EventParser {
  lastId?: string;
  #name = "";
  #data: string[] = [];
  #rest = "";

  /** Feeds a chunk of the stream; returns the events it completed. */
  push(chunk: string): Event[] {
    const lines = (this.#rest + chunk).split(/\r\n|\r|\n/);
    this.#rest = lines.pop() ?? "";
    return lines.flatMap((line) => this.line(line));
  }

  line(line: string): Event[] {
    if (line === "") {
      const done =
        this.#data.length || this.#name
          ? [{ name: this.#name || "message", data: this.#data.join("\n"), id: this.lastId }]
          : [];
      this.#name = "";
      this.#data = [];
      return done;
    }
    if (line.startsWith(":")) return [];
    const colon = line.indexOf(":");
    const key = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (key === "event") this.#name = value;
    else if (key === "data") this.#data.push(value);
    else if (key === "id" && !value.includes("\0")) this.lastId = value;
    return [];
  }
}

// `Airlock`: ask before a tool call runs, and wait for the decision. An
// aborted signal withdraws a waiting call, so nobody decides a call that will
// not run.

import { setTimeout as sleep } from "node:timers/promises";

import type { Arguments, Decision, Pending } from "./decision.js";
import { Closed, Rejected, StillWaiting, Unauthorized, Unreachable, errorOf } from "./errors.js";
import { EventParser, TERMINAL_EVENTS, argumentsOf, readAsk, readStatus, retryAfter } from "./protocol.js";

export const VERSION = "0.1.0";
/** How long a wait outlasts an Airlock that does not answer before it gives up. */
const PATIENCE_MS = 300_000;
/** Airlock sends a comment every 15 s on an event stream: three missed mean it is gone. */
const STREAM_IDLE_MS = 45_000;

export interface AirlockOptions {
  /** Where Airlock is; `AIRLOCK_URL`, else `http://127.0.0.1:3000`. */
  url?: string;
  /** A gateway API key; `AIRLOCK_API_KEY`. */
  key?: string;
  /** How long one request may take, in milliseconds (10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface AskOptions {
  /** The tool source whose policy decides. */
  source: string;
  /** The agent's session: its calls form one conversation in Airlock. */
  sessionId?: string;
  agentId?: string;
  /** An earlier case this one is the next round of. */
  previousCaseId?: string;
  /** The same request sent again with the same key gets the same call back, never a second one. */
  idempotencyKey?: string;
  /** Aborting it withdraws a waiting call. */
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** At most this long, then `StillWaiting`; until decided or expired unless given. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

type Sent = { status: number; headers: Headers; body: unknown };

export class Airlock {
  readonly url: string;
  readonly #key: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: AirlockOptions = {}) {
    this.url = (options.url || process.env.AIRLOCK_URL || "http://127.0.0.1:3000").replace(/\/+$/, "");
    const key = options.key || process.env.AIRLOCK_API_KEY;
    if (!key) throw new Unauthorized("no_api_key", "no API key: pass key or set AIRLOCK_API_KEY (gateway.api_keys)");
    this.#key = key;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch ?? fetch;
  }

  /** Asks once, without waiting: a decision made at once, or the call waiting for a person. */
  async request(tool: string, args: unknown, options: AskOptions): Promise<Decision | Pending> {
    const asked = argumentsOf(args);
    const body: Record<string, unknown> = { tool, source: options.source, arguments: asked };
    if (options.sessionId !== undefined) body.session_id = options.sessionId;
    if (options.agentId !== undefined) body.agent_id = options.agentId;
    if (options.previousCaseId !== undefined) body.previous_case_id = options.previousCaseId;
    const headers: Record<string, string> = options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {};
    const sent = await this.#send("POST", "/api/v1/tool-calls", { body, headers, signal: options.signal });
    return readAsk(sent.status, sent.body, sent.headers, tool, asked);
  }

  /** Asks, and waits for the decision (at most `waitMs` when given, then `StillWaiting`). */
  async ask(tool: string, args: unknown, options: AskOptions & { waitMs?: number }): Promise<Decision> {
    options.signal?.throwIfAborted();
    // The question is heard out even when the signal aborts meanwhile:
    // Airlock may have stored the call, and the wait then withdraws it.
    const asked = await this.request(tool, args, { ...options, signal: undefined });
    if ("outcome" in asked) return asked;
    return this.wait(asked, { timeoutMs: options.waitMs, signal: options.signal });
  }

  /** Waits for a person to decide: by the case's event stream, polling where streams fail. */
  async wait(pending: Pending, options: WaitOptions = {}): Promise<Decision> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    try {
      return await this.#wait(pending, deadline, options.signal);
    } catch (error) {
      if (options.signal?.aborted) {
        await this.withdraw(pending, "the agent's call was aborted").catch(() => undefined);
      }
      throw error;
    }
  }

  /** Takes back a call nobody decided; a call decided first keeps its decision. */
  async withdraw(pending: Pending, reason?: string): Promise<Decision> {
    const path = `/api/v1/reviews/${pending.caseId}/withdraw`;
    const sent = await this.#send("POST", path, { body: reason ? { reason } : {} });
    if (sent.status === 200) return readStatus(sent.body, pending) as Decision;
    const error = errorOf(sent.status, sent.body);
    if (!(error instanceof Closed)) throw error;
    return (await this.#poll(pending, undefined)).decision as Decision;
  }

  /**
   * `fn`, asking Airlock before each call: it runs with the decided arguments
   * (a person's edits applied), or throws `Rejected` (or `Refused`).
   */
  guard<A extends Arguments, R, Rest extends unknown[]>(
    tool: string,
    fn: (args: A, ...rest: Rest) => R | Promise<R>,
    options: AskOptions & { waitMs?: number },
  ): (args: A, ...rest: Rest) => Promise<R> {
    return async (args: A, ...rest: Rest) => {
      const decided = await this.ask(tool, args, options);
      if (!decided.runs) throw new Rejected(decided);
      return fn(decided.arguments as A, ...rest);
    };
  }

  async #wait(pending: Pending, deadline: number, signal?: AbortSignal): Promise<Decision> {
    const parser = new EventParser();
    let streaming = true;
    let etag: string | undefined;
    let unreachableSince: number | undefined;
    let pause = 1_000;
    for (;;) {
      try {
        if (streaming) streaming = await this.#follow(pending, parser, deadline, signal);
        const polled = await this.#poll(pending, etag, signal);
        etag = polled.etag;
        unreachableSince = undefined;
        pause = 1_000;
        if (polled.decision) return polled.decision;
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince >= PATIENCE_MS || deadline <= Date.now()) throw error;
        await sleep(Math.min(pause, deadline - Date.now()), undefined, { signal });
        pause = Math.min(pause * 2, 15_000);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new StillWaiting(pending.caseId, pending.reviewUrl);
      await sleep(Math.min(left, streaming ? 1_000 : pending.retryAfter * 1_000), undefined, { signal });
    }
  }

  /** Reads the case's events to a terminal one, the stream's end or the deadline; false without a stream. */
  async #follow(pending: Pending, parser: EventParser, deadline: number, signal?: AbortSignal): Promise<boolean> {
    const quiet = new AbortController();
    let idle: NodeJS.Timeout | undefined;
    const still = () => {
      clearTimeout(idle);
      idle = setTimeout(() => quiet.abort(), Math.min(STREAM_IDLE_MS, Math.max(deadline - Date.now(), 50)));
    };
    const headers: Record<string, string> = { accept: "text/event-stream", ...this.#headers() };
    if (parser.lastId) headers["last-event-id"] = parser.lastId;
    try {
      still();
      const signals = signal ? [signal, quiet.signal] : [quiet.signal];
      const url = `${this.url}/api/v1/reviews/${pending.caseId}/events`;
      const response = await this.#fetch(url, { headers, signal: AbortSignal.any(signals) });
      if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
        await response.body?.cancel();
        return false;
      }
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        still();
        const events = parser.push(decoder.decode(chunk, { stream: true }));
        if (events.some((event) => TERMINAL_EVENTS.includes(event.name))) {
          quiet.abort();
          return true;
        }
      }
      return true;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (quiet.signal.aborted) return true;
      throw new Unreachable(this.url, error);
    } finally {
      clearTimeout(idle);
    }
  }

  async #poll(pending: Pending, etag: string | undefined, signal?: AbortSignal) {
    const path = `/api/v1/reviews/${pending.caseId}/status`;
    for (;;) {
      const sent = await this.#send("GET", path, { headers: etag ? { "if-none-match": etag } : {}, signal });
      if (sent.status === 429) {
        await sleep(retryAfter(sent.headers, 5) * 1_000, undefined, { signal });
        continue;
      }
      if (sent.status === 304) return { decision: undefined, etag };
      if (sent.status !== 200) throw errorOf(sent.status, sent.body);
      return { decision: readStatus(sent.body, pending), etag: sent.headers.get("etag") ?? undefined };
    }
  }

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#key}`, "user-agent": `airlock-client-typescript/${VERSION}` };
  }

  async #send(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Sent> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { ...this.#headers(), ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(this.url + path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new Unreachable(this.url, error);
    }
    let body: unknown = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = {};
    }
    return { status: response.status, headers: response.headers, body };
  }
}

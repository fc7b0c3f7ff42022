// A real Airlock for the tests: the binary `make test` builds, on a free port,
// over a data folder of its own, with a policy for a source named `files`.

import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";

export const KEY = "test-key-builder";

/** The policy; with `inngest`, the files' calls are sent there once decided. */
function policy(expiresAfter: string, inngest?: string): string {
  const sha256 = createHash("sha256").update(KEY).digest("hex");
  const notify = inngest ? `notify:\n  agents:\n    inngest: ${inngest}\n` : "";
  return `${notify}
approvals:
  expires_after: ${expiresAfter}
  default_action: reject
gateway:
  api_keys:
    - name: builder
      sha256: ${sha256}
sources:
  files:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file, write_file, send_email]
    notify: [${inngest ? "agents" : ""}]
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "/etc/**" }]
        action: deny
`;
}

function binary(): string {
  if (process.env.AIRLOCK_SERVER_BIN) return process.env.AIRLOCK_SERVER_BIN;
  const target = process.env.CARGO_TARGET_DIR || join(homedir(), ".cache/airlock/target");
  return join(target, "debug", "airlock");
}

type Call = { id: string; arguments: Record<string, unknown>; status: string; decision?: { reason?: string } };

export class Server {
  private constructor(
    readonly url: string,
    private readonly process: ChildProcess,
  ) {}

  static async start(expiresAfter = "24h", inngest?: string): Promise<Server> {
    const folder = mkdtempSync(join(tmpdir(), "airlock-ts-"));
    writeFileSync(join(folder, "airlock.yaml"), policy(expiresAfter, inngest));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AIRLOCK_ADDR: "127.0.0.1:0",
      AIRLOCK_DATA_DIR: join(folder, "data"),
      AIRLOCK_CONFIG: join(folder, "airlock.yaml"),
      AIRLOCK_LOG: "warn",
    };
    delete env.AIRLOCK_DATABASE_URL;
    const child = spawn(binary(), ["serve"], { env, stdio: ["ignore", "pipe", "inherit"] });
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith("Airlock is ready at ")) {
        return new Server(line.slice("Airlock is ready at ".length).trim(), child);
      }
    }
    throw new Error(`${binary()} stopped before it was ready`);
  }

  stop(): void {
    this.process.kill();
  }

  /** The call of `tool` with `args` once it waits for a person: the tests act when Airlock says so. */
  async waitingCall(tool: string, args: Record<string, unknown>): Promise<Call> {
    for (;;) {
      const page = (await (await fetch(`${this.url}/api/v1/calls/pending?tool=${tool}`)).json()) as { calls: Call[] };
      const call = page.calls.find((c) => isDeepStrictEqual(c.arguments, args));
      if (call) return call;
      await sleep(50);
    }
  }

  async call(id: string): Promise<Call> {
    return (await (await fetch(`${this.url}/api/v1/calls/${id}`)).json()) as Call;
  }

  /** A press on the call's card in the chat: the form the card posts. */
  async press(endpoint: string, form: Record<string, string>): Promise<void> {
    const response = await fetch(`${this.url}/api/fn/${endpoint}`, {
      method: "POST",
      headers: { accept: "application/json" },
      body: new URLSearchParams(form),
    });
    if (response.status !== 200) throw new Error(`${endpoint}: ${response.status} ${await response.text()}`);
  }

  /**
   * Two `write_file` calls a person decides once they wait: `asked` is
   * approved as `edited`, `refused` rejected with "keep the old one".
   */
  editOneRejectOther() {
    const id = session();
    const asked = { path: `${id}.txt`, content: "draft" };
    const edited = { ...asked, content: "final" };
    const refused = { path: `${id}.old`, content: "x" };
    const people = Promise.all([
      this.waitingCall("write_file", asked).then((call) =>
        this.press("edit_call", { call_id: call.id, arguments: JSON.stringify(edited) }),
      ),
      this.waitingCall("write_file", refused).then((call) =>
        this.press("reject_call", { call_id: call.id, reason: "keep the old one" }),
      ),
    ]);
    return { asked, edited, refused, people };
  }
}

let sessions = 0;
/** A session of its own for each test: its calls are one conversation. */
export function session(): string {
  sessions += 1;
  return `ts-${process.pid}-${sessions}`;
}

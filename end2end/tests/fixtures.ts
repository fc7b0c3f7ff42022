// A real Airlock server per test: started on a free port with a fresh data
// directory, stopped (and its directory removed) when the test ends.
import { test as base, expect } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const serverBin =
  process.env.AIRLOCK_SERVER_BIN ??
  join(process.env.CARGO_TARGET_DIR ?? resolve(__dirname, '../../target'), 'debug', 'airlock');
const siteRoot = process.env.LEPTOS_SITE_ROOT ?? resolve(__dirname, '../../target/site');

export class AirlockServer {
  url = '';
  private child?: ChildProcess;
  private output = '';

  constructor(
    readonly dataDir: string,
    readonly configFile?: string,
    readonly env: Record<string, string> = {},
  ) {}

  /** Starts a server with `config` (YAML), on `port` when given, with extra settings `env`. */
  static async start(config?: string, options: { port?: number; env?: Record<string, string> } = {}): Promise<AirlockServer> {
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-e2e-'));
    let configFile: string | undefined;
    if (config) {
      configFile = join(dataDir, 'airlock.yaml');
      writeFileSync(configFile, config);
    }
    const server = new AirlockServer(dataDir, configFile, options.env);
    if (options.port) server.url = `http://127.0.0.1:${options.port}`;
    await server.boot();
    return server;
  }

  /** Adds a person with `airlock user add`, the password on standard input. */
  addPerson(name: string, password: string, ...args: string[]): void {
    const added = spawnSync(serverBin, ['user', 'add', name, ...args], {
      env: { ...process.env, AIRLOCK_DATA_DIR: this.dataDir },
      input: `${password}\n`,
      encoding: 'utf8',
    });
    if (added.status !== 0) throw new Error(`airlock user add failed: ${added.stderr}`);
  }

  /** The one-time setup link a fresh install with sign-in on printed at start. */
  setupLink(): string {
    const m = /Set up Airlock: (\S+)/.exec(this.output);
    if (!m) throw new Error(`no setup link in:\n${this.output}`);
    return m[1];
  }

  /** Starts the process and waits for its "ready" line. */
  async boot(): Promise<void> {
    const child = spawn(serverBin, [], {
      env: {
        ...process.env,
        AIRLOCK_ADDR: this.url ? new URL(this.url).host : '127.0.0.1:0',
        AIRLOCK_DATA_DIR: this.dataDir,
        ...(this.configFile ? { AIRLOCK_CONFIG: this.configFile } : {}),
        LEPTOS_SITE_ROOT: siteRoot,
        AIRLOCK_LOG: 'warn',
        // The one local person, when nobody signs in, is named after the OS user.
        USER: 'sam',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.url = await new Promise<string>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`server did not start:\n${this.output}`)), 20_000);
      const read = (chunk: Buffer) => {
        this.output += chunk.toString();
        const m = /Airlock is ready at (http:\/\/\S+)/.exec(this.output);
        if (m) {
          clearTimeout(timer);
          ready(m[1]);
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.on('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`server exited with ${code}:\n${this.output}`));
      });
    });
  }

  /** Stops the process: SIGTERM for a graceful stop, SIGKILL for a crash. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    await exited;
  }

  /** Stops and starts the server on the same port and data directory. */
  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    this.output = '';
    await this.boot();
  }

  dispose(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export const test = base.extend<{ airlock: AirlockServer }>({
  airlock: async ({}, use) => {
    const server = await AirlockServer.start();
    await use(server);
    await server.stop();
    server.dispose();
  },
  baseURL: async ({ airlock }, use) => {
    await use(airlock.url);
  },
  // Every test runs under the pages' Content-Security-Policy: anything the
  // policy blocks (a script, a style, a connection) fails the test.
  page: async ({ page }, use) => {
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await use(page);
    expect(blocked, 'the Content-Security-Policy blocked something').toEqual([]);
  },
});

export { expect };

// An OpenAI-compatible model server that is not ours (@copilotkit/aimock),
// scripted by fixtures, for the agent to talk to as it would to a real one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const cli = resolve(__dirname, '../node_modules/@copilotkit/aimock/dist/cli.js');

export class Aimock {
  private constructor(
    readonly root: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  /** Starts a server answering by `fixtures` on a free port. */
  static async start(fixtures: object[]): Promise<Aimock> {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-aimock-'));
    const file = join(dir, 'fixtures.json');
    writeFileSync(file, JSON.stringify({ fixtures }));
    const child = spawn('node', [cli, '-p', '0', '-h', '127.0.0.1', '-f', file], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let output = '';
    const root = await new Promise<string>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`aimock did not start:\n${output}`)), 15_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const m = /listening on (http:\/\/\S+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          ready(m[1]);
        }
      });
    });
    return new Aimock(root, child, dir);
  }

  /** The settings that point Airlock at this server. */
  get env(): Record<string, string> {
    return { AIRLOCK_MODEL_BASE_URL: `${this.root}/v1`, AIRLOCK_MODEL: 'gpt-test' };
  }

  stop(): void {
    this.child.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../support/webhooks.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

interface Step {
  script: string;
  expected: unknown[];
}

/** The README's walkthrough: each shell block with the JSON answers shown after it. */
function walkthroughSteps(): Step[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## A ten-minute walkthrough');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const steps: Step[] = [];
  for (const [, lang, text] of section.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (lang === 'sh') steps.push({ script: text!, expected: [] });
    if (lang === 'json')
      steps.at(-1)!.expected.push(
        ...text!
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      );
  }
  // The first block starts a receiver on port 9000; the test brings its own.
  return steps.slice(1);
}

/** Ids, times, secrets and request ids differ on every run; everything else must be as shown. */
const VOLATILE = /^([0-9a-f]{8}-[0-9a-f-]{27}|\d{4}-\d\d-\d\dT.*Z|whsec_.*)$/;

function sameAnswer(actual: unknown, shown: unknown): boolean {
  if (typeof shown === 'string' && VOLATILE.test(shown)) return typeof actual === 'string';
  if (Array.isArray(shown))
    return (
      Array.isArray(actual) &&
      actual.length === shown.length &&
      shown.every((v, i) => sameAnswer(actual[i], v))
    );
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    const keys = Object.keys(shown);
    return (
      JSON.stringify(Object.keys(actual)) === JSON.stringify(keys) &&
      keys.every((key) =>
        sameAnswer((actual as Record<string, unknown>)[key], (shown as Record<string, unknown>)[key]),
      )
    );
  }
  return actual === shown;
}

async function startSystem(dataDir: string) {
  const system = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, CLOUD_PORT: '0', APPLIANCE_PORT: '0', DEMO_CAMERAS: 'off' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  const urls = await new Promise<{ cloud: string; store: string }>((resolve, reject) => {
    system.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${printed}`)));
    system.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const cloud = /Cloud gateway\s+(http:\S+)/.exec(printed)?.[1];
      const store = /Demo store\s+(http:\S+)/.exec(printed)?.[1];
      if (cloud && store) resolve({ cloud, store });
    });
  });
  return { system, urls };
}

describe('the README walkthrough', () => {
  let dir = '';
  let system: ChildProcess | undefined;
  let receiver: Receiver;
  let urls = { cloud: '', store: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
    receiver = await createReceiver();
    ({ system, urls } = await startSystem(join(dir, 'data')));
  }, 120_000);

  afterAll(async () => {
    if (system && system.exitCode === null && system.signalCode === null) system.kill('SIGKILL');
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request as the README shows, and the webhook receives the order’s events', async () => {
    const steps = walkthroughSteps();
    expect(steps.length).toBeGreaterThan(5);
    writeFileSync(join(dir, 'state.sh'), '');
    for (const step of steps) {
      if (step.script.includes('/deliveries'))
        await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(6);
      const script = step.script
        .replace(
          'CLOUD=http://127.0.0.1:8080 STORE=http://127.0.0.1:8090',
          `CLOUD=${urls.cloud} STORE=${urls.store}`,
        )
        .replace('http://127.0.0.1:9000/hook', receiver.url('/hook'));
      // Each block runs on the variables the earlier ones set, as in one terminal.
      const { stdout } = await run(
        'bash',
        ['-c', `set -a; . ./state.sh 2>/dev/null\n${script}\nexport -p > state.sh`],
        {
          cwd: dir,
          timeout: 30_000,
        },
      );
      const answers = stdout
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      expect(answers.length, `${script}\nanswered\n${stdout}`).toBe(step.expected.length);
      for (const [i, shown] of step.expected.entries()) {
        const shownAnswer = `${script}\nanswered ${JSON.stringify(answers[i])}\nshown ${JSON.stringify(shown)}`;
        expect(sameAnswer(answers[i], shown), shownAnswer).toBe(true);
      }
    }
    expect(receiver.received.map((request) => request.headers['x-service-event'])).toEqual([
      'order.created',
      'order.updated',
      'payment.received',
      'order.updated',
      'order.updated',
      'order.completed',
    ]);
  }, 120_000);
});

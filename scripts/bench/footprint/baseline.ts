/** The floor every Node program stands on: a bare `node -e "setInterval(() => {}, 1000)"`, its RSS. */
import { spawn } from 'node:child_process';
import { sleep } from './process.ts';
import { sampleTree, type TreeWindow } from './tree.ts';

export async function bareNode(seconds: number): Promise<TreeWindow> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    await sleep(1000);
    const stop = sampleTree(child.pid ?? 0);
    await sleep(seconds * 1000);
    return stop();
  } finally {
    child.kill('SIGKILL');
  }
}

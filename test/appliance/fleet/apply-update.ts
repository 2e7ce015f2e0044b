/**
 * An updater in a process of its own, for the test that kills it with SIGKILL mid-download:
 * `tsx apply-update.ts <data dir> <manifest.json> <update key.pem>`. It prints each progress
 * report, then the outcome, one JSON line each.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { createUpdater } from '../../../appliance/fleet/updater.ts';
import { systemClock } from '../../../shared/clock.ts';

const [dataDir, manifestFile, keyFile] = process.argv.slice(2) as [string, string, string];
const updater = createUpdater({
  dataDir,
  publicKey: readFileSync(keyFile, 'utf8'),
  runningVersion: '1.0.0',
  env: process.env,
  clock: systemClock,
  log: pino({ level: 'silent' }),
  onProgress: ({ received }) => process.stdout.write(`${JSON.stringify({ received })}\n`),
});
const outcome = await updater.apply(JSON.parse(readFileSync(manifestFile, 'utf8')));
process.stdout.write(`${JSON.stringify({ outcome })}\n`);

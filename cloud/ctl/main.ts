/** The operator CLI's process: runs the command line it was given and prints the outcome as JSON. */
import { runCtl } from './index.ts';

const outcome = await runCtl(process.argv.slice(2), process.env);
process.stdout.write(`${JSON.stringify(outcome.body, null, 2)}\n`);
process.exitCode = outcome.exitCode;

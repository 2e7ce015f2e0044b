/**
 * The operator CLI: `npm run --silent ctl -- <command> [flags]`. Runs one command against the
 * cloud's store (safe next to a running cloud) and prints JSON only, so scripts can pipe it to jq.
 * Exit codes: 0 done, 1 refused by the services (or failed), 2 bad command line or configuration.
 * This face runs a command line to its outcome; main.ts is the process that prints it.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { systemClock } from '../../shared/clock.ts';
import { AppError, type ErrorDetail } from '../../shared/http/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { CloudConfig } from '../config.ts';
import { COMMANDS, type Command, type Flags, type Operation, UsageError, usageOf } from './commands.ts';

const USAGE = 'npm run --silent ctl -- <command> [flags]   (<command> --help for its flags)';
const HELP_WORDS = new Set(['help', '--help', '-h']);

export type Env = Record<string, string | undefined>;

export interface Outcome {
  exitCode: 0 | 1 | 2;
  body: unknown;
}

const success = (body: unknown): Outcome => ({ exitCode: 0, body });

/** The commands whose first word is `group`, e.g. every "tenant ..." command. */
const commandsOf = (group: string | undefined) =>
  COMMANDS.filter((command) => command.name.startsWith(`${group} `));

const overview = (commands: readonly Command[] = COMMANDS) => ({
  usage: USAGE,
  commands: commands.map((command) => ({
    command: command.name,
    usage: usageOf(command),
    description: command.description,
  })),
});

const commandHelp = (command: Command) => ({
  command: command.name,
  usage: usageOf(command),
  description: command.description,
  flags: Object.entries(command.flags).map(([flag, spec]) => ({
    flag: `--${flag}`,
    value: spec.value,
    required: spec.required === true,
    description: spec.description,
  })),
});

/** The command named by the leading words, and the arguments after them. */
function findCommand(argv: string[]): { command: Command; rest: string[] } {
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  const words = argv.filter((arg) => !arg.startsWith('-'));
  if (words.length === 0) {
    throw new UsageError('a command is required', [{ field: 'command', message: 'run "help" for the list' }]);
  }
  const group = commandsOf(words[0]);
  const known = (group.length > 0 ? group : COMMANDS).map((command) => command.name);
  const message =
    group.length > 0 && words.length === 1
      ? `"${words[0]}" needs a subcommand`
      : `unknown command "${words.slice(0, 2).join(' ')}"`;
  throw new UsageError(message, [{ field: 'command', message: `must be one of: ${known.join(', ')}` }]);
}

function parseError(error: Error & { code?: string }, command: Command): UsageError {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1] ?? 'arguments';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return new UsageError(`unknown flag ${flag} for "${command.name}"`, [
      { field: flag, message: `is not a flag of "${command.name}"; see its --help` },
    ]);
  }
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(`"${command.name}" takes only flags: ${error.message}`, [
      { field: 'arguments', message: 'unexpected argument' },
    ]);
  }
  if (error.message.includes('argument missing')) {
    return new UsageError(`${flag} needs a value`, [{ field: flag, message: 'needs a value' }]);
  }
  return new UsageError(error.message, [{ field: flag, message: 'has a bad value' }]);
}

/** Every flag a string (plus --help); strict, so unknown flags and stray arguments fail. */
function parseFlags(command: Command, args: string[]) {
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' } };
  for (const flag of Object.keys(command.flags)) options[flag] = { type: 'string' };
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    return values as Record<string, string | boolean | undefined>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      throw parseError(error as Error, command);
    }
    throw error;
  }
}

/** The command's flags once every required one is present, or 'help' when --help was asked. */
function readFlags(command: Command, args: string[]): Flags | 'help' {
  const values = parseFlags(command, args);
  if (values.help === true) return 'help';
  const missing = Object.entries(command.flags)
    .filter(([flag, spec]) => spec.required && values[flag] === undefined)
    .map(([flag]) => `--${flag}`);
  if (missing.length > 0) {
    throw new UsageError(
      `"${command.name}" needs ${missing.join(', ')}`,
      missing.map((flag) => ({ field: flag, message: 'is required' })),
    );
  }
  return values as Flags;
}

/** The store's modules load only here, so help and usage errors answer without them. */
async function runOperation(operation: Operation, env: Env): Promise<Outcome> {
  const [{ ConfigError, loadCloudConfig }, { openStore }, { createCloudServices }] = await Promise.all([
    import('../config.ts'),
    import('../db/index.ts'),
    import('../services.ts'),
  ]);
  let config: CloudConfig;
  try {
    config = loadCloudConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return configFailure(error);
    throw error;
  }
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    return success(await operation(services));
  } finally {
    await store.close();
  }
}

/** A bad variable is the operator's to fix, like a bad flag: exit 2, naming the variable. */
function configFailure(error: Error): Outcome {
  const variable = /^[A-Z][A-Z0-9_]*/.exec(error.message)?.[0];
  const details = variable ? [{ field: variable, message: error.message.slice(variable.length + 1) }] : [];
  return { exitCode: 2, body: errorBody('CONFIG_ERROR', error.message, details) };
}

/** Help on everything, on a group of commands ("tenant") or on one command. */
function help(words: string[]) {
  const [first] = words;
  if (first === undefined) return overview();
  const group = commandsOf(first);
  if (words.length === 1 && group.length > 0) return overview(group);
  return commandHelp(findCommand(words).command);
}

async function execute(argv: string[], env: Env): Promise<Outcome> {
  const [first, second] = argv;
  if (first === undefined || HELP_WORDS.has(first)) return success(help(argv.slice(1)));
  if (argv.length === 2 && HELP_WORDS.has(second!)) return success(help([first]));
  const { command, rest } = findCommand(argv);
  const flags = readFlags(command, rest);
  if (flags === 'help') return success(commandHelp(command));
  return runOperation(command.prepare(flags), env);
}

const errorBody = (code: string, message: string, details: ErrorDetail[] = []) => ({
  error: { code, message, details },
});

function failure(error: unknown): Outcome {
  if (error instanceof UsageError) {
    return { exitCode: 2, body: errorBody('USAGE_ERROR', error.message, error.details) };
  }
  if (error instanceof AppError) {
    return { exitCode: 1, body: errorBody(error.code, error.message, error.details) };
  }
  // The store unreachable, a failed migration: the operator needs the reason, not a stack trace.
  const reasons: string[] = [];
  for (let cause: unknown = error; cause !== undefined && reasons.length < 3; ) {
    reasons.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  const message = reasons.filter((reason) => reason !== '').join(': ');
  return { exitCode: 1, body: errorBody('INTERNAL_ERROR', message) };
}

/** Runs one command line to its outcome: the JSON to print and the process's exit code. */
export const runCtl = (argv: string[], env: Env): Promise<Outcome> => execute(argv, env).catch(failure);

export { COMMANDS, type Command } from './commands.ts';

/**
 * Each command's options are declared once, here or beside the command, as a CommandSpec: the
 * same declaration parses the command line and prints `--help`, so the two cannot disagree.
 * `--help` (or `-h`) anywhere before `--` wins over everything else and has no side effects.
 */
import { parseArgs } from 'node:util';

/** A command line that cannot run as given (exit code 2); `usage` is printed after the message. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** How the usage names the option's value (`N`, `URL`); string options only. */
  value?: string;
  /** What it does; a `\n` continues on the next line, indented. */
  help: string;
}

export interface CommandSpec {
  /** As typed after `pulsegate`: `serve`, `tokens create`. */
  name: string;
  /** The line after `Usage: pulsegate `, required options and arguments included. */
  synopsis: string;
  /** One line for the list of commands. */
  summary: string;
  /** More about the command, printed under the synopsis. */
  about?: string;
  options: Record<string, OptionSpec>;
  /** How many positional arguments the command takes. */
  positionals?: number;
}

export const HELP_OPTION: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', help: 'Print this help and exit' },
};

/** Accepted by every command: at debug, an unexpected error is printed with its stack. */
export const LOG_LEVEL_OPTION: Record<string, OptionSpec> = {
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    help: 'debug prints the stack of an unexpected error (env LOG_LEVEL)',
  },
};

/** Whether the arguments set `--log-level` to debug or trace. */
export function asksForStacks(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    const value = arg === '--log-level' ? args[i + 1] : /^--log-level=(.*)$/.exec(arg)?.[1];
    if (value === 'debug' || value === 'trace') return true;
  }
  return false;
}

const COLUMN = 28;

function optionLines(options: Record<string, OptionSpec>): string {
  let out = '';
  for (const [name, option] of Object.entries({ ...options, ...HELP_OPTION })) {
    const short = option.short ? `-${option.short}, ` : '';
    const flag = `  ${short}--${name}${option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`;
    const [first, ...more] = option.help.split('\n');
    out +=
      flag.length < COLUMN
        ? `${flag.padEnd(COLUMN)}${first}\n`
        : `${flag}\n${' '.repeat(COLUMN)}${first}\n`;
    for (const line of more) out += `${' '.repeat(COLUMN)}${line}\n`;
  }
  return out;
}

/** The text `pulsegate <command> --help` prints. */
export function usageOf(spec: CommandSpec): string {
  const about = spec.about ? `\n${spec.about.trimEnd()}\n` : '';
  return (
    `Usage: pulsegate ${spec.synopsis}\n\n${spec.summary}\n${about}\n` +
    `Options:\n${optionLines(spec.options)}`
  );
}

/** Whether the arguments ask for help: `--help` or `-h` before any `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

export type Values = Record<string, string | boolean | undefined>;

/**
 * Parses `args` by `spec`. Unknown options, string options without a value, values given to
 * switches and extra arguments are UsageErrors naming the culprit, with the command's usage.
 * A value may start with a dash (`--events -5`): it reaches the command's own check.
 */
export function parseCommand(
  spec: CommandSpec,
  args: string[],
): { values: Values; positionals: string[] } {
  const usage = usageOf(spec);
  const { values, positionals, tokens } = parseArgs({
    args,
    options: Object.fromEntries(
      Object.entries(spec.options).map(([name, o]) => [
        name,
        { type: o.type, ...(o.short ? { short: o.short } : {}) },
      ]),
    ),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (!option) {
      throw new UsageError(`unknown option ${token.rawName} for ${spec.name}`, usage);
    }
    if (option.type === 'string' && token.value === undefined) {
      throw new UsageError(`${token.rawName} needs a value`, usage);
    }
    if (option.type === 'boolean' && token.value !== undefined) {
      throw new UsageError(`${token.rawName} takes no value`, usage);
    }
  }
  const allowed = spec.positionals ?? 0;
  if (positionals.length > allowed) {
    throw new UsageError(`unexpected argument: ${positionals[allowed]}`, usage);
  }
  return { values: values as Values, positionals };
}

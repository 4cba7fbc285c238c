/**
 * The command lines of `gspec-mock` and `gspec-emulator`: one table of options gives both the
 * parser and the `--help` text, and every mistake becomes one line that names it.
 */
import { parseArgs } from 'node:util';
import { didYouMean } from './suggest.js';

export interface CommandOption {
  type: 'string' | 'boolean';
  short?: string;
  /** The name of the value in the help text, such as `N` or `FILE` (string options). */
  value?: string;
  /** One line: what the option does, and its default. */
  description: string;
}

export type CommandValues<O extends Record<string, CommandOption>> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string;
};

/** A mistake on the command line; its message is one line, ready to print after the command's name. */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

/** The `--help` text: what the command does, then one line per option, aligned. */
export function commandHelp(
  command: string,
  summary: string,
  options: Record<string, CommandOption>,
  notes: string[] = [],
): string {
  const all: [string, CommandOption][] = [
    ...Object.entries(options),
    ['help', { type: 'boolean', short: 'h', description: 'Print this help and exit.' }],
  ];
  const left = all.map(
    ([name, o]) =>
      `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`,
  );
  const width = Math.max(...left.map((l) => l.length)) + 2;
  return [
    `usage: ${command} [options]`,
    '',
    summary,
    '',
    'Options:',
    ...all.map(([, o], i) => `  ${(left[i] as string).padEnd(width)}${o.description}`),
    ...(notes.length > 0 ? ['', ...notes] : []),
    '',
  ].join('\n');
}

/**
 * Parses `argv` against `options` (plus `--help`). Throws a CommandLineError for an unknown
 * option, a missing value, a value given to a switch, or an argument that is not an option.
 * An unknown option, or an argument, close to a known option (or to one of `subcommands`, the
 * command's subcommands, if it has any) names it: `unknown option --fault; did you mean --faults?`.
 */
export function parseCommandLine<O extends Record<string, CommandOption>>(
  command: string,
  options: O,
  argv: string[] = process.argv.slice(2),
  subcommands: readonly string[] = [],
): { values: CommandValues<O>; help: boolean } {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, o] of Object.entries(options))
    config[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  const hint = `see ${command} --help`;
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ args: argv, options: config, strict: true, allowPositionals: false });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
    const names = Object.keys(config);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const typed = quoted.startsWith('--') ? quoted.slice(2) : '';
      throw new CommandLineError(
        `unknown option ${quoted}${didYouMean(typed, names, (n) => `--${n}`)} (${hint})`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      // A misspelt subcommand first, then an option written without its dashes.
      const suggestion =
        didYouMean(quoted, subcommands, (n) => `the command ${n}`) ||
        didYouMean(quoted, names, (n) => `--${n}`);
      throw new CommandLineError(
        `unexpected argument ${JSON.stringify(quoted)}: every argument is an option${subcommands.length > 0 ? ` or, first, a command (${subcommands.join(', ')})` : ''}${suggestion} (${hint})`,
      );
    }
    const name = /--([\w-]+)/.exec(message)?.[1];
    const o = name === undefined ? undefined : options[name];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && o)
      throw new CommandLineError(
        o.type === 'string'
          ? `--${name} needs a value (${o.value ?? 'VALUE'}) (${hint})`
          : `--${name} takes no value (${hint})`,
      );
    throw new CommandLineError(`${(error as Error).message} (${hint})`);
  }
  const { help, ...values } = parsed.values;
  return { values: values as CommandValues<O>, help: help === true };
}

/**
 * The options every gspec server takes: its port (default `defaultPort`), its address, the
 * host names it answers to (origins.ts), its log, and whether it outlives the npm that started
 * it (see stopOnSignals).
 */
export function serverOptions(defaultPort: number) {
  return {
    port: {
      type: 'string',
      short: 'p',
      value: 'N',
      description: `Port to listen on; 0 picks a free one. Default: $PORT, else ${defaultPort}.`,
    },
    host: { type: 'string', value: 'HOST', description: 'Address to listen on. Default: 127.0.0.1.' },
    'allowed-hosts': {
      type: 'string',
      value: 'NAMES',
      description:
        'Host names to answer besides IP addresses and localhost, separated by commas (.example.test: a domain and its names; *: any, which lets pages rebind a name to this server). Default: none.',
    },
    verbose: { type: 'boolean', short: 'v', description: 'Log every request and its answer to stderr.' },
    'outlive-npm': {
      type: 'boolean',
      description:
        'Keep running when the npm or npx that started it exits (an npm script ending in &). Default: stop with it.',
    },
  } as const;
}

/**
 * A command's options from its command line: the values, or undefined once `--help` has
 * printed `help`. A mistake is printed as one line, `<command>: <what is wrong>`, and the
 * process exits with status 1.
 */
export function readCommandLine<O extends Record<string, CommandOption>>(
  command: string,
  options: O,
  help: string,
  argv: string[] = process.argv.slice(2),
  subcommands: readonly string[] = [],
): CommandValues<O> | undefined {
  try {
    const parsed = parseCommandLine(command, options, argv, subcommands);
    if (!parsed.help) return parsed.values;
    process.stdout.write(help);
    return undefined;
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    process.stderr.write(`${command}: ${error.message}\n`);
    process.exit(1);
  }
}

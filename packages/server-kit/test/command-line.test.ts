import { describe, expect, it } from 'vitest';
import { CommandLineError, commandHelp, parseCommandLine } from '../src/command-line.ts';

const OPTIONS = {
  port: { type: 'string', short: 'p', value: 'N', description: 'Port.' },
  'rate-limit': { type: 'string', value: 'N', description: 'Units per minute.' },
  verbose: { type: 'boolean', short: 'v', description: 'Log requests.' },
} as const;

describe('parseCommandLine', () => {
  it.each([
    [[], {}, false],
    [['--port', '0', '-v'], { port: '0', verbose: true }, false],
    [['-p', '8080', '--rate-limit=5'], { port: '8080', 'rate-limit': '5' }, false],
    [['-h'], {}, true],
    [['--help', '--port', '1'], { port: '1' }, true],
  ])('reads %j', (argv, values, help) => {
    expect(parseCommandLine('tool', OPTIONS, argv)).toEqual({ values, help });
  });

  it.each([
    [['--colour'], 'unknown option --colour (see tool --help)'],
    [['-x'], 'unknown option -x (see tool --help)'],
    [['--port'], '--port needs a value (N) (see tool --help)'],
    [['-p'], '--port needs a value (N) (see tool --help)'],
    [['--verbose=1'], '--verbose takes no value (see tool --help)'],
    [['serve'], 'unexpected argument "serve": every argument is an option (see tool --help)'],
    // Did you mean: a close option, by edits, a swap or its start; nothing for a far one.
    [['--prot', '1'], 'unknown option --prot; did you mean --port? (see tool --help)'],
    [['--ratelimit=5'], 'unknown option --ratelimit; did you mean --rate-limit? (see tool --help)'],
    [['--verb'], 'unknown option --verb; did you mean --verbose? (see tool --help)'],
    [['--Verbose'], 'unknown option --Verbose; did you mean --verbose? (see tool --help)'],
    [['--hlep'], 'unknown option --hlep; did you mean --help? (see tool --help)'],
    [['--rate'], 'unknown option --rate; did you mean --rate-limit? (see tool --help)'],
    [['--limit'], 'unknown option --limit (see tool --help)'],
    [
      ['verbose'],
      'unexpected argument "verbose": every argument is an option; did you mean --verbose? (see tool --help)',
    ],
  ])('refuses %j in one line', (argv, message) => {
    const error = (() => {
      try {
        parseCommandLine('tool', OPTIONS, argv);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CommandLineError);
    expect((error as Error).message).toBe(message);
  });
});

describe('parseCommandLine with subcommands', () => {
  it.each([
    [
      ['credential'],
      'unexpected argument "credential": every argument is an option or, first, a command (credentials, seed-from); did you mean the command credentials? (see tool --help)',
    ],
    [
      ['start'],
      'unexpected argument "start": every argument is an option or, first, a command (credentials, seed-from) (see tool --help)',
    ],
  ])('refuses %j, naming the close command', (argv, message) => {
    expect(() => parseCommandLine('tool', OPTIONS, argv, ['credentials', 'seed-from'])).toThrow(
      new CommandLineError(message),
    );
  });
});

describe('commandHelp', () => {
  it('lists every option, its value and description, aligned, and --help', () => {
    expect(commandHelp('tool', 'Does things.', OPTIONS, ['A note.'])).toBe(
      [
        'usage: tool [options]',
        '',
        'Does things.',
        '',
        'Options:',
        '  -p, --port N        Port.',
        '      --rate-limit N  Units per minute.',
        '  -v, --verbose       Log requests.',
        '  -h, --help          Print this help and exit.',
        '',
        'A note.',
        '',
      ].join('\n'),
    );
  });
});

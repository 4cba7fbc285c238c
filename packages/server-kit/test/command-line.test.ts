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

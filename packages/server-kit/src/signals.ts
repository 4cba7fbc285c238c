/**
 * Stopping a server's process on SIGINT and SIGTERM: once, with a line on stdout, and after
 * the server's own stop (closing connections, saving state) when it is running. Installed
 * before the server starts, so that a signal during start-up ends the process as well.
 *
 * Started through npm (`npx gspec-emulator`, `npm run mock`), the server is the grandchild of
 * npm, with a shell between: SIGTERM to npm (`kill %1` after `npx gspec-emulator &`, a test
 * runner stopping what it started) ends npm and the shell but never reaches the server, which
 * would go on alone. So when npm started it, the server also stops when its parent is gone
 * (it was handed to another parent), as it would have on the signal.
 */
export function stopOnSignals(
  what: string,
  stop: () => (() => Promise<void>) | undefined,
  options: { watchParent?: boolean; intervalMs?: number } = {},
): void {
  let stopping = false;
  const onStop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${reason}: stopping ${what}\n`);
    // The stop may set process.exitCode (a proxy that found violations, with --fail-on-violation).
    const done = () => process.exit(Number(process.exitCode ?? 0));
    const running = stop();
    if (running) running().then(done, done);
    else done();
  };
  process.on('SIGINT', () => onStop('SIGINT'));
  process.on('SIGTERM', () => onStop('SIGTERM'));
  if (options.watchParent ?? startedByNpm()) {
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (process.ppid !== parent) onStop(`the process that started it (${parent}) is gone`);
    }, options.intervalMs ?? 500);
    timer.unref();
  }
}

/** Whether npm (npx, npm exec, npm run, npm start) started this process: it sets npm_command. */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return typeof env.npm_command === 'string' && env.npm_command !== '';
}

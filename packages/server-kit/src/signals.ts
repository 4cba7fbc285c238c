/**
 * Stopping a server's process on SIGINT and SIGTERM: once, with a line on stdout, and after
 * the server's own stop (closing connections, saving state) when it is running. Installed
 * before the server starts, so that a signal during start-up ends the process as well.
 */
export function stopOnSignals(what: string, stop: () => (() => Promise<void>) | undefined): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping ${what}\n`);
    const done = () => process.exit(0);
    const running = stop();
    if (running) running().then(done, done);
    else done();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

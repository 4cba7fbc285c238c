/** A server of the benchmarks as a child process: started, ready once it prints its origin, stopped. */
import { spawn } from 'node:child_process';

export interface Running {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

/** Runs `node <argv>` and waits for its "listening on <origin>" line (30 s at most). */
export function startServer(name: string, argv: string[]): Promise<Running> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await exit;
  };
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not start within 30 s: ${err}`));
    }, 30_000);
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ origin: match[1], pid: child.pid as number, stop });
      }
    });
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited: ${err}`));
    });
  });
}

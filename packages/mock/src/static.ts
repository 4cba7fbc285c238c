/** Serves the built reference (a static folder) with safe path handling. */
import { createReadStream, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Resolves a URL path inside `root`; undefined when it escapes the root or is not a file. */
export function resolveStaticFile(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const target = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  if (target !== root && !target.startsWith(root + path.sep)) return undefined;
  try {
    const stats = statSync(target);
    if (stats.isDirectory()) {
      const index = path.join(target, 'index.html');
      return statSync(index).isFile() ? index : undefined;
    }
    return stats.isFile() ? target : undefined;
  } catch {
    return undefined;
  }
}

export function sendStaticFile(file: string, response: ServerResponse, method: string): void {
  response.statusCode = 200;
  response.setHeader('content-type', CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream');
  response.setHeader('content-length', statSync(file).size);
  if (method === 'HEAD') {
    response.end();
    return;
  }
  createReadStream(file)
    .on('error', () => response.destroy())
    .pipe(response);
}

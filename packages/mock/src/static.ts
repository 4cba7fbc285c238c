/**
 * Serves the built reference (a static folder, `--docs DIR`) with safe path handling: only the
 * folder's own files. A path that leaves the folder (`..`, encoded or not), names a dotfile or
 * a dot folder at any depth (`/.env`, `/sub/.git/config`), or reaches, through a symbolic link,
 * a file whose real path is outside the folder's real path is not served (the gateway answers
 * 404). A link inside the folder to another place inside it is served.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
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

/** Whether a path relative to the folder has a segment that starts with a dot. */
const hidden = (relative: string) => relative.split(/[\\/]/).some((segment) => segment.startsWith('.'));

/**
 * Resolves a URL path inside `root` to the real path of the file to send (a folder's
 * index.html); undefined when it escapes the root, is hidden, or is not a file.
 */
export function resolveStaticFile(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const normalized = path.posix.normalize(`/${decoded}`);
  if (hidden(normalized.slice(1))) return undefined;
  const target = path.resolve(root, `.${normalized}`);
  if (target !== root && !target.startsWith(root + path.sep)) return undefined;
  try {
    const file = statSync(target).isDirectory() ? path.join(target, 'index.html') : target;
    // Links followed: the file's real path must be inside the folder's, and not hidden there.
    const realRoot = realpathSync(root);
    const real = realpathSync(file);
    if (!real.startsWith(realRoot + path.sep) || hidden(path.relative(realRoot, real))) return undefined;
    return statSync(real).isFile() ? real : undefined;
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

import type { ServerResponse } from 'node:http';

/**
 * Sends `body` as JSON with its length, over any headers already set. The gateway, the replay
 * and the proxy answer their own errors and endpoints with it.
 */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=UTF-8');
  response.setHeader('content-length', Buffer.byteLength(text));
  response.end(text);
}

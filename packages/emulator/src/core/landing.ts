/**
 * The emulator's root (`GET /`), where a person's browser goes first: what this server is, the
 * base URL of each API, the inspector and health; a page for a browser, JSON for anything else.
 * It holds no state and no credential.
 */
import type { IncomingMessage } from 'node:http';
import {
  curlExample,
  LANDING_HEADERS,
  type LandingInfo,
  landingHtml,
  landingJson,
  requestOrigin,
  type ServedApi,
  wantsHtml,
} from '@gspec/server-kit';
import type { Answer } from './answers.js';
import { CONTROL_PREFIX } from './control.js';
import type { Services } from './services.js';

/** The landing page's example: the first read of a served API that needs no parameter. */
function examplePathOf(services: Services): string {
  for (const service of services.list)
    for (const op of service.spec.operations)
      if (
        op.method.toUpperCase() === 'GET' &&
        !op.path.includes('{') &&
        !op.parameters.some((p) => p.required)
      )
        return `${service.spec.basePath}${op.path}`;
  return services.list[0]?.spec.basePath ?? '';
}

/** The answer to `GET /` of an emulator serving `served`; in strict mode its example takes `$TOKEN`. */
export function createLanding(
  services: Services,
  served: readonly ServedApi[],
  strict: boolean,
): (request: IncomingMessage) => Answer {
  const examplePath = examplePathOf(services);
  return (request) => {
    const origin = requestOrigin(request.headers.host);
    const info: LandingInfo = {
      name: 'gspec emulator',
      description: `A stateful emulator of ${served.map((api) => api.title).join(' and ')}, on this machine. ${
        strict
          ? 'It runs in strict mode: only the tokens of its users and seed are accepted; set TOKEN to one of them for the example.'
          : 'Any bearer token is accepted: each token acts as a user of its own.'
      }`,
      origin,
      apis: served,
      links: {
        inspector: {
          path: `${CONTROL_PREFIX}/ui/`,
          text: 'The inspector: requests, state and notifications',
        },
        health: { path: `${CONTROL_PREFIX}/health`, text: 'Health: the APIs and their operations' },
      },
      // In strict mode any-token would be refused: the example takes a token from the shell.
      example: curlExample(`${origin}${examplePath}`, strict ? '$TOKEN' : 'any-token'),
    };
    return wantsHtml(request.headers.accept)
      ? {
          status: 200,
          headers: { ...LANDING_HEADERS },
          text: { contentType: 'text/html; charset=utf-8', body: landingHtml(info) },
        }
      : { status: 200, headers: { ...LANDING_HEADERS }, body: landingJson(info) };
  };
}

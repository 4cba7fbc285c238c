/**
 * The try-it console: pick an operation of either spec, fill in its parameters and body
 * (prefilled from the spec's examples) and send it to the mock or emulator, by default the
 * origin that serves the portal. Shows the status, headers and body of the answer.
 */
import { byId, el } from './dom.js';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are arbitrary JSON.
type Json = any;

interface ApiInfo {
  id: string;
  title: string;
  basePath: string;
  file: string;
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  parameters: Json[];
  body?: Json;
}

function resolve(doc: Json, node: Json): Json {
  let value = node;
  for (let hops = 0; value && typeof value.$ref === 'string' && hops < 32; hops++) {
    value = (value.$ref as string)
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((current: Json, key: string) => current?.[key], doc);
  }
  return value;
}

function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const item = resolve(doc, rawItem);
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = new Map<string, Json>();
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = resolve(doc, raw);
        params.set(`${p.in}:${p.name}`, p);
      }
      const media = op.requestBody ? resolve(doc, op.requestBody).content?.['application/json'] : undefined;
      const firstExample = media?.examples ? Object.values<Json>(media.examples)[0] : undefined;
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        parameters: [...params.values()],
        ...(media ? { body: firstExample ? resolve(doc, firstExample).value : {} } : {}),
      });
    }
  }
  return out.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

/** The spec's example of a parameter (arrays written comma-separated), or '' when it has none. */
function exampleOf(doc: Json, param: Json): string {
  const named = param.examples ? Object.values<Json>(param.examples)[0] : undefined;
  const schema = resolve(doc, param.schema ?? {});
  const value =
    param.example ??
    (named ? resolve(doc, named).value : undefined) ??
    schema.example ??
    (Array.isArray(schema.enum) ? schema.enum[0] : undefined) ??
    schema.minimum;
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

const apiSelect = byId<HTMLSelectElement>('try-api');
const opSelect = byId<HTMLSelectElement>('try-op');
const target = byId<HTMLInputElement>('try-target');
const token = byId<HTMLInputElement>('try-token');
const endpoint = byId<HTMLElement>('try-endpoint');
const paramsBox = byId<HTMLFieldSetElement>('try-params');
const bodyRow = byId<HTMLElement>('try-body-row');
const bodyInput = byId<HTMLTextAreaElement>('try-body');
const answer = byId<HTMLElement>('try-answer');
const statusOut = byId<HTMLElement>('try-status');
const headersOut = byId<HTMLElement>('try-headers');
const responseOut = byId<HTMLElement>('try-response');

const query = new URLSearchParams(location.search);
target.value =
  query.get('target') ?? (location.protocol.startsWith('http') ? location.origin : 'http://127.0.0.1:4010');

let apis: ApiInfo[] = [];
let doc: Json;
let operations: Operation[] = [];

function current(): Operation | undefined {
  return operations.find((op) => op.operationId === opSelect.value);
}

function showOperation(): void {
  const op = current();
  if (!op) return;
  endpoint.textContent = `${op.method} ${op.path} — ${op.summary}`;
  const legend = el('legend', {}, 'Parameters');
  const rows = op.parameters.map((p) => {
    const id = `param-${p.in}-${p.name}`;
    const schema = resolve(doc, p.schema ?? {});
    const type =
      schema.type === 'array' ? `${resolve(doc, schema.items ?? {}).type ?? ''}[]` : (schema.type ?? '');
    return el(
      'div',
      { class: 'row' },
      el('label', { for: id }, `${p.name}${p.required ? ' *' : ''} (${p.in}, ${type})`),
      // Required parameters start with the spec's example; optional ones show it as a hint only.
      el('input', {
        id,
        'data-in': p.in,
        'data-name': p.name,
        'data-array': String(schema.type === 'array'),
        value: p.required ? exampleOf(doc, p) : '',
        placeholder: Array.isArray(schema.enum) ? schema.enum.join(' | ') : exampleOf(doc, p),
      }),
    );
  });
  paramsBox.replaceChildren(legend, ...rows);
  bodyRow.hidden = op.body === undefined;
  bodyInput.value = op.body === undefined ? '' : JSON.stringify(op.body, null, 2);
}

async function selectApi(id: string): Promise<void> {
  const api = apis.find((a) => a.id === id) ?? apis[0];
  if (!api) return;
  apiSelect.value = api.id;
  doc = await (await fetch(`../${api.id}/openapi.json`)).json();
  operations = operationsOf(doc);
  opSelect.replaceChildren(
    ...operations.map((op) =>
      el('option', { value: op.operationId }, `${op.operationId} — ${op.method} ${op.path}`),
    ),
  );
  const wanted = query.get('op');
  if (wanted && operations.some((op) => op.operationId === wanted)) opSelect.value = wanted;
  showOperation();
}

async function send(): Promise<void> {
  const op = current();
  const api = apis.find((a) => a.id === apiSelect.value);
  if (!op || !api) return;
  answer.hidden = false;
  statusOut.textContent = '…';
  headersOut.textContent = '';
  responseOut.textContent = '';
  let path = op.path;
  const search = new URLSearchParams();
  const headers = new Headers();
  for (const input of paramsBox.querySelectorAll<HTMLInputElement>('input[data-name]')) {
    const name = input.dataset.name ?? '';
    const value = input.value;
    if (value === '') continue;
    if (input.dataset.in === 'path') path = path.replace(`{${name}}`, encodeURIComponent(value));
    else if (input.dataset.in === 'query') {
      // Array parameters repeat (eventTypes=a&eventTypes=b); other values are sent as typed.
      for (const v of input.dataset.array === 'true' ? value.split(',') : [value])
        search.append(name, v.trim());
    } else if (input.dataset.in === 'header') headers.set(name, value);
  }
  if (token.value) headers.set('Authorization', `Bearer ${token.value}`);
  let body: string | undefined;
  if (op.body !== undefined) {
    try {
      body = JSON.stringify(JSON.parse(bodyInput.value || '{}'));
    } catch (error) {
      statusOut.textContent = 'not sent';
      responseOut.textContent = `The body is not valid JSON: ${(error as Error).message}`;
      return;
    }
    headers.set('Content-Type', 'application/json');
  }
  const url = `${target.value.replace(/\/+$/, '')}${api.basePath}${path}${search.size > 0 ? `?${search}` : ''}`;
  try {
    const response = await fetch(url, {
      method: op.method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    statusOut.textContent = `${response.status} ${response.statusText}`;
    statusOut.dataset.status = String(response.status);
    headersOut.textContent = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    const text = await response.text();
    try {
      responseOut.textContent = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      responseOut.textContent = text;
    }
  } catch (error) {
    statusOut.textContent = 'failed';
    responseOut.textContent = `${url}: ${(error as Error).message}. Is the mock running (npm start)?`;
  }
}

async function start(): Promise<void> {
  apis = await (await fetch('../apis.json')).json();
  apiSelect.replaceChildren(...apis.map((api) => el('option', { value: api.id }, api.title)));
  apiSelect.addEventListener('change', () => void selectApi(apiSelect.value));
  opSelect.addEventListener('change', showOperation);
  byId<HTMLFormElement>('try-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
  await selectApi(query.get('api') ?? apis[0]?.id ?? '');
  document.body.dataset.ready = 'true';
}

start().catch((error: unknown) => {
  endpoint.textContent = `The console could not start: ${(error as Error).message}`;
});

import { describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  decorateForDocs,
  guideSummary,
  headingId,
  localizePage,
  operationAnchor,
  portalLinks,
  rendererVersion,
  renderGuide,
  searchEntries,
} from '../build-reference.ts';
import { bundleApi, getApi, SpecError } from '../lib/apis.ts';
import { curlSample, tsLiteral, typescriptSample } from '../lib/code-samples.ts';
import { listOperations } from '../lib/operations.ts';

// Bundled here rather than read from specs/dist: the specs workspace builds after this one.
const calendar = await bundleApi(getApi('calendar'));
const op = (id: string) => {
  const found = listOperations(calendar).find((o) => o.operationId === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};

const builtPage = (version = '3.0.1') => `<!DOCTYPE html><html><head><title>x</title>
<link rel="modulepreload" href="https://cdn.redocly.com/redoc/v${version}/bundles/redoc.standalone.js" integrity="sha384-abc" crossorigin="anonymous">
</head><body><div id="redoc"><a class="m" href="/" data-discover="true">Overview</a><a class="m" href="/acl" data-discover="true">Acl</a><a href="#/acl/acl.list">list</a><a href="../try/">Try</a></div><script>try{document.documentElement.classList.add('light')}catch(e){}</script>
<script type="module">import { hydrate } from "https://cdn.redocly.com/redoc/v${version}/bundles/redoc.standalone.js";
const __redoc_options = {"skipBundle":true,"disableTelemetry":false}; hydrate({}, __redoc_options, document.getElementById('redoc'));</script></body></html>`;

describe('localizePage', () => {
  it('serves the renderer locally, moves inline scripts into files, sets the CSP and turns telemetry off', () => {
    const { html, scripts } = localizePage(builtPage(), '3.0.1', '../assets');
    expect(html).toContain('<link rel="modulepreload" href="../assets/redoc.standalone.js">');
    expect(html).toContain('<script src="color-mode.js"></script>');
    expect(html).toContain('<script type="module" src="init.js"></script>');
    expect(html).toContain(`content="${CONTENT_SECURITY_POLICY}"`);
    expect(scripts['init.js']).toContain('from "../assets/redoc.standalone.js"');
    expect(scripts['init.js']).toContain('"disableTelemetry":true');
    expect(html).not.toContain('cdn.redocly.com');
  });

  it('points the pre-rendered menu links at the hash routes the renderer uses, not at the site root', () => {
    const { html } = localizePage(builtPage(), '3.0.1', '../assets');
    expect(html).toContain('<a class="m" href="#/" data-discover="true">Overview</a>');
    expect(html).toContain('<a class="m" href="#/acl" data-discover="true">Acl</a>');
    expect(html).toContain('<a href="#/acl/acl.list">list</a><a href="../try/">Try</a>');
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="../favicon.svg">');
  });

  it.each([
    [
      'a renderer version other than the vendored one',
      builtPage('3.1.0'),
      /expects redoc 3\.1\.0 but the renderer served is redoc 3\.0\.1/,
    ],
    [
      'a page that no longer loads the renderer from the known URL',
      '<html><head></head><body></body></html>',
      /no longer loads Redoc/,
    ],
    [
      'a page that loads a script from another host',
      builtPage().replace(
        '<title>x</title>',
        '<title>x</title><script src="https://example.com/x.js"></script>',
      ),
      /still loads from another host/,
    ],
  ])('refuses %s', (_title, page, message) => {
    expect(() => localizePage(page, '3.0.1', '../assets')).toThrow(SpecError);
    expect(() => localizePage(page, '3.0.1', '../assets')).toThrow(message);
  });
});

describe('rendererVersion', () => {
  it('reads the version a Redoc bundle declares, and refuses a bundle that declares none', () => {
    expect(rendererVersion('var a=1,uj={name:`redoc`,version:`3.0.1`},dj=2;')).toBe('3.0.1');
    expect(() => rendererVersion('var a=1;')).toThrow(/no longer names its version/);
  });
});

describe('decorateForDocs', () => {
  const { doc, samples } = decorateForDocs(calendar, 'calendar');
  const decorated = (id: string) => listOperations(doc).find((o) => o.operationId === id)?.operation;

  it.each([
    ['events.patch', '**Quota cost:** 3 units per call.'],
    ['events.list', '**Quota cost:** 1 unit per call.'],
    ['colors.get', '`https://www.googleapis.com/auth/calendar.readonly`'],
    ['events.import', '**Deprecated behaviour:**'],
    ['events.list', '[Try it against the local mock](../try/?api=calendar&op=events.list)'],
  ])('adds to %s: %s', (id, note) => {
    expect(decorated(id)?.description).toContain(note);
  });

  it('gives every operation a curl and a TypeScript sample, and leaves the source spec alone', () => {
    expect(Object.keys(samples)).toHaveLength(listOperations(calendar, { batchEndpoints: true }).length);
    expect(decorated('events.list')?.['x-codeSamples'].map((s: { label: string }) => s.label)).toEqual([
      'curl',
      '@gspec/calendar',
    ]);
    expect(op('events.list').operation['x-codeSamples']).toBeUndefined();
  });
});

describe('code samples', () => {
  it('writes a curl command with the live URL, the required parameters and the example body', () => {
    const curl = curlSample(calendar, op('events.move'));
    expect(curl).toMatch(
      /^curl -X POST 'https:\/\/www\.googleapis\.com\/calendar\/v3\/calendars\/[^/]+\/events\/[^/]+\/move\?destination=/,
    );
    expect(curl).toContain('-H "Authorization: Bearer $ACCESS_TOKEN"');
    expect(curlSample(calendar, op('events.insert'))).toContain(`-H 'Content-Type: application/json'`);
  });

  it('writes a call of the generated resource method, with parameters and body fields in one object', () => {
    const remove = typescriptSample(calendar, 'calendar', op('events.delete'));
    expect(remove).toContain("import { createCalendar } from '@gspec/calendar';");
    expect(remove).toMatch(
      /^await calendar\.events\.delete\(\{\n {2}calendarId: '[^']+',\n {2}eventId: '[^']+',\n\}\);$/m,
    );
    expect(remove).not.toContain('console.log(answer)');
    const insert = typescriptSample(calendar, 'calendar', op('events.insert'));
    expect(insert).toContain('const answer = await calendar.events.insert({');
    expect(insert).toContain("  summary: 'Q3 roadmap review',");
    expect(typescriptSample(calendar, 'calendar', op('colors.get'))).toContain(
      'await calendar.colors.get();',
    );
  });

  it.each([
    [{ a: 1, 'b-c': 'x', list: [true] }, "{\n  a: 1,\n  'b-c': 'x',\n  list: [\n    true,\n  ],\n}"],
    ["it's", "'it\\'s'"],
    [[], '[]'],
  ])('prints %j as a TypeScript literal', (value, want) => {
    expect(tsLiteral(value)).toBe(want);
  });
});

describe('search index', () => {
  const entries = searchEntries(calendar, {
    name: 'calendar@v3',
    id: 'calendar',
    version: 'v3',
    title: 'Google Calendar API',
    server: '',
    basePath: '/calendar/v3',
    file: 'calendar.json',
  });

  it('links each operation to its anchor in the reference', () => {
    expect(entries.find((e) => e.name === 'calendarList.get')?.href).toBe(
      'calendar/#/calendarlist/calendarlist.get',
    );
    expect(operationAnchor('Events', 'events.quickAdd')).toBe('#/events/events.quickadd');
  });

  it('lists the fields an operation uses, from its parameters and bodies', () => {
    const insert = entries.find((e) => e.name === 'events.insert');
    expect(insert?.fields).toEqual(
      expect.arrayContaining([
        'calendarId',
        'conferenceDataVersion',
        'summary',
        'attendees',
        'email',
        'etag',
      ]),
    );
  });
});

describe('guides in the portal', () => {
  const slugs = new Set(['getting-started', 'using-the-mock']);

  it("renders a summary's inline Markdown and shows raw HTML as text", () => {
    const summary = guideSummary(
      '# Title\n\nCall `events.list` with **care** <b>now</b>,\nsee [the mock](using-the-mock.md#faults).\n\nSecond paragraph.',
      slugs,
    );
    expect(summary).toBe(
      'Call <code>events.list</code> with <strong>care</strong> &#60;b&#62;now&#60;/b&#62;, see <a href="using-the-mock.html#faults">the mock</a>.',
    );
    expect(summary).not.toContain('`');
  });

  it('keeps links to guides, the web and anchors, and names the repository file for any other link', () => {
    const html = portalLinks(
      [
        '<a href="getting-started.md">start</a>',
        '<a href="#here">here</a>',
        '<a href="https://example.com/x">web</a>',
        '<a href="../decisions/0001-int64-as-string.md">decision 0001</a>',
        '<a href="../../packages/mock/README.md">the mock&#39;s README</a>',
      ].join(' '),
      slugs,
    );
    expect(html).toBe(
      [
        '<a href="getting-started.html">start</a>',
        '<a href="#here">here</a>',
        '<a href="https://example.com/x">web</a>',
        'decision 0001 (<code>docs/decisions/0001-int64-as-string.md</code> in the repository)',
        'the mock&#39;s README (<code>packages/mock/README.md</code> in the repository)',
      ].join(' '),
    );
  });

  it.each(['missing.md', '../../../outside.md'])(
    'refuses a link to %s, which is no file of the repository',
    (target) => {
      expect(() => portalLinks(`<a href="${target}">x</a>`, slugs)).toThrow(
        /is not a file of the repository/,
      );
    },
  );

  it.each([
    ['Search Ads 360: download the ID-mapping CSV', 'search-ads-360-download-the-id-mapping-csv'],
    ['Only `default` events, and the deprecated fallback', 'only-default-events-and-the-deprecated-fallback'],
    ['Testing the 412 path against the mock', 'testing-the-412-path-against-the-mock'],
  ])('anchors the heading %s as GitHub does, at %s', (heading, id) => {
    expect(renderGuide(`## ${heading}\n`)).toContain(`<h2 id="${id}">`);
    expect(headingId(heading.replace(/`/g, ''))).toBe(id);
  });

  it('numbers the anchors of repeated headings', () => {
    const html = renderGuide('## See also\n\n## See also\n');
    expect(html).toContain('<h2 id="see-also">');
    expect(html).toContain('<h2 id="see-also-1">');
  });
});

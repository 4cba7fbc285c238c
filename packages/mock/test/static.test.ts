/**
 * The reference folder the gateway serves at / (`--docs DIR`, src/static.ts): its own files,
 * through links inside it too, and never a dotfile, a dot folder's file, or a file a link
 * reaches outside it. Each refusal is the gateway's 404 in Google's error envelope.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../src/index.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'gspec-static-'));
const docsDir = path.join(scratch, 'docs');
const outside = path.join(scratch, 'outside');
let gateway: Gateway;
let origin: string;

beforeAll(async () => {
  mkdirSync(path.join(docsDir, 'sub', '.git'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(docsDir, 'index.html'), '<!doctype html><title>reference</title>');
  writeFileSync(path.join(docsDir, 'sub', 'page.html'), '<p>a page of the reference</p>');
  writeFileSync(path.join(docsDir, '.env'), 'SECRET=in-the-folder');
  writeFileSync(path.join(docsDir, 'sub', '.git', 'config'), '[remote "origin"]');
  mkdirSync(path.join(docsDir, '.cache'));
  writeFileSync(path.join(docsDir, '.cache', 'index.html'), '<p>SECRET cache</p>');
  writeFileSync(path.join(outside, 'secret.txt'), 'outside the folder');
  writeFileSync(path.join(outside, 'index.html'), '<p>outside the folder</p>');
  // Links out of the folder: to a file, and to a folder.
  symlinkSync(path.join(outside, 'secret.txt'), path.join(docsDir, 'outside-file.txt'));
  symlinkSync(outside, path.join(docsDir, 'outside-dir'), 'dir');
  // Links inside it: to a page, to a folder, and to a dotfile.
  symlinkSync(path.join(docsDir, 'sub', 'page.html'), path.join(docsDir, 'inside-link.html'));
  symlinkSync(path.join('..', 'sub'), path.join(docsDir, 'sub', 'inside-dir'), 'dir');
  symlinkSync('.env', path.join(docsDir, 'env.txt'));
  gateway = createGateway({ apis: [], docsDir });
  origin = await gateway.listen(0);
});
afterAll(async () => {
  await gateway.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the reference folder', () => {
  it.each([
    ['its index', '/', 'reference'],
    ['a page in a sub-folder', '/sub/page.html', 'a page of the reference'],
    ['a link to a page inside', '/inside-link.html', 'a page of the reference'],
    ['a page through a linked folder inside', '/sub/inside-dir/page.html', 'a page of the reference'],
  ])('serves %s (%s)', async (_what, where, text) => {
    const response = await fetch(`${origin}${where}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(text);
  });

  it.each([
    ['a dotfile', '/.env'],
    ['a dotfile, its dot escaped', '/%2eenv'],
    ["a dot folder's file", '/sub/.git/config'],
    ["a dot folder's index", '/.cache/'],
    ['a link to a file outside', '/outside-file.txt'],
    ['a file through a linked folder outside', '/outside-dir/secret.txt'],
    ['the index of a linked folder outside', '/outside-dir/'],
    ['a link inside to a dotfile', '/env.txt'],
    ['a path out of the folder', '/..%2f..%2fetc%2fpasswd'],
  ])('refuses %s (%s) with 404', async (_what, where) => {
    for (const method of ['GET', 'HEAD']) {
      const response = await fetch(`${origin}${where}`, { method });
      expect(response.status, `${method} ${where}`).toBe(404);
      if (method === 'GET') {
        const body = await response.json();
        expect(body.error).toMatchObject({ code: 404, errors: [{ reason: 'notFound' }] });
        expect(JSON.stringify(body)).not.toMatch(/SECRET|outside the folder|remote/);
      }
    }
  });
});

/**
 * Conditional reads: whether an `If-None-Match` header matches the etag of the answer, in
 * which case the answer is `304 Not Modified` with no body (decision 0038). `*` matches any
 * answer that has an etag; otherwise the header is a comma-separated list of tags, compared
 * weakly (a `W/` prefix on either side is ignored), as RFC 9110 asks for `If-None-Match`.
 */
const weak = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

export function ifNoneMatchHits(header: string | string[] | undefined, etag: unknown): boolean {
  if (header === undefined || typeof etag !== 'string' || etag === '') return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  const own = weak(etag.trim());
  for (const part of text.split(',')) {
    const tag = part.trim();
    if (tag === '*' || (tag !== '' && weak(tag) === own)) return true;
  }
  return false;
}

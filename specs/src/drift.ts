/**
 * The drift comparison: Google's Discovery document (what is expected) against our spec, both
 * reduced to the model of model.ts. Each difference has a kind, a JSON-pointer-like place, the
 * aspect that differs, and both values. Kinds are named from Google's side: `added` is in
 * Google's document and not in ours, `removed` is in ours and not in Google's.
 *
 * Compared: operations (method, path, deprecated), their path and query parameters (location,
 * required, repeated, type, format, enum, default, the narrowing keywords, deprecated), the
 * schema names of their bodies and the body fields they need, their scopes and the document's,
 * and every schema Google's document has, property by property (type, format, enum, readOnly,
 * deprecated, items, map values, nested objects, `$ref`, the narrowing keywords, `required`).
 * Never compared: descriptions, titles, revisions, etags, links, icons, batchPath, the order
 * of anything.
 *
 * Where Discovery cannot say a thing, only what it says is compared (docs/decisions/0058):
 * a read-only marker is checked where Discovery has `readOnly: true`, a parameter's format and
 * default where Discovery gives one (a format we add that narrows, such as `date-time`, is
 * still reported). Schemas of ours that Google does not have are reported when an operation's
 * body reaches them, except a name we gave to one of Google's unnamed nested objects.
 */
import {
  type ApiModel,
  ENCODING_FORMATS,
  NARROWING,
  type Operation,
  type Parameter,
  type Shape,
  SYSTEM_PARAMETERS,
} from './model.js';

export const DIFFERENCE_KINDS = [
  'operation added',
  'operation removed',
  'operation changed',
  'parameter added',
  'parameter removed',
  'parameter changed',
  'request schema changed',
  'response schema changed',
  'schema added',
  'schema removed',
  'schema changed',
  'property added',
  'property removed',
  'property changed',
  'scope added',
  'scope removed',
] as const;

export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** A value as it is reported: text, a list of texts, a flag, or nothing. */
export type Value = string | string[] | boolean | null;

export interface Difference {
  kind: DifferenceKind;
  /** Where, such as `/operations/events.list/parameters/orderBy` or `/schemas/Event/properties/status`. */
  at: string;
  /** What differs, for `changed` kinds: `enum`, `type`, `format`, `readOnly`, `$ref`, `required`, ... */
  aspect?: string;
  /** What Google's document says (null: nothing). */
  expected: Value;
  /** What our spec says (null: nothing). */
  ours: Value;
}

const value = (v: string | string[] | boolean | undefined): Value => (v === undefined ? null : v);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

class Comparison {
  readonly out: Difference[] = [];
  /** Our schemas met where Google's document has an unnamed object of the same shape. */
  readonly named = new Set<string>();

  constructor(
    readonly google: ApiModel,
    readonly ours: ApiModel,
  ) {}

  push(kind: DifferenceKind, at: string, aspect: string | undefined, expected: Value, ours: Value) {
    this.out.push({ kind, at, ...(aspect ? { aspect } : {}), expected, ours });
  }

  changed(kind: DifferenceKind, at: string, aspect: string, expected: Value, ours: Value) {
    if (!same(expected, ours)) this.push(kind, at, aspect, expected, ours);
  }

  // -------------------------------------------------------------------------------------
  // Shapes

  /** Our node with its `$ref` followed, keeping the flags and constraints written beside the `$ref`. */
  resolve(node: Shape): Shape {
    let current = node;
    const seen = new Set<string>();
    while (current.ref && !seen.has(current.ref)) {
      seen.add(current.ref);
      this.named.add(current.ref);
      const target = this.ours.schemas.get(current.ref);
      if (!target) break;
      const { ref: _, ...own } = current;
      current = {
        ...target,
        readOnly: target.readOnly || own.readOnly,
        deprecated: target.deprecated || own.deprecated,
        constraints: { ...target.constraints, ...own.constraints },
      };
    }
    return current;
  }

  /** The flags and narrowing keywords of one node, wherever it is. */
  flags(kind: DifferenceKind, at: string, google: Shape, ours: Shape) {
    if (google.readOnly && !ours.readOnly) this.push(kind, at, 'readOnly', true, false);
    this.changed(kind, at, 'deprecated', google.deprecated, ours.deprecated);
    for (const keyword of NARROWING)
      this.changed(kind, at, keyword, value(google.constraints[keyword]), value(ours.constraints[keyword]));
  }

  /** A schema or property: `kind` is used for the node itself, `property ...` below it. */
  shape(kind: DifferenceKind, at: string, google: Shape, oursRaw: Shape) {
    if (google.ref) {
      this.changed(kind, at, '$ref', google.ref, oursRaw.ref ?? '(inline)');
      this.flags(kind, at, google, oursRaw);
      return; // the named schema is compared once, under /schemas
    }
    const ours = this.resolve(oursRaw);
    this.changed(kind, at, 'type', value(google.type), value(ours.type));
    this.changed(kind, at, 'format', value(google.format), value(ours.format));
    this.changed(kind, at, 'enum', value(google.enum), value(ours.enum));
    this.changed(kind, at, 'required', value(google.required), value(ours.required));
    this.flags(kind, at, google, ours);
    const googleProps = google.properties ?? {};
    const ourProps = ours.properties ?? {};
    for (const [name, child] of Object.entries(googleProps)) {
      const here = `${at}/properties/${name}`;
      const mine = ourProps[name];
      if (mine) this.shape('property changed', here, child, mine);
      else this.push('property added', here, undefined, describeShape(child), null);
    }
    for (const [name, mine] of Object.entries(ourProps))
      if (!(name in googleProps))
        this.push('property removed', `${at}/properties/${name}`, undefined, null, describeShape(mine));
    for (const key of ['items', 'additionalProperties'] as const) {
      const g = google[key];
      const o = ours[key];
      if (g && o) this.shape('property changed', `${at}/${key}`, g, o);
      else if (g || o) this.push(kind, at, key, g ? describeShape(g) : null, o ? describeShape(o) : null);
    }
  }

  // -------------------------------------------------------------------------------------
  // Parameters

  parameter(at: string, google: Parameter, ours: Parameter) {
    const kind = 'parameter changed';
    this.changed(kind, at, 'location', google.location, ours.location);
    this.changed(kind, at, 'required', google.required, ours.required);
    this.changed(kind, at, 'repeated', google.repeated, ours.repeated);
    this.changed(kind, at, 'deprecated', google.deprecated, ours.deprecated);
    const g = google.value;
    const o = this.resolve(ours.value);
    this.changed(kind, at, 'type', value(g.type), value(o.type));
    this.changed(kind, at, 'enum', value(g.enum), value(o.enum));
    // Discovery gives every parameter's format where it has one; a format we add is reported
    // only where it narrows what is accepted (date-time, not int32).
    if (g.format !== undefined || (o.format !== undefined && !ENCODING_FORMATS.has(o.format)))
      this.changed(kind, at, 'format', value(g.format), value(o.format));
    if (google.default !== undefined) this.changed(kind, at, 'default', google.default, value(ours.default));
    for (const keyword of NARROWING)
      this.changed(kind, at, keyword, value(g.constraints[keyword]), value(o.constraints[keyword]));
  }

  // -------------------------------------------------------------------------------------
  // Operations

  operation(google: Operation, ours: Operation) {
    const at = `/operations/${google.id}`;
    this.changed('operation changed', at, 'method', google.method, ours.method);
    this.changed('operation changed', at, 'path', google.path, ours.path);
    this.changed('operation changed', at, 'deprecated', google.deprecated, ours.deprecated);
    for (const [name, g] of google.parameters) {
      const o = ours.parameters.get(name);
      if (o) this.parameter(`${at}/parameters/${name}`, g, o);
      else this.push('parameter added', `${at}/parameters/${name}`, undefined, describeParameter(g), null);
    }
    for (const [name, o] of ours.parameters) {
      if (google.parameters.has(name)) continue;
      // A system parameter Google lists once for the whole API is compared there (systemParameters).
      if (SYSTEM_PARAMETERS.has(name) || this.google.parameters.has(name)) continue;
      this.push('parameter removed', `${at}/parameters/${name}`, undefined, null, describeParameter(o));
    }
    this.changed(
      'request schema changed',
      `${at}/request`,
      'schema',
      value(google.request),
      value(ours.request),
    );
    this.changed(
      'request schema changed',
      `${at}/request`,
      'required',
      google.requestRequired,
      ours.requestRequired,
    );
    const requestSchema = google.request ? this.google.schemas.get(google.request) : undefined;
    for (const [name, narrowed] of Object.entries(ours.requestProperties)) {
      const g = requestSchema?.properties?.[name];
      for (const keyword of NARROWING)
        this.changed(
          'request schema changed',
          `${at}/request/properties/${name}`,
          keyword,
          value(g?.constraints[keyword]),
          value(narrowed.constraints[keyword]),
        );
    }
    this.changed(
      'response schema changed',
      `${at}/response`,
      'schema',
      value(google.response),
      value(ours.response),
    );
    this.scopes(`${at}/scopes`, google.scopes, ours.scopes);
  }

  scopes(at: string, google: string[], ours: string[]) {
    for (const scope of google)
      if (!ours.includes(scope)) this.push('scope added', `${at}/${scope}`, undefined, scope, null);
    for (const scope of ours)
      if (!google.includes(scope)) this.push('scope removed', `${at}/${scope}`, undefined, null, scope);
  }

  /** Our system parameters against the ones Google lists for the whole API, each once. */
  systemParameters() {
    const seen = new Set<string>();
    for (const operation of this.ours.operations.values())
      for (const [name, ours] of operation.parameters) {
        const google = this.google.parameters.get(name);
        if (!google || seen.has(name) || this.google.operations.get(operation.id)?.parameters.has(name))
          continue;
        seen.add(name);
        this.parameter(`/parameters/${name}`, google, ours);
      }
  }

  /** Our schemas that a body reaches, through references. */
  reachable(): Set<string> {
    const found = new Set<string>();
    const visit = (shape: Shape | undefined) => {
      if (!shape) return;
      if (shape.ref) {
        if (found.has(shape.ref)) return;
        found.add(shape.ref);
        visit(this.ours.schemas.get(shape.ref));
      }
      for (const child of Object.values(shape.properties ?? {})) visit(child);
      visit(shape.items);
      visit(shape.additionalProperties);
    };
    for (const operation of this.ours.operations.values()) {
      for (const name of [operation.request, operation.response])
        if (name && this.ours.schemas.has(name))
          visit({ ref: name, readOnly: false, deprecated: false, constraints: {} });
      for (const property of Object.values(operation.requestProperties)) visit(property);
    }
    return found;
  }

  run(): Difference[] {
    this.scopes('/scopes', this.google.scopes, this.ours.scopes);
    this.systemParameters();
    for (const [id, google] of this.google.operations) {
      const ours = this.ours.operations.get(id);
      if (ours) this.operation(google, ours);
      else
        this.push('operation added', `/operations/${id}`, undefined, `${google.method} ${google.path}`, null);
    }
    for (const [id, ours] of this.ours.operations)
      if (!this.google.operations.has(id))
        this.push('operation removed', `/operations/${id}`, undefined, null, `${ours.method} ${ours.path}`);
    for (const [name, google] of this.google.schemas) {
      const ours = this.ours.schemas.get(name);
      if (ours) this.shape('schema changed', `/schemas/${name}`, google, ours);
      else this.push('schema added', `/schemas/${name}`, undefined, describeShape(google), null);
    }
    const reachable = this.reachable();
    for (const name of reachable)
      if (!this.google.schemas.has(name) && !this.named.has(name))
        this.push(
          'schema removed',
          `/schemas/${name}`,
          undefined,
          null,
          describeShape(this.ours.schemas.get(name)),
        );
    return this.out;
  }
}

/** A short text for a whole node that is on one side only. */
function describeShape(shape: Shape | undefined): string {
  if (!shape) return '(none)';
  if (shape.ref) return shape.ref;
  if (shape.type === 'array' && shape.items) return `array of ${describeShape(shape.items)}`;
  if (shape.additionalProperties) return `map of ${describeShape(shape.additionalProperties)}`;
  return [shape.type ?? 'any', shape.format].filter(Boolean).join(' ');
}

function describeParameter(parameter: Parameter): string {
  return [
    parameter.location,
    parameter.repeated ? 'repeated' : '',
    parameter.required ? 'required' : '',
    describeShape(parameter.value),
  ]
    .filter(Boolean)
    .join(' ');
}

/** Every difference between Google's document and ours, in a stable order. */
export function compareApis(google: ApiModel, ours: ApiModel): Difference[] {
  const kindOrder = (kind: DifferenceKind) => DIFFERENCE_KINDS.indexOf(kind);
  return new Comparison(google, ours)
    .run()
    .sort(
      (a, b) =>
        kindOrder(a.kind) - kindOrder(b.kind) ||
        a.at.localeCompare(b.at) ||
        (a.aspect ?? '').localeCompare(b.aspect ?? ''),
    );
}

/** A value for people: `(none)`, `[a, b]`, or the text. */
export function showValue(v: Value): string {
  if (v === null) return '(none)';
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  return String(v);
}

/** One line: place, aspect, what Google's document says, what ours says. */
export function describeDifference(d: Difference): string {
  return `${d.at}  ${d.aspect ? `${d.aspect}: ` : ''}expected ${showValue(d.expected)}, ours ${showValue(d.ours)}`;
}

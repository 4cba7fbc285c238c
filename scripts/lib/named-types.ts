/**
 * The named types of a client (types.ts and the argument types of methods.ts): plain
 * interfaces written out from the bundled spec, one per schema and direction, so that an
 * editor shows them by name with every property's documentation, and the compiler checks a
 * call without computing a type.
 *
 * - `X` is the schema as the service answers it; `XInput` as a request body takes it, its
 *   read-only properties absent (at any depth: an input refers to the inputs of other
 *   schemas). A schema with nothing read-only at any depth has `XInput = X`.
 * - Every property carries its description, its first example, its default and, when
 *   deprecated, `@deprecated` as JSDoc; read-only ones say that the service sets them.
 * - An operation whose body requires more than its schema (`allOf: [{$ref: X}, {required}]`,
 *   decision 0011) gets a body type of its own, `EventsInsertBody extends EventInput`, with
 *   those properties required; every operation gets one argument interface,
 *   `EventsInsertArgs`, that extends its body type and adds its path, query and header
 *   parameters.
 * Every rule above is listed among the decisions of type-mapping.ts, which also decides the
 * scalars (int64, dates, binary); this file only writes the decisions out.
 */
import { type OpenApiDocument, SpecError } from './apis.ts';
import { resolve } from './operations.ts';
import { decidedType, liftAllOfRequired } from './type-mapping.ts';

// biome-ignore lint/suspicious/noExplicitAny: spec nodes are arbitrary JSON.
type Node = Record<string, any>;
export type Direction = 'answer' | 'input';

const SCHEMA_REF = '#/components/schemas/';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name as TypeScript writes it. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Text as a JSDoc block at `indent`, `*\/` made harmless; nothing for no lines. */
export function jsdoc(lines: string[], indent: string): string {
  const text = lines.join('\n').trim();
  if (!text) return '';
  const body = text.replace(/\*\//g, '*\\/').split('\n');
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** The JSDoc lines of a schema used as a property, or of a parameter (its schema in `schema`). */
export function docLines(node: Node, extra: { readOnly?: boolean; schema?: Node } = {}): string[] {
  const schema = extra.schema ?? node;
  const lines: string[] = [];
  if (typeof node.description === 'string') lines.push(node.description.trim());
  if (extra.readOnly) lines.push('Read-only: the service sets it.');
  const examples = node.examples ?? schema.examples;
  const example = Array.isArray(examples) ? examples[0] : (node.example ?? schema.example);
  if (example !== undefined) lines.push(`@example ${JSON.stringify(example)}`);
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (node.deprecated) lines.push('@deprecated');
  return lines;
}

export class NamedTypes {
  /** Schema names whose input differs from their answer (something read-only at some depth). */
  private readonly withInput = new Set<string>();

  constructor(
    private readonly api: string,
    private readonly doc: OpenApiDocument,
  ) {
    const schemas = (doc.components?.schemas ?? {}) as Record<string, Node>;
    // A schema needs an input type when it or a schema it refers to has a read-only property.
    let changed = true;
    const direct = new Set(Object.keys(schemas).filter((name) => this.hasReadOnly(schemas[name] as Node)));
    for (const name of direct) this.withInput.add(name);
    while (changed) {
      changed = false;
      for (const [name, schema] of Object.entries(schemas)) {
        if (this.withInput.has(name)) continue;
        if (this.refsOf(schema).some((ref) => this.withInput.has(ref))) {
          this.withInput.add(name);
          changed = true;
        }
      }
    }
  }

  /** The schemas of the document, by name. */
  get schemas(): Record<string, Node> {
    return (this.doc.components?.schemas ?? {}) as Record<string, Node>;
  }

  /** The type's name of schema `name` in a direction. */
  nameOf(name: string, direction: Direction): string {
    return direction === 'input' && this.withInput.has(name) ? `${name}Input` : name;
  }

  hasInput(name: string): boolean {
    return this.withInput.has(name);
  }

  /** Whether a schema has a read-only property of its own (not through a $ref). */
  private hasReadOnly(schema: Node): boolean {
    let found = false;
    this.visit(schema, (node) => {
      for (const property of Object.values<Node>(node.properties ?? {})) if (property?.readOnly) found = true;
    });
    return found;
  }

  /** The schema names a schema refers to (not following them). */
  private refsOf(schema: Node): string[] {
    const refs: string[] = [];
    this.visit(schema, (node) => {
      if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF))
        refs.push(node.$ref.slice(SCHEMA_REF.length));
    });
    return refs;
  }

  /** Calls `fn` on a schema and every schema inside it, not following $refs. */
  private visit(schema: unknown, fn: (node: Node) => void): void {
    if (typeof schema !== 'object' || schema === null) return;
    const node = schema as Node;
    fn(node);
    for (const property of Object.values(node.properties ?? {})) this.visit(property, fn);
    for (const keyword of ['items', 'additionalProperties', 'not']) this.visit(node[keyword], fn);
    for (const keyword of ['allOf', 'anyOf', 'oneOf'])
      for (const member of node[keyword] ?? []) this.visit(member, fn);
  }

  /** The schema a local $ref points to (operations.ts follows it); a broken one names `where`. */
  resolve(ref: string, where: string): Node {
    try {
      return resolve(this.doc, { $ref: ref });
    } catch (error) {
      throw new SpecError(`${this.api}: ${where}: ${(error as Error).message}`);
    }
  }

  /** A schema as a TypeScript type, written at `indent` (inline objects span lines). */
  typeOf(schema: Node | boolean | undefined, direction: Direction, indent: string, where: string): string {
    if (schema === undefined || schema === true) return 'unknown';
    if (schema === false) return 'never';
    if (typeof schema.$ref === 'string') {
      if (!schema.$ref.startsWith(SCHEMA_REF))
        return this.typeOf(this.resolve(schema.$ref, where), direction, indent, where);
      const name = schema.$ref.slice(SCHEMA_REF.length);
      if (!Object.hasOwn(this.schemas, name))
        throw new SpecError(`${this.api}: ${where}: unresolved $ref ${schema.$ref}`);
      return this.nameOf(name, direction);
    }
    const decided = decidedType(schema, { path: where });
    if (decided) return decided;
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (Array.isArray(schema.enum)) {
      const values = schema.enum.map((value: unknown) => JSON.stringify(value));
      if (types.includes('null') && !schema.enum.includes(null)) values.push('null');
      return union(values);
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(schema[keyword])) {
        return union(
          schema[keyword].map((member: Node, i: number) =>
            this.typeOf(member, direction, indent, `${where}/${keyword}/${i}`),
          ),
        );
      }
    }
    if (Array.isArray(schema.allOf)) {
      const members = schema.allOf.map((member: Node, i: number) =>
        this.typeOf(member, direction, indent, `${where}/allOf/${i}`),
      );
      const own = schema.properties ? [this.objectOf(schema, direction, indent, where)] : [];
      return [...members, ...own].map((t) => (t.includes('|') ? `(${t})` : t)).join(' & ');
    }
    if (types.length === 0 && (schema.properties || schema.additionalProperties)) types.push('object');
    if (types.length === 0) return 'unknown';
    return union(
      types.map((type) => {
        switch (type) {
          case 'string':
            return 'string';
          case 'integer':
          case 'number':
            return 'number';
          case 'boolean':
            return 'boolean';
          case 'null':
            return 'null';
          case 'array': {
            const item = this.typeOf(schema.items, direction, indent, `${where}/items`);
            return /[|&\s]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
          }
          case 'object':
            return this.objectOf(schema, direction, indent, where);
          default:
            throw new SpecError(`${this.api}: ${where}: unknown type ${JSON.stringify(type)}`);
        }
      }),
    );
  }

  /** The members of an object schema, one per line at `indent` plus two spaces. */
  members(
    schema: Node,
    direction: Direction,
    indent: string,
    where: string,
    required?: Set<string>,
  ): string[] {
    const needed = required ?? new Set<string>(schema.required ?? []);
    const members: string[] = [];
    for (const [name, property] of Object.entries<Node>(schema.properties ?? {})) {
      if (direction === 'input' && property.readOnly) continue;
      if (direction === 'answer' && property.writeOnly) continue;
      const type = this.typeOf(property, direction, `${indent}  `, `${where}/properties/${name}`);
      const doc = docLines(property, { readOnly: direction === 'answer' && property.readOnly === true });
      members.push(
        `${jsdoc(doc, `${indent}  `)}${indent}  ${key(name)}${needed.has(name) ? '' : '?'}: ${type};`,
      );
    }
    const extra = schema.additionalProperties;
    if (extra !== undefined && extra !== false) {
      const type =
        extra === true
          ? 'unknown'
          : this.typeOf(extra, direction, `${indent}  `, `${where}/additionalProperties`);
      members.push(`${indent}  [key: string]: ${type};`);
    }
    return members;
  }

  /** An inline object type. */
  private objectOf(schema: Node, direction: Direction, indent: string, where: string): string {
    const members = this.members(schema, direction, indent, where);
    if (members.length === 0) return schema.properties ? '{}' : 'Record<string, unknown>';
    return `{\n${members.join('\n')}\n${indent}}`;
  }

  /** One schema of the components as an exported declaration in a direction. */
  declaration(name: string, direction: Direction): string {
    const schema = this.schemas[name] as Node;
    const typeName = this.nameOf(name, direction);
    const where = `#/components/schemas/${name}`;
    const summary = typeof schema.description === 'string' ? schema.description.trim() : name;
    const doc =
      direction === 'answer'
        ? jsdoc(
            [
              summary,
              ...(this.hasInput(name)
                ? ['', `As the service answers it; \`${name}Input\` is what a request body takes.`]
                : []),
            ],
            '',
          )
        : jsdoc(
            [`${name} as a request body takes it: its read-only properties are absent.`, '', summary],
            '',
          );
    const isObject =
      !schema.anyOf &&
      !schema.oneOf &&
      !schema.allOf &&
      !schema.enum &&
      schema.const === undefined &&
      (schema.type === 'object' || (!schema.type && schema.properties));
    if (isObject) {
      const members = this.members(schema, direction, '', where);
      return `${doc}export interface ${typeName} {\n${members.join('\n')}${members.length ? '\n' : ''}}\n`;
    }
    return `${doc}export type ${typeName} = ${this.typeOf(schema, direction, '', where)};\n`;
  }

  /**
   * The body type of an operation: the input of its schema, or (when the operation requires
   * more than the schema) an interface of its own named `bodyName` that extends that input.
   */
  bodyOf(
    schema: Node,
    bodyName: string,
    where: string,
  ): {
    typeName: string;
    declaration?: string;
    required: boolean;
    /** For a body that is a schema with more fields required (`allOf`): the schema and its input type. */
    base?: { schema: string; inputName: string; required: string[] };
  } {
    const lifted = structuredClone(schema);
    liftAllOfRequired(lifted);
    /** Whether a body of this schema must have some property. */
    const requires = (target: Node) =>
      (target.required ?? []).some((name: string) => !target.properties?.[name]?.readOnly);
    if (typeof lifted.$ref === 'string') {
      const target = this.resolve(lifted.$ref, where);
      return { typeName: this.typeOf(lifted, 'input', '', where), required: requires(target) };
    }
    const base = lifted.allOf;
    if (
      Array.isArray(base) &&
      base.length === 1 &&
      typeof base[0]?.$ref === 'string' &&
      base[0].$ref.startsWith(SCHEMA_REF)
    ) {
      const schemaName = base[0].$ref.slice(SCHEMA_REF.length);
      const target = this.schemas[schemaName];
      if (!target) throw new SpecError(`${this.api}: ${where}: unresolved $ref ${base[0].$ref}`);
      const inputName = this.nameOf(schemaName, 'input');
      const required: string[] = (lifted.required ?? []).filter(
        (name: string) => !(target.required ?? []).includes(name),
      );
      if (required.length === 0) return { typeName: inputName, required: requires(target) };
      const members = required.map((name) => {
        const property = target.properties?.[name] as Node | undefined;
        if (!property)
          throw new SpecError(`${this.api}: ${where}: requires "${name}", which ${schemaName} does not have`);
        if (property.readOnly)
          throw new SpecError(
            `${this.api}: ${where}: requires "${name}", which is read-only in ${schemaName}`,
          );
        const type = this.typeOf(property, 'input', '  ', `${where}/${name}`);
        return `${jsdoc(docLines(property), '  ')}  ${key(name)}: ${type};`;
      });
      const doc = jsdoc(
        [
          `The body of this operation: ${inputName} with ${required.map((n) => `\`${n}\``).join(', ')} required.`,
        ],
        '',
      );
      return {
        typeName: bodyName,
        declaration: `${doc}export interface ${bodyName} extends ${inputName} {\n${members.join('\n')}\n}\n`,
        required: true,
        base: { schema: schemaName, inputName, required },
      };
    }
    // An inline body: an interface of its own.
    const members = this.members(lifted, 'input', '', where);
    return {
      typeName: bodyName,
      declaration: `export interface ${bodyName} {\n${members.join('\n')}${members.length ? '\n' : ''}}\n`,
      required: requires(lifted),
    };
  }
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

/** `events.insert` as a type name's stem: `EventsInsert`. */
export function operationTypeStem(operationId: string): string {
  return operationId
    .split(/[._-]/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

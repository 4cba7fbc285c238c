/**
 * What partial responses and conditional reads give back (decision 0038). A call with a
 * `fields` mask written as a string literal answers `Selected`: the properties the mask
 * selects and no others, so reading one it did not select is a type error. A mask known only
 * at run time (`string`) answers `Trimmed`: the same shape, every field optional at any depth.
 * A read with `ifNoneMatch` answers `NotModified` when the service says the copy named by the
 * etag is still current (304, no body).
 */

/** A resource as a `fields` mask leaves it: the same shape, every field optional at any depth. */
export type Trimmed<T> = T extends readonly (infer Item)[]
  ? Trimmed<Item>[]
  : T extends object
    ? { [Key in keyof T]?: Trimmed<T[Key]> }
    : T;

/**
 * The answer of a call with the mask `Mask`: the selected properties of `T`, and no others,
 * down to the depth the mask names (Google's syntax: `a,b`, `a/b`, `a(b,c)`, `*`). A property
 * selected whole keeps its type and stays optional where `T` has it optional: the service
 * leaves out fields that are empty. A property selected only for what is inside it is optional
 * (`start` of `start/dateTime`), since the service leaves out a parent with nothing selected
 * in it. Inside an array the mask applies to every element. `Mask` of type `string` (known
 * only at run time), or one that does not parse, gives `Trimmed<T>`; the empty mask, `T`.
 */
export type Selected<T, Mask extends string> = string extends Mask
  ? Trimmed<T>
  : Mask extends ''
    ? T
    : ParsedMask<Mask> extends infer Paths extends string
      ? [Paths] extends [never]
        ? Trimmed<T>
        : Select<T, Paths>
      : never;

/*
 * The mask is read into the union of the paths it selects: `items(id,start/dateTime)` is
 * `'items/id' | 'items/start/dateTime'`, so that selections of the same parent merge by
 * themselves. Each step consumes a name or a punctuation mark (blanks around them are
 * allowed, as the service allows them); a mask that does not parse gives `never`.
 */
type Blank = ' ' | '\t' | '\n' | '\r';
type SkipBlanks<S extends string> = S extends `${Blank}${infer Rest}` ? SkipBlanks<Rest> : S;
/** The name at the start of `S` and what follows it: `[name, rest]`. */
type ReadName<S extends string, Name extends string = ''> = S extends `${infer C}${infer Rest}`
  ? C extends Blank | ',' | '/' | '(' | ')'
    ? [Name, SkipBlanks<S>]
    : ReadName<Rest, `${Name}${C}`>
  : [Name, S];
/** One selection (`a`, `a/b`, `a(b,c)`, `a/b(c)`): `[paths, rest]`, or never. */
type ParseSelection<S extends string> =
  ReadName<SkipBlanks<S>> extends [infer Name extends string, infer Rest extends string]
    ? Name extends ''
      ? never
      : Rest extends `/${infer Inner}`
        ? ParseSelection<Inner> extends [infer Paths extends string, infer After extends string]
          ? [`${Name}/${Paths}`, After]
          : never
        : Rest extends `(${infer Inner}`
          ? ParseList<Inner> extends [infer Paths extends string, `)${infer After}`]
            ? [`${Name}/${Paths}`, SkipBlanks<After>]
            : never
          : [Name, Rest]
    : never;
/** Selections separated by commas, up to a `)` or the end: `[paths, rest]`, or never. */
type ParseList<S extends string, Paths extends string = never> =
  ParseSelection<S> extends [infer More extends string, infer Rest extends string]
    ? Rest extends `,${infer After}`
      ? ParseList<After, Paths | More>
      : [Paths | More, Rest]
    : never;
/** The paths a whole mask selects, or never when it does not parse. */
type ParsedMask<Mask extends string> =
  ParseList<Mask> extends [infer Paths extends string, ''] ? Paths : never;

/** The first name of every path: what is selected at this level. */
type Heads<Paths extends string> = Paths extends `${infer Head}/${string}` ? Head : Paths;
/** The paths inside `Key`: those under it, and those under `*`. */
type Inside<Paths extends string, Key extends string> = Paths extends `${infer Head}/${infer Rest}`
  ? Head extends Key | '*'
    ? Rest
    : never
  : never;
/** `T` with the selections `Paths`; arrays element by element. */
type Select<T, Paths extends string> = T extends readonly (infer Item)[]
  ? Select<Item, Paths>[]
  : T extends object
    ? '*' extends Paths
      ? T
      : Level<T, Paths, keyof T & Paths, Heads<Paths>>
    : T;
/**
 * One object: `Whole` selected whole (as `T` has them; optional in a map such as
 * `extendedProperties/private`, which may lack the key), the other heads for what is inside them.
 */
type Level<T, Paths extends string, Whole extends keyof T, Head extends string> = Flat<
  (string extends keyof T ? Partial<Pick<T, Whole>> : Pick<T, Whole>) & {
    [Key in Exclude<'*' extends Head ? keyof T : keyof T & Head, Whole>]?: Select<
      T[Key],
      Inside<Paths, Key & string>
    >;
  }
>;
/** One object type, which editors show with its members rather than as an intersection. */
type Flat<T> = { [Key in keyof T]: T[Key] } & {};

/** The answer of a read whose `ifNoneMatch` named the current version: keep the copy you hold. */
export interface NotModified {
  readonly notModified: true;
  /** The current etag: the service's `ETag` header, else the tag the request sent. */
  readonly etag: string;
}

/** Whether an answer is `NotModified` rather than a resource. */
export function isNotModified(answer: unknown): answer is NotModified {
  return (
    typeof answer === 'object' &&
    answer !== null &&
    (answer as { notModified?: unknown }).notModified === true &&
    Object.keys(answer).length === 2
  );
}

/** The `NotModified` of a 304, from its headers and the tag sent. */
export function notModified(etagHeader: string | null, sent: string): NotModified {
  return Object.freeze({ notModified: true as const, etag: etagHeader ?? sent });
}

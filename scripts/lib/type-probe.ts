/**
 * What a user's compiler and editor say about a program, for the type tests of the clients:
 * the errors `tsc` would print, the deprecations an editor strikes through, the completions
 * it offers at a place, and the hover there. One TypeScript language service per package,
 * with the package's own tsconfig.json; each program is a file of its own in the package's
 * test folder (not written to disk), so `@gspec/<package>` resolves as in the package's tests.
 */
import path from 'node:path';
import ts from 'typescript';

/** Where a probe asks for completions or a hover: the place of this marker in the code. */
export const HERE = '/*here*/';

export interface Completion {
  name: string;
  /** `deprecated` among them when the editor strikes the name through. */
  kindModifiers: string;
}

export interface TypeProbe {
  /** The errors of the program, each as tsc prints its message (chains joined by newlines). */
  errors(code: string): string[];
  /** The same with the line (from 1) each error is on, for a program that checks many things. */
  errorsByLine(code: string): { line: number; message: string }[];
  /** The names the program uses that are marked `@deprecated`, as the editor reports them. */
  deprecations(code: string): string[];
  /** The completions at {@link HERE}. */
  completions(code: string): Completion[];
  /** The documentation of one completion at {@link HERE}. */
  completionDoc(code: string, name: string): string;
  /** The hover at {@link HERE}: its text and its documentation. */
  hover(code: string): { text: string; documentation: string };
}

export function createTypeProbe(packageDir: string): TypeProbe {
  const configFile = path.join(packageDir, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, packageDir, undefined, configFile);
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
  let count = 0;
  const files = new Map<string, { text: string; version: number }>();
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: (file) => String(files.get(file)?.version ?? 0),
    getScriptSnapshot: (file) => {
      const own = files.get(file);
      if (own) return ts.ScriptSnapshot.fromString(own.text);
      const text = ts.sys.readFile(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => packageDir,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (file) => files.has(file) || ts.sys.fileExists(file),
    readFile: (file) => files.get(file)?.text ?? ts.sys.readFile(file),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());

  /** The code as a new file of its own; only that file is in the program, besides what it imports. */
  const place = (code: string) => {
    files.clear();
    const file = path.join(packageDir, 'test', `__probe_${++count}__.ts`);
    const at = code.indexOf(HERE);
    files.set(file, { text: code.replace(HERE, ''), version: count });
    return { file, at };
  };
  const message = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');

  return {
    errors(code) {
      return this.errorsByLine(code).map((e) => e.message);
    },
    errorsByLine(code) {
      const { file } = place(code);
      const text = files.get(file)?.text ?? '';
      return [...service.getSyntacticDiagnostics(file), ...service.getSemanticDiagnostics(file)].map((d) => ({
        line: text.slice(0, d.start ?? 0).split('\n').length,
        message: message(d),
      }));
    },
    deprecations(code) {
      const { file } = place(code);
      const text = files.get(file)?.text ?? '';
      return service
        .getSuggestionDiagnostics(file)
        .filter((d) => d.reportsDeprecated)
        .map((d) => text.slice(d.start, (d.start ?? 0) + (d.length ?? 0)));
    },
    completions(code) {
      const { file, at } = place(code);
      if (at < 0) throw new Error(`no ${HERE} marker in the probe`);
      const found = service.getCompletionsAtPosition(file, at, {});
      return (found?.entries ?? []).map(({ name, kindModifiers }) => ({
        name,
        kindModifiers: kindModifiers ?? '',
      }));
    },
    completionDoc(code, name) {
      const { file, at } = place(code);
      if (at < 0) throw new Error(`no ${HERE} marker in the probe`);
      const details = service.getCompletionEntryDetails(file, at, name, {}, undefined, {}, undefined);
      return ts.displayPartsToString(details?.documentation ?? []);
    },
    hover(code) {
      const { file, at } = place(code);
      if (at < 0) throw new Error(`no ${HERE} marker in the probe`);
      const info = service.getQuickInfoAtPosition(file, at);
      return {
        text: ts.displayPartsToString(info?.displayParts ?? []),
        documentation: ts.displayPartsToString(info?.documentation ?? []),
      };
    },
  };
}

/** One check of {@link argumentChecks}: an operation, and the member left out (none: the whole argument passed). */
export interface ArgumentCheck {
  operationId: string;
  /** The required member left out; undefined for the call with the whole argument. */
  without?: string;
  /** Where `without` is required: the argument (`ArgsOf`), or only the body type (`BodyOf`, decision 0060). */
  of?: 'ArgsOf' | 'BodyOf';
  /** The errors on that check's line. */
  errors: string[];
}

/**
 * For every operation of a client, checked in one program: its method called with a value of
 * its argument type (`ArgsOf<'events.insert'>`, which must compile), and, for each member the
 * operation requires (`required`), that type without the member assigned to the whole (which
 * must not, with an error naming the member).
 */
export function argumentChecks(
  probe: TypeProbe,
  client: { module: string; create: string },
  required: { operationId: string; members: string[]; bodyMembers?: string[] }[],
): ArgumentCheck[] {
  const lines = [
    `import { type ArgsOf, type BodyOf, ${client.create} } from '${client.module}';`,
    `const client = ${client.create}({ accessToken: 't' });`,
    'export async function run(): Promise<void> {',
  ];
  const checks: (Omit<ArgumentCheck, 'errors'> & { line: number })[] = [];
  for (const { operationId, members, bodyMembers = [] } of required) {
    const q = JSON.stringify(operationId);
    checks.push({ operationId, line: lines.length + 1 });
    lines.push(`  { const args = {} as ArgsOf<${q}>; await client.${operationId}(args); }`);
    const each = [
      ...members.filter((m) => !bodyMembers.includes(m)).map((m) => [m, 'ArgsOf'] as const),
      ...bodyMembers.map((m) => [m, 'BodyOf'] as const),
    ];
    for (const [member, of] of each) {
      checks.push({ operationId, without: member, of, line: lines.length + 1 });
      lines.push(
        `  { const part = {} as Omit<${of}<${q}>, ${JSON.stringify(member)}>; const whole: ${of}<${q}> = part; void whole; }`,
      );
    }
  }
  lines.push('}', '');
  const errors = probe.errorsByLine(lines.join('\n'));
  const unplaced = errors.filter((e) => !checks.some((c) => c.line === e.line));
  if (unplaced.length > 0)
    throw new Error(`the program of the checks has errors of its own: ${JSON.stringify(unplaced)}`);
  return checks.map(({ line, ...check }) => ({
    ...check,
    errors: errors.filter((e) => e.line === line).map((e) => e.message),
  }));
}

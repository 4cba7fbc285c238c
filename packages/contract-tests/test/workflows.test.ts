/**
 * The Arazzo workflows of `specs/workflows/` run by `redocly respect` against the emulator:
 * one test per workflow, each against an emulator of its own (the built `gspec-emulator` CLI
 * on a free port, fresh state), so that no workflow sees what another wrote (one of them
 * clears the primary calendar).
 *
 * Respect checks every step three ways besides the workflow's own `successCriteria`: the
 * status is one the OpenAPI description lists, the content type is one it describes, and the
 * body matches the schema. A test passes only when Respect reports the workflow and every
 * one of its steps passed, and ran every step the file declares.
 *
 * They run in the emulator pass of `npm test` (CONTRACT_TARGET=emulator) and are skipped in
 * the others: the mock keeps no state, and the live services are only written to by the
 * contract tests' own guarded cases. To run the workflows against any base URL by hand, see
 * specs/README.md ("Workflows").
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stopAll } from '@gspec/scripts/child-process';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorCli, startCli } from './support/global-setup.ts';
import { targetFromEnv } from './support/target.ts';

const require = createRequire(import.meta.url);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const specsDir = path.dirname(require.resolve('@gspec/specs/package.json'));
const workflowsDir = path.join(specsDir, 'workflows');
const reportsDir = path.join(packageDir, 'reports', 'respect');

/** The Redocly CLI the specs package depends on (its `respect` command). */
const redoclyCli = path.join(
  path.dirname(createRequire(path.join(specsDir, 'package.json')).resolve('@redocly/cli/package.json')),
  'bin',
  'cli.js',
);

interface DeclaredWorkflow {
  file: string;
  workflowId: string;
  steps: string[];
}

/**
 * The workflows each file declares, with their step ids, read from the YAML's fixed layout
 * (`  - workflowId: x` starts a workflow, `      - stepId: y` a step of it).
 */
function declaredWorkflows(): DeclaredWorkflow[] {
  const files = readdirSync(workflowsDir)
    .filter((name) => name.endsWith('.arazzo.yaml'))
    .sort();
  return files.flatMap((file) => {
    const text = readFileSync(path.join(workflowsDir, file), 'utf8');
    const found: DeclaredWorkflow[] = [];
    for (const line of text.split('\n')) {
      const workflow = /^ {2}- workflowId: (\S+)$/.exec(line);
      if (workflow) found.push({ file, workflowId: workflow[1] as string, steps: [] });
      const step = /^ {6}- stepId: (\S+)$/.exec(line);
      if (step) found.at(-1)?.steps.push(step[1] as string);
    }
    return found;
  });
}

interface RespectCheck {
  name: string;
  passed: boolean;
  message?: string;
  severity?: string;
}
interface RespectStep {
  stepId: string;
  status: string;
  request?: { method?: string; url?: string };
  response?: { statusCode?: number; body?: unknown };
  checks: RespectCheck[];
}
interface RespectWorkflow {
  workflowId: string;
  status: string;
  executedSteps: RespectStep[];
}
interface RespectReport {
  status: string;
  files: Record<string, { executedWorkflows: RespectWorkflow[] }>;
}

/** What went wrong in a workflow, step by step, for the assertion message. */
function failures(workflow: RespectWorkflow): string[] {
  return workflow.executedSteps
    .filter((step) => step.status !== 'success')
    .map((step) => {
      const failed = step.checks
        .filter((check) => !check.passed)
        .map((check) => `    ✗ ${check.name}: ${check.message ?? ''}`.trimEnd());
      const body = JSON.stringify(step.response?.body ?? null).slice(0, 600);
      return [
        `  step ${step.stepId}: ${step.request?.method?.toUpperCase() ?? '?'} ${step.request?.url ?? '?'} -> ${step.response?.statusCode ?? 'no answer'}`,
        ...failed,
        `    body: ${body}`,
      ].join('\n');
    });
}

/**
 * Runs one workflow with `redocly respect` against the servers of `origin` and resolves to
 * its JSON report. It takes as long as it takes (Respect's own limits are far above any
 * real run); a crash fails with what the CLI printed.
 */
async function respect(file: string, workflowId: string, origin: string): Promise<RespectReport> {
  mkdirSync(reportsDir, { recursive: true });
  const output = path.join(reportsDir, `${workflowId}.json`);
  rmSync(output, { force: true });
  const run = startProcess(
    `redocly respect ${file} -w ${workflowId}`,
    [
      redoclyCli,
      'respect',
      path.join(workflowsDir, file),
      '--workflow',
      workflowId,
      '--server',
      `calendar=${origin}/calendar/v3`,
      '--server',
      `searchads360=${origin}/doubleclicksearch/v2`,
      // The push notifications go to the emulator itself, which answers them at once (404).
      '--input',
      JSON.stringify({ address: `${origin}/__workflows/notifications` }),
      '--json-output',
      output,
    ],
    {
      cwd: specsDir,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      ready: () => '',
    },
  );
  await run.ready.catch(() => undefined);
  const code = await run.exited;
  let report: RespectReport;
  try {
    report = JSON.parse(readFileSync(output, 'utf8')) as RespectReport;
  } catch (error) {
    const { out, err } = run.output();
    throw new Error(
      `redocly respect exited with ${code} and wrote no report to ${output} (${(error as Error).message})\nstdout:\n${out}\nstderr:\n${err}`,
    );
  }
  return report;
}

const declared = declaredWorkflows();
const emulatorPass = targetFromEnv().kind === 'emulator';

afterAll(async () => {
  await stopAll();
});

describe('the Arazzo workflows of specs/workflows', () => {
  it('declares workflows, each with steps, under unique ids', () => {
    expect(declared.length).toBeGreaterThan(0);
    for (const workflow of declared) expect(workflow.steps.length, workflow.workflowId).toBeGreaterThan(0);
    const ids = declared.map((workflow) => workflow.workflowId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe.runIf(emulatorPass)('the Arazzo workflows against the emulator (redocly respect)', () => {
  it.each(declared.map((workflow) => [`${workflow.file} ${workflow.workflowId}`, workflow] as const))(
    '%s',
    async (_name, workflow) => {
      const emulator = await startCli('emulator', emulatorCli());
      let report: RespectReport;
      try {
        report = await respect(workflow.file, workflow.workflowId, emulator.origin);
      } finally {
        await emulator.stop();
      }
      const ran = Object.values(report.files).flatMap((file) => file.executedWorkflows);
      expect(
        ran.map((w) => w.workflowId),
        'Respect ran exactly this workflow',
      ).toEqual([workflow.workflowId]);
      const [result] = ran as [RespectWorkflow];
      const problems = failures(result);
      expect(problems, `${workflow.workflowId} failed:\n${problems.join('\n')}`).toEqual([]);
      expect(result.status).toBe('success');
      expect(report.status).toBe('success');
      expect(
        result.executedSteps.map((step) => step.stepId),
        'every declared step ran, in order',
      ).toEqual(workflow.steps);
      for (const step of result.executedSteps) {
        const names = new Set(step.checks.map((check) => check.name));
        // Respect's own checks against the OpenAPI description ran on every step: the status
        // always, the content type and the schema on every answer with a body (not a 204).
        const withBody = step.response?.statusCode !== 204;
        const expected = ['success criteria check', 'status code check'].concat(
          withBody ? ['content-type check', 'schema check'] : [],
        );
        for (const check of expected) expect(names.has(check), `${step.stepId} has a ${check}`).toBe(true);
        expect(
          step.checks.every((check) => check.passed),
          step.stepId,
        ).toBe(true);
      }
    },
  );
});

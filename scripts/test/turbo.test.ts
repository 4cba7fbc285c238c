import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../lib/apis.ts';
import { turboEnv } from '../turbo.ts';

describe('turbo for the project', () => {
  it('turns telemetry off for the project runs unless the caller chose', () => {
    expect(turboEnv({ PATH: '/bin' }, 'v24.21.0')).toEqual({
      PATH: '/bin',
      TURBO_TELEMETRY_DISABLED: '1',
      GSPEC_NODE_VERSION: 'v24.21.0',
    });
    expect(turboEnv({ TURBO_TELEMETRY_DISABLED: '0' }).TURBO_TELEMETRY_DISABLED).toBe('0');
  });

  it('keys every test task to the Node line that runs it, and no build (decision 0051)', () => {
    expect(turboEnv({}).GSPEC_NODE_VERSION).toBe(process.version);
    const config = JSON.parse(readFileSync(path.join(repoRoot, 'turbo.json'), 'utf8')) as {
      globalEnv?: string[];
      tasks: Record<string, { env?: string[] }>;
    };
    expect(config.tasks.test?.env).toContain('GSPEC_NODE_VERSION');
    expect(config.tasks['test:node-line']?.env).toContain('GSPEC_NODE_VERSION');
    // One build serves every line, as one published tarball serves every user's Node.
    expect(config.globalEnv ?? []).not.toContain('GSPEC_NODE_VERSION');
    expect(config.tasks.build?.env ?? []).not.toContain('GSPEC_NODE_VERSION');
  });

  it('is what every npm script that runs turbo goes through', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const bare = Object.entries(scripts).filter(([, command]) => /(^|&&\s*)(npx\s+)?turbo\s/.test(command));
    expect(bare, 'scripts that start turbo without scripts/turbo.ts').toEqual([]);
    expect(
      Object.values(scripts).filter((c) => c.includes('tsx scripts/turbo.ts run')).length,
    ).toBeGreaterThan(0);
  });
});

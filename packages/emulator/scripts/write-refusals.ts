/**
 * `npm run refusals`: writes docs/refusals.md, the table of every refusal the emulator can
 * answer (scripts/refusal-table.ts), from the registry the emulator's modules fill on import.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderTable, resolveEvidence, servedRefusals, tableFile } from './refusal-table.ts';

// Importing the emulator (every API module and the core) declares every entry.
await import('../src/emulator.ts');
const refusals = servedRefusals();
const problems = refusals.flatMap(({ entry }) =>
  entry.evidence.flatMap((e) => {
    const { problem } = resolveEvidence(entry.id, e);
    return problem ? [`${entry.id}: ${problem}`] : [];
  }),
);
writeFileSync(tableFile, renderTable(refusals));
console.log(`${path.relative(process.cwd(), tableFile)}: ${refusals.length} refusals`);
if (problems.length > 0) {
  console.error(`Evidence that does not resolve:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}

/**
 * Google's own Node client (`googleapis`) against a fresh emulator: all 44 operations of the two
 * specs, called the way an application calls them (the flow is test/support/googleapis-flow.ts).
 */
import { googleapisFlow } from './support/googleapis-flow.ts';
import { useEmulator } from './support/harness.ts';

googleapisFlow(useEmulator());

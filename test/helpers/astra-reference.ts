/**
 * The ASTRA-sim reference cases: traces, configurations and the times ASTRA-sim printed for them, vendored from
 * ../shared/astra-sim-reference (MIT; test/fixtures/NOTICE.md), and the MICRO'24 tutorial's MLP trace, which has no
 * published licence and stays in ../shared.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturePath, shared, vendored } from './shared.js';

export interface AstraCase {
  name: string;
  workload: string;
  system: string;
  network: string;
  memory?: string;
}
/** A case of cases.json: one rank's finish and exposed communication as ASTRA-sim printed them. */
export interface ReferenceCase extends AstraCase {
  expected: { rank: number; finish_ns: number; exposed_comm_ns: number };
}
/** A case of skew/cases.json: every rank's finish and exposed communication as ASTRA-sim printed them. */
export interface SkewCase extends AstraCase {
  expected: { ranks: Record<string, { finish_ns: number; exposed_comm_ns: number }> };
}

/** Path inside the vendored astra-sim-reference folder. */
export const astraRef = (...p: string[]): string => vendored('astra-sim-reference', ...p);

const casesOf = <T>(file: string): T[] => (JSON.parse(readFileSync(file, 'utf8')) as { cases: T[] }).cases;
/** The 34 cases of cases.json; their paths are relative to astraRef(). */
export const referenceCases: ReferenceCase[] = casesOf(astraRef('cases.json'));
/** The 12 cases of skew/cases.json; their paths are relative to astraRef('skew'). */
export const skewCases: SkewCase[] = casesOf(astraRef('skew', 'cases.json'));

/** A case's input files, its paths resolved against `base` (the folder of its cases.json). */
export function caseFiles(base: string, c: AstraCase) {
  return {
    trace: path.join(base, c.workload),
    system: path.join(base, c.system),
    network: path.join(base, c.network),
    memory: c.memory ? path.join(base, c.memory) : undefined,
  };
}

/** Every reference and skew case (46) with its input files. */
export function allCases(): { c: AstraCase; files: ReturnType<typeof caseFiles> }[] {
  return [
    ...referenceCases.map((c) => ({ c, files: caseFiles(astraRef(), c) })),
    ...skewCases.map((c) => ({ c, files: caseFiles(astraRef('skew'), c) })),
  ];
}

/** The MICRO'24 tutorial's MLP model-parallel trace prefix (32 ranks), in ../shared only. */
export const mlpModelParallel = (): string =>
  shared('traces', 'tutorials-micro2024', 'micro2024', 'astra-sim-demo', 'demo2', 'workload', 'MLP_ModelParallel');

/** ASTRA-sim's recorded stdout (congestion-unaware backend) for a case: test/fixtures/astra-sim/congestion-unaware. */
export const recordedLog = (name: string): string => fixturePath('astra-sim', 'congestion-unaware', name);

/**
 * The result-kind registry: for each `kind` of result record tracewatt writes as JSON, its title, the check of its
 * JSON (`tracewatt report` and `parseResults`), its HTML section (`tracewatt report`) and its text and CSV views
 * (the command line). The object is checked against {@link ResultKind}: a new kind added to `ReportResult`
 * (types.ts) that lacks an entry, or an entry that lacks one of these, does not compile.
 */
import type { AccuracyResult } from '../engines/calibrate/accuracy.js';
import type { PlanRecord } from '../engines/plan/types.js';
import type { ReplayResult } from '../engines/replay/types.js';
import type { LayerClockStudyRecord } from '../engines/studies/a30-layers-record.js';
import type { CaseStudyRecord, GpuClockSweepRecord, NetworkSweepRecord } from '../engines/studies/types.js';
import type { JsonObject, JsonShape } from '../formats/json-shape.js';
import { layerStudyRows, layerStudyText } from './a30-layers-text.js';
import { layerStudySection } from './a30-layers-html.js';
import { accuracyRows, accuracyText } from './text/accuracy.js';
import { caseStudySection } from './case-study-html.js';
import { caseStudyRows, caseStudyText } from './case-study-text.js';
import { HTML_PARTS } from './html-parts.js';
import { accuracySection, gpuSweepSection, networkSweepSection, planSection, replaySection } from './html-sections.js';
import { planFrontierRows, planText } from './plan-text.js';
import {
  checkAccuracy,
  checkCaseStudy,
  checkGpuClockSweep,
  checkLayerClockStudy,
  checkNetworkSweep,
  checkPlan,
  checkReplay,
} from './result-checks.js';
import type { TableOptions } from './tables.js';
import {
  gpuSweepRows,
  gpuSweepText,
  networkSweepRows,
  networkSweepText,
  replayRanks,
  replayText,
  type RowSet,
} from './text.js';
import type { ReportResult, ResultKind } from './types.js';

/** The whole record each kind's engine writes (the text and CSV views read it; the report reads part of it). */
interface EngineRecords {
  replay: ReplayResult;
  'gpu-clock-sweep': GpuClockSweepRecord;
  'network-sweep': NetworkSweepRecord;
  accuracy: AccuracyResult;
  'case-study': CaseStudyRecord;
  plan: PlanRecord;
  'layer-clock-study': LayerClockStudyRecord;
}

/** What tracewatt does with one kind of result record: `Report` is the part the report reads, `Engine` the whole. */
export interface ResultKindViews<Report, Engine> {
  /** The kind as the report's headings name it. */
  title: string;
  /** Checks the record's fields (after its kind, schema version and label) at `path`; throws FormatError. */
  check(c: JsonShape, record: JsonObject, path: string): void;
  /** The record's section of the HTML report. */
  html(record: Report): Promise<string>;
  /** The record as the command line prints it. */
  text(record: Engine, options?: TableOptions): string;
  /** The record's rows for --csv. */
  rows(record: Engine): RowSet;
}

type Registry = {
  [K in ResultKind]: ResultKindViews<Extract<ReportResult, { kind: K }>, EngineRecords[K]>;
};

export const RESULT_KIND_VIEWS = {
  replay: { title: 'Replay', check: checkReplay, html: replaySection, text: replayText, rows: replayRanks },
  'gpu-clock-sweep': {
    title: 'GPU clock sweep',
    check: checkGpuClockSweep,
    html: gpuSweepSection,
    text: gpuSweepText,
    rows: gpuSweepRows,
  },
  'network-sweep': {
    title: 'Network DVFS sweep',
    check: checkNetworkSweep,
    html: networkSweepSection,
    text: networkSweepText,
    rows: networkSweepRows,
  },
  accuracy: {
    title: 'Model accuracy',
    check: checkAccuracy,
    html: accuracySection,
    text: accuracyText,
    rows: accuracyRows,
  },
  'case-study': {
    title: 'Case study',
    check: checkCaseStudy,
    html: caseStudySection,
    text: caseStudyText,
    rows: caseStudyRows,
  },
  plan: { title: 'Clock plan', check: checkPlan, html: planSection, text: planText, rows: planFrontierRows },
  'layer-clock-study': {
    title: 'Layer clock study',
    check: checkLayerClockStudy,
    html: (r) => layerStudySection(r, HTML_PARTS),
    text: layerStudyText,
    rows: layerStudyRows,
  },
} satisfies Registry;

/** Every result kind, in the registry's order. */
export const RESULT_KINDS = Object.keys(RESULT_KIND_VIEWS) as ResultKind[];

/**
 * The views of a record's kind. (The registry's type ties each kind to its record; a lookup by a union kind cannot.)
 */
export function viewsOf(kind: ResultKind): ResultKindViews<ReportResult, unknown> {
  return RESULT_KIND_VIEWS[kind] as ResultKindViews<ReportResult, unknown>;
}

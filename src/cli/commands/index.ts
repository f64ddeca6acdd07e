/** The command table: every command of the CLI, in the order help and the README list them. */
import type { CommandSpec } from '../command.js';
import { accuracyCommand } from './accuracy.js';
import { annotateCommand } from './annotate.js';
import { calibrateCommand } from './calibrate.js';
import { caseStudyCommand } from './case-study.js';
import { convertCommand } from './convert.js';
import { energyCommand } from './energy.js';
import { exportAstraSimCommand } from './export.js';
import { fitNetworkCommand } from './fit.js';
import { generateLlmCommand } from './generate.js';
import { importPytorchCommand } from './import.js';
import { importKinetoCommand } from './import-kineto.js';
import { inspectCommand } from './inspect.js';
import { planCommand } from './plan.js';
import { predictCommand } from './predict.js';
import { replayCommand } from './replay.js';
import { reportCommand } from './report.js';
import { mergeCommand, sweepGpuCommand, sweepNetworkCommand } from './sweep.js';
import { validateCommand } from './validate.js';

export const COMMANDS: CommandSpec[] = [
  inspectCommand,
  validateCommand,
  convertCommand,
  importPytorchCommand,
  importKinetoCommand,
  fitNetworkCommand,
  calibrateCommand,
  predictCommand,
  accuracyCommand,
  annotateCommand,
  replayCommand,
  exportAstraSimCommand,
  energyCommand,
  generateLlmCommand,
  reportCommand,
  sweepNetworkCommand,
  sweepGpuCommand,
  mergeCommand,
  caseStudyCommand,
  planCommand,
];

/** The command table: every command of the CLI, in the order help and the README list them. */
import type { CommandSpec } from '../command.js';
import { accuracyCommand } from './accuracy.js';
import { calibrateCommand } from './calibrate.js';
import { convertCommand } from './convert.js';
import { generateLlmCommand } from './generate.js';
import { inspectCommand } from './inspect.js';
import { predictCommand } from './predict.js';
import { replayCommand } from './replay.js';
import { reportCommand } from './report.js';
import { validateCommand } from './validate.js';

export const COMMANDS: CommandSpec[] = [
  inspectCommand, validateCommand, convertCommand,
  calibrateCommand, predictCommand, accuracyCommand,
  replayCommand, generateLlmCommand, reportCommand,
];

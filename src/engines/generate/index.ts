export * from './plan.js';
export * from './schedule.js';
export * from './stage.js';
export * from './network.js';
export * from './llm.js';
export * from './calibrated-time.js';
export * from './generate-llm.js';

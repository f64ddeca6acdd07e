export * from './types.js';
export {
  parseNetworkConfig,
  loadNetworkConfig,
  parseSystemConfig,
  loadSystemConfig,
  checkSystemAgainstNetwork,
  parseRemoteMemoryConfig,
  loadRemoteMemoryConfig,
  parseCommGroupConfig,
  loadCommGroupConfig,
  parsePowerConfig,
  loadPowerConfig,
  IMPL_KEYS,
} from './parse.js';
export { networkYamlText } from './network-yaml.js';
export { NO_NETWORK, oneNpuNetwork, defaultSystem } from './defaults.js';
export {
  parseAstraSimLog,
  loadAstraSimLog,
  ranksOfLog,
  fingerprintLine,
  FINGERPRINT_DIGITS,
  type AstraSimLog,
  type AstraRankLog,
  type AstraRankStats,
  type ExportFingerprint,
} from './log.js';

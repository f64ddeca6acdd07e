export * from './types.js';
export {
  parseNetworkConfig, loadNetworkConfig, parseSystemConfig, loadSystemConfig, checkSystemAgainstNetwork,
  parseRemoteMemoryConfig, loadRemoteMemoryConfig, parseCommGroupConfig, loadCommGroupConfig,
  parsePowerConfig, loadPowerConfig,
} from './parse.js';
export { networkYamlText } from './network-yaml.js';
export { parseAstraSimLog, loadAstraSimLog, ranksOfLog, type AstraSimLog, type AstraRankLog, type AstraRankStats } from './log.js';

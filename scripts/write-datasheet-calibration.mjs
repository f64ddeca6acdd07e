// Writes a datasheet-default calibration (src/model/datasheet-calibration.ts: datasheet facts, the default V–f
// shape and power-cap rule; nothing fitted) for one device of src/model/datasheets.ts (run after `npm run build`):
//   node scripts/write-datasheet-calibration.mjs A30 calibration/a30-datasheet.json
import { datasheetCalibration } from '../dist/model/datasheet-calibration.js';
import { saveCalibration } from '../dist/model/calibration.js';

const [device, out] = process.argv.slice(2);
if (!device || !out) {
  console.error('usage: node scripts/write-datasheet-calibration.mjs DEVICE OUT.json');
  process.exit(2);
}
const cal = datasheetCalibration(device);
await saveCalibration(out, cal);
console.log(`wrote ${out}: ${cal.device.name} (${cal.provenance.command})`);

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { FormatError } from '../../src/errors.js';
import { readProfile } from '../../src/formats/profiles/index.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'csv-record-'));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('the shared CSV record loop of the one-header profile readers', () => {
  it('counts a blank row and reads the rows around it (perseus, zeus, accelwattch, nv-dvfs)', async () => {
    const cases = [
      {
        format: 'perseus',
        text: 'stage,instruction,frequency,time,energy\n0,forward,1410,0.5,100\n,,,,\n0,backward,1410,1,250\n',
      },
      {
        format: 'zeus',
        text: 'dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power\nc,r,8,adam,250,10,200\n,,,,,,\nc,r,8,adam,200,12,170\n',
      },
      { format: 'accelwattch', text: ',mean HW_power,st_dev,var,#samples\nk_1,120.5,1.5,2.25,40\n,,,,\nk_2,99,,,\n' },
      {
        format: 'nv-dvfs-benchmark',
        text: 'SMACT,average_power,benchmark,core_frequency,kernel,time\n0.5,100,b,1000,k1,2\n,,,,,\n0.25,90,b,900,k1,3\n',
      },
    ] as const;
    for (const c of cases) {
      const diagnostics = new Diagnostics();
      const t = await readProfile(write(`${c.format}.csv`, c.text), { format: c.format, diagnostics });
      expect(
        t.samples.map((s) => s.source.row),
        c.format,
      ).toEqual([2, 4]);
      expect(diagnostics.count('blank-row'), c.format).toBe(1);
    }
  });

  it('an empty file is a FormatError naming it', async () => {
    const file = write('empty.csv', '');
    await expect(readProfile(file, { format: 'perseus' })).rejects.toThrow(FormatError);
    await expect(readProfile(file, { format: 'perseus' })).rejects.toThrow(/empty\.csv.*empty file \(no header\)/);
  });
});

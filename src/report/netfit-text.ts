/**
 * `fit network` as text: the fitted dimensions, and per collective kind the error of the modelled collective times
 * on the given and on the fitted network; the same tables go into the written network.yml as comments.
 */
import type { NetworkFitResult } from '../engines/netfit/index.js';
import { networkYamlText } from '../formats/astra/index.js';
import { fixed, formatTable, recordTable, significant, wrapText, type TableOptions } from './tables.js';
import type { RowSet } from './text.js';

const pct = fixed(1);
const us = significant(4);

export function networkFitDimensionRows(r: NetworkFitResult): RowSet {
  const bw = r.bandwidthUnit === 'astra-sim' ? 'GB/s as ASTRA-sim reads it' : 'GB/s';
  return recordTable(r.dims, [
    { header: 'dim', align: 'left', value: (d) => d.dim },
    { header: 'topology', value: (d) => d.topology },
    { header: 'NPUs', value: (d) => d.npus },
    { header: `given bandwidth (${bw})`, key: 'givenBandwidthGBps' },
    { header: `fitted bandwidth (${bw})`, key: 'fittedBandwidthGBps' },
    { header: 'given latency (ns)', value: (d) => d.givenLatencyNs },
    { header: 'fitted latency (ns)', value: (d) => d.fittedLatencyNs },
    { header: 'fitted', align: 'left', value: (d) => (d.fitted.length ? d.fitted.join(', ') : 'kept') },
  ]);
}

export function networkFitKindRows(r: NetworkFitResult): RowSet {
  return recordTable(r.byKind, [
    { header: 'collective', align: 'left', value: (k) => k.kind },
    { header: 'count', value: (k) => k.instances },
    {
      header: 'sizes (bytes)',
      key: 'sizesBytes',
      align: 'right',
      value: (k) => (k.minBytes === k.maxBytes ? String(k.minBytes) : `${k.minBytes}–${k.maxBytes}`),
    },
    { header: 'measured mean (µs)', key: 'measuredMeanUs', format: us },
    { header: 'given: mean error (%)', key: 'givenMeanErrorPct', format: pct, value: (k) => k.given.meanErrorPct },
    {
      header: 'fitted: modelled mean (µs)',
      key: 'fittedModelledMeanUs',
      format: us,
      value: (k) => k.fitted.modelledMeanUs,
    },
    { header: 'fitted: mean error (%)', key: 'fittedMeanErrorPct', format: pct, value: (k) => k.fitted.meanErrorPct },
    {
      header: 'fitted: mean |error| (%)',
      key: 'fittedMeanAbsErrorPct',
      format: pct,
      value: (k) => k.fitted.meanAbsErrorPct,
    },
    {
      header: 'fitted: max |error| (%)',
      key: 'fittedMaxAbsErrorPct',
      format: pct,
      value: (k) => k.fitted.maxAbsErrorPct,
    },
  ]);
}

/** What the figures mean, once, under the tables. */
function legend(r: NetworkFitResult): string[] {
  return [
    `measured: each collective's own time, the shortest NCCL kernel duration among its members (the member ` +
      `that reached it last waits for no one); ` +
      `modelled: the replay's collective model with every member arriving together, on ${r.system}'s algorithms; ` +
      `error: (modelled − measured) / measured. RMS error over all ${r.instances.length} collectives: ` +
      `${r.rmsErrorPct.given.toFixed(1)} % on the given network, ` +
      `${r.rmsErrorPct.fitted.toFixed(1)} % fitted.`,
  ];
}

export function networkFitText(r: NetworkFitResult, options: TableOptions = {}): string {
  const d = networkFitDimensionRows(r);
  const k = networkFitKindRows(r);
  return [
    wrapText(
      `${r.trace}: ${r.instances.length} measured collectives (${r.kernels} NCCL kernels on ${r.ranks} ranks), ` +
        `fitted to ${r.network} with ${r.system} ` +
        `(least squares on the relative error, ${r.iterations} Gauss–Newton step${r.iterations === 1 ? '' : 's'})`,
      options.width,
    ),
    '',
    formatTable(d.columns, d.rows, options),
    `${
      formatTable(k.columns, k.rows, options) +
      legend(r)
        .map((l) => wrapText(l, options.width, ''))
        .join('\n')
    }\n`,
    ...r.notes.map((n) => `${wrapText(`note: ${n}`, options.width)}\n`),
  ].join('\n');
}

/** The fitted network.yml: the fitted dimensions, with the fit and its error per collective kind as comments. */
export function networkFitYaml(r: NetworkFitResult): string {
  const wide = { width: Infinity };
  const k = networkFitKindRows(r);
  const dims = r.dims.map((d) => ({
    topology: d.topology as 'Switch',
    npus: d.npus,
    bandwidthGBps: d.fittedBandwidthGBps,
    latencyNs: d.fittedLatencyNs,
  }));
  return networkYamlText(dims, [
    `tracewatt fit network: ${r.network} fitted to the ${r.instances.length} measured collectives of ${r.trace}` +
      ` (${r.ranks} ranks) under ${r.system}`,
    ...r.dims.map(
      (d) =>
        `dimension ${d.dim}: bandwidth ${d.givenBandwidthGBps} -> ${d.fittedBandwidthGBps} GB/s` +
        `${r.bandwidthUnit === 'astra-sim' ? ' (read as GiB/s, as ASTRA-sim does)' : ' (plain GB/s)'}, ` +
        `latency ${d.givenLatencyNs} -> ${d.fittedLatencyNs} ns` +
        (d.fitted.length < 2
          ? ` (${['latency', 'bandwidth'].filter((w) => !d.fitted.includes(w as 'latency')).join(' and ')} kept)`
          : ''),
    ),
    'error of the modelled collective times per type:',
    formatTable(k.columns, k.rows, wide).trimEnd(),
    ...legend(r).map((l) => wrapText(l, 98, '')),
    ...r.notes.map((n) => wrapText(`note: ${n}`, 98, '')),
  ]);
}

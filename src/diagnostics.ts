/**
 * Odd-but-usable input is counted here instead of aborting: each diagnostic has a stable code,
 * a count, and the first few examples so reports can say exactly where to look.
 */
export interface DiagnosticSample {
  message: string;
  file?: string;
  nodeId?: bigint;
}

export interface DiagnosticSummary {
  code: string;
  count: number;
  samples: DiagnosticSample[];
}

export class Diagnostics {
  private readonly byCode = new Map<string, DiagnosticSummary>();
  /** Diagnostics added so far, all codes (a reader can tell whether a step added any). */
  added = 0;
  constructor(private readonly maxSamples = 5) {}

  add(code: string, sample: DiagnosticSample): void {
    this.added++;
    let entry = this.byCode.get(code);
    if (!entry) {
      entry = { code, count: 0, samples: [] };
      this.byCode.set(code, entry);
    }
    entry.count++;
    if (entry.samples.length < this.maxSamples) entry.samples.push(sample);
  }

  get size(): number {
    return this.byCode.size;
  }

  count(code: string): number {
    return this.byCode.get(code)?.count ?? 0;
  }

  summary(): DiagnosticSummary[] {
    return [...this.byCode.values()].sort((a, b) => a.code.localeCompare(b.code));
  }

  merge(other: Diagnostics): void {
    for (const s of other.summary()) {
      for (const sample of s.samples) this.add(s.code, sample);
      const entry = this.byCode.get(s.code)!;
      entry.count += s.count - s.samples.length;
    }
  }
}

/**
 * Kernel-name normalisation for matching trace nodes to profiled kernels. Profilers and traces spell one kernel
 * in several ways: mangled (`_Z9vectorAddPKfS0_Pfi`), demangled with templates and arguments
 * (`void at::native::vectorized_elementwise_kernel<4, …>(int, …)`), bare (`vectorAdd`), or with a converter suffix
 * (`aten::conv2d(0)`). Three keys are compared, most specific first: the exact name, the normalised qualified name
 * (demangled, templates / arguments / return type / anonymous namespaces removed), and the base name (last `::`
 * component of the normalised name).
 */

/** Itanium source names (and std:: abbreviations) of a mangled name's qualified name; null when not parseable. */
export function demangleName(mangled: string): string | null {
  if (!mangled.startsWith('_Z')) return null;
  const s = mangled;
  let p = 2;
  if (s[p] === 'L') p++; // internal linkage
  const parts: string[] = [];
  const readSource = (): boolean => {
    let len = 0;
    let digits = 0;
    while (p < s.length && s[p] >= '0' && s[p] <= '9') {
      len = len * 10 + (s.charCodeAt(p) - 48);
      p++;
      digits++;
    }
    if (digits === 0 || len === 0 || p + len > s.length) return false;
    parts.push(s.slice(p, p + len));
    p += len;
    return true;
  };
  const skipTemplateArgs = (): boolean => {
    // s[p] === 'I': skip to the matching 'E' (nested I/N/X/L…E groups, source names skipped by length).
    let depth = 0;
    while (p < s.length) {
      const c = s[p];
      if (c >= '0' && c <= '9') {
        let len = 0;
        while (p < s.length && s[p] >= '0' && s[p] <= '9') len = len * 10 + (s.charCodeAt(p++) - 48);
        p += len;
        continue;
      }
      if (c === 'L') {
        // Literal: L <type> <value> E, or L _Z <encoding> E.
        p++;
        if (s[p] === '_' && s[p + 1] === 'Z') {
          depth++;
          p += 2;
          continue;
        }
        while (p < s.length && s[p] !== 'E') p++;
        p++;
        continue;
      }
      if (c === 'I' || c === 'N' || c === 'X' || c === 'J') depth++;
      else if (c === 'E') {
        depth--;
        p++;
        if (depth === 0) return true;
        continue;
      }
      p++;
    }
    return false;
  };
  if (s[p] === 'N') {
    p++;
    while (p < s.length && 'rVKRO'.includes(s[p])) p++; // cv- and ref-qualifiers of member functions
    while (p < s.length && s[p] !== 'E') {
      const c = s[p];
      if (c >= '0' && c <= '9') {
        if (!readSource()) return null;
      } else if (c === 'I') {
        if (!skipTemplateArgs()) return null;
      } else if (c === 'S' && s[p + 1] === 't') {
        parts.push('std');
        p += 2;
      } else if (c === 'S') {
        // A substitution (S_, S<seq>_, Sa, Sb …): its text is not needed for a name key.
        p++;
        if ('absiod'.includes(s[p] ?? '')) p++;
        else {
          while (p < s.length && s[p] !== '_') p++;
          p++;
        }
      } else if (c === 'C' || c === 'D') {
        // Constructor / destructor: repeat the class name.
        parts.push(parts[parts.length - 1] ?? '');
        p += 2;
      } else if (c === 'U' && s[p + 1] === 't') {
        parts.push('{unnamed type}');
        while (p < s.length && s[p] !== '_') p++;
        p++;
      } else {
        return null;
      }
    }
    return parts.length ? parts.join('::') : null;
  }
  if (s[p] === 'S' && s[p + 1] === 't') {
    parts.push('std');
    p += 2;
  }
  if (!readSource()) return null;
  return parts.join('::');
}

const OPEN: Record<string, string> = { '(': ')', '<': '>', '[': ']', '{': '}' };
const CLOSERS = new Set([')', '>', ']', '}']);
const LEADING_WORDS = new Set([
  'void',
  'static',
  'inline',
  '__global__',
  '__device__',
  'extern',
  'const',
  'unsigned',
  'signed',
  'int',
  'long',
  'short',
  'char',
  'float',
  'double',
  'bool',
  'auto',
]);

/**
 * Normalised qualified name: demangled when mangled; bracketed groups (template arguments, argument lists,
 * `(anonymous namespace)`, lambdas, converter suffixes such as `(0)`) removed; leading return-type words dropped;
 * whitespace collapsed. `void at::native::(anonymous namespace)::k<float>(float*)` → `at::native::k`.
 */
export function normalizeKernelName(name: string): string {
  let s = name.trim();
  if (s.startsWith('_Z')) s = demangleName(s) ?? s;
  let out = '';
  const stack: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const close = OPEN[c];
    // '<' / '>' inside "operator<" or "->" are rare in kernel names; '-' before '>' is never a closer.
    if (close && !(c === '<' && s.startsWith('operator', i - 8))) {
      stack.push(close);
      continue;
    }
    if (CLOSERS.has(c) && !(c === '>' && s[i - 1] === '-')) {
      if (stack.length && stack[stack.length - 1] === c) {
        stack.pop();
        continue;
      }
      if (stack.length === 0) continue;
    }
    if (stack.length === 0) out += c;
  }
  out = out
    .replace(/\s*::\s*/g, '::')
    .replace(/(::)+/g, '::')
    .replace(/^::|::$/g, '');
  const words = out.split(/\s+/).filter(Boolean);
  while (words.length > 1 && LEADING_WORDS.has(words[0])) words.shift();
  return words.join(' ');
}

/** Last `::` component of a normalised name. */
export function baseKernelName(normalized: string): string {
  const i = normalized.lastIndexOf('::');
  return i >= 0 ? normalized.slice(i + 2) : normalized;
}

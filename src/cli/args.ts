import type { FlagSpec, FlagValues } from './types';

export type ParsedArgs = { ok: true; flags: FlagValues; positionals: string[] } | { ok: false; error: string };

/**
 * A small table-driven parser: `--flag`, `--flag value`, `--flag=value`, `--` ends flags. Unknown
 * flags, missing values and non-numbers are errors (returned, not thrown).
 */
export function parseArgs(argv: string[], specs: FlagSpec[]): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const flags: FlagValues = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      if (arg.startsWith('-') && arg !== '-') return { ok: false, error: `unknown option ${arg}` };
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) return { ok: false, error: `unknown option --${name}` };
    if (spec.type === 'boolean') {
      if (eq !== -1) return { ok: false, error: `--${name} takes no value` };
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) return { ok: false, error: `--${name} needs a value (${spec.placeholder ?? 'VALUE'})` };
      i++;
    }
    if (spec.type === 'number') {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) return { ok: false, error: `--${name} must be a number, got "${value}"` };
      flags[name] = n;
    } else {
      flags[name] = value;
    }
  }
  return { ok: true, flags, positionals };
}

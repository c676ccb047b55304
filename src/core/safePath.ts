import * as path from 'node:path';

/**
 * Resolves a path from a packet (agent-written, untrusted) against a root and refuses anything
 * that escapes it (`..`, absolute paths elsewhere). Returns the absolute path, or null when refused.
 */
export function resolveInside(root: string, candidate: string): string | null {
  if (!candidate || candidate.includes('\0')) return null;
  const abs = path.resolve(root, candidate);
  const rel = path.relative(root, abs);
  // `..cache/x` is a name inside; only `..` itself or `../…` leaves.
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null;
  return abs;
}

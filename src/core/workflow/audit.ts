import { promises as fs } from 'node:fs';
import { auditPacket, type Audit } from '../packet/audit';
import type { Packet } from '../packet/schema';
import { resolveInside } from '../safePath';

/** Which of `paths` (relative to `root`) are files or folders inside it. */
export async function existingPaths(root: string, paths: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  await Promise.all(
    paths.map(async (p) => {
      const abs = resolveInside(root, p);
      if (!abs) return;
      try {
        await fs.stat(abs);
        found.add(p);
      } catch {
        // missing or unreadable: not there for the next session either
      }
    }),
  );
  return found;
}

/**
 * The completeness audit of a written packet, with the checks that need the disk: whether its files
 * to read exist under `root` (the repository root, else the workspace folder) and, when given, its
 * freshness against the repository.
 */
export async function auditWithFiles(packet: Packet, root: string, freshness: { stale: boolean; reasons: string[] } | null): Promise<Audit> {
  const found = await existingPaths(root, packet.next_session_prereqs);
  return auditPacket(packet, { freshness, exists: (p) => found.has(p) });
}

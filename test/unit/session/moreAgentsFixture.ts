import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

/** The folder the shared more-agents stores were recorded in. */
export const RECORDED_CWD = '/home/dev/src/slugkit';

/**
 * One agent's recorded HOME from the shared more-agents fixtures, copied into a temporary home
 * (writable: the fixture's files are read-only). With `cwd`, the recorded folder is rewritten to it in
 * every text file and in folder names made from it (`rename`), so the store belongs to a real folder.
 */
export async function moreAgentsHome(agent: 'gemini' | 'qwen' | 'copilot', o: { cwd?: string; rename?: (name: string) => string } = {}): Promise<string> {
  const dir = await fs.realpath(await makeTempDir(`handoff-${agent}-home-`));
  await fs.cp(fixturePath('more-agents', agent, 'home'), dir, { recursive: true });
  const walk = async (p: string): Promise<void> => {
    const st = await fs.stat(p);
    await fs.chmod(p, st.isDirectory() ? 0o755 : 0o644);
    if (st.isDirectory()) {
      for (const n of await fs.readdir(p)) {
        const renamed = o.rename?.(n) ?? n;
        if (renamed !== n) await fs.rename(path.join(p, n), path.join(p, renamed));
        await walk(path.join(p, renamed));
      }
      return;
    }
    if (!o.cwd || /\.db(?:-wal|-shm)?$/.test(p)) return;
    const text = await fs.readFile(p, 'utf8');
    if (text.includes(RECORDED_CWD)) await fs.writeFile(p, text.replaceAll(RECORDED_CWD, o.cwd));
  };
  await walk(dir);
  return dir;
}

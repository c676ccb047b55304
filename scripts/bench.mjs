// `npm run bench`: runs every benchmark in scripts/bench/ in turn (each prints its own figures).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'bench');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.mjs') && f !== 'lib.mjs').sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench: ${f} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

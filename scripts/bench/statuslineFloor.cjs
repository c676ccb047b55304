// The floor a Node statusline can reach: start Node, read the last 64 KB of the transcript, parse the
// last line with usage, print one line. `npm run bench` (statusline.mjs) times `handoff statusline`
// against this, side by side on the same transcripts. Usage: node statuslineFloor.cjs <transcript>
'use strict';
const fs = require('node:fs');

const TAIL = 64 * 1024;
const file = process.argv[2];
const fd = fs.openSync(file, 'r');
const size = fs.fstatSync(fd).size;
const start = Math.max(0, size - TAIL);
const buf = Buffer.alloc(size - start);
fs.readSync(fd, buf, 0, buf.length, start);
fs.closeSync(fd);
const lines = buf.toString('utf8').split('\n');
let used = null;
for (let i = lines.length - 1; i >= 0 && used === null; i--) {
  const line = lines[i];
  if (!line || !line.includes('"usage"')) continue;
  try {
    const u = JSON.parse(line).message?.usage;
    if (u) used = (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  } catch {
    // a partial first line of the tail
  }
}
process.stdout.write(`ctx ${used === null ? '—' : `${Math.round((used / 200000) * 100)}%`}\n`);

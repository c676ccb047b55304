// The `handoff` executable. Claude Code runs `handoff statusline` after every message, so that command
// loads only its own small bundle; every other command loads the full command line.
import * as path from 'node:path';

const [name, ...rest] = process.argv.slice(2);
const statusline = name === 'statusline' && !rest.includes('--help') && !rest.includes('-h');
// A path chosen at run time: each bundle stays separate and only one is loaded.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(path.join(__dirname, statusline ? 'statusline.js' : 'handoff.js'));

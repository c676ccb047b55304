// The `handoff` executable. Claude Code runs `handoff statusline` after every message, so that command
// loads only its own small bundle (through V8's code cache); every other command loads the full command
// line.
import * as path from 'node:path';
import { requireWithCodeCache } from './codeCache';

const [name, ...rest] = process.argv.slice(2);
const statusline = name === 'statusline' && !rest.includes('--help') && !rest.includes('-h');
// A path chosen at run time: each bundle stays separate and only one is loaded.
if (statusline) requireWithCodeCache(path.join(__dirname, 'statusline.js'));
// `handoff hook` runs before every prompt and after every turn: its small bundle answers those itself.
else if (name === 'hook') requireWithCodeCache(path.join(__dirname, 'hook.js'));
// `handoff mcp` must answer `initialize` at once: its small bundle loads the work only at the first call.
else if (name === 'mcp' && !rest.includes('--help') && !rest.includes('-h')) requireWithCodeCache(path.join(__dirname, 'mcp.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
else require(path.join(__dirname, 'handoff.js'));

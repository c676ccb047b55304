// `handoff mcp` as agents start it: the MCP server from a small bundle (dist/mcp.js) that answers
// `initialize` and `tools/list` without loading the command line; the work behind the tools is loaded
// at the first call (mcp/mcpWork.ts). Bad flags go to the full command line, which says what is wrong.
import * as path from 'node:path';
import { parseArgs } from './args';
import { mcpCommand } from './commands/mcp';

const argv = process.argv.slice(2);
if (argv[0] === 'mcp') argv.shift();
const parsed = parseArgs(argv, mcpCommand.flags);

function full(): void {
  // A path chosen at run time: the full command line stays a bundle of its own.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(path.join(__dirname, 'handoff.js'));
}

if (!parsed.ok || parsed.positionals.length) full();
else {
  const io = { stdout: () => undefined, stderr: () => undefined, cwd: process.cwd(), env: process.env };
  // Refused before serving (no such folder, a bad --answer-within): the full command line says why, as for any command.
  mcpCommand.run({ flags: parsed.flags, positionals: [], io }).then(() => process.exit(0), full);
}

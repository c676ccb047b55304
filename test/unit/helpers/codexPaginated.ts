import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fixturePath } from './fixtures';

/** The codex-paginated fixture's expected.json, `__CWD__` replaced. */
export interface PaginatedExpected {
  thread_id: string;
  branch: string;
  requests: { text: string; line: number; file: string }[];
  reverted_requests: { text: string }[];
  commands: { command: string; call_id: string; exit_code: number; duration_ms: number; line: number; file: string }[];
  commands_in_reverted_turn: { call_id: string }[];
  edits: { files_absolute: string[] }[];
  edits_in_reverted_turn: { files: string[] }[];
  closing_message: { text: string; line: number };
  must_not_be_closing_message: string;
  files_head_first: { path: string }[];
  tokens_last_turn: { last_token_usage_total_tokens: number; model_context_window: number; codex_footer_pct_used: number };
}

/**
 * Writes the codex-paginated fixture for a real folder with its own script (its `history_base` byte
 * offsets count bytes, so the placeholder is never text-replaced) into `home`, and gives both pages.
 */
export async function writePaginated(cwd: string, home: string): Promise<{ page1: string; page2: string; expected: PaginatedExpected }> {
  execFileSync('python3', [fixturePath('transcripts', 'codex-paginated', 'make-codex-paginated.py'), '--cwd', cwd, '--out', home]);
  const raw = await fs.readFile(fixturePath('transcripts', 'codex-paginated', 'codex-paginated.expected.json'), 'utf8');
  const expected = JSON.parse(raw.split('__CWD__').join(cwd)) as PaginatedExpected;
  const at = (i: number) => path.join(home, expected.files_head_first[i]!.path.replace(/^codex-home\//, ''));
  return { page1: at(1), page2: at(0), expected };
}

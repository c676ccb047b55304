import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { openableSource } from '../../../src/core/packet/openSource';
import { buildTestPacket } from '../helpers/packetBuilder';

/** The panel opens a packet's source only when the packet names it and it is a workspace or agent session file. */
describe('which source of a packet the panel may open', () => {
  const root = path.resolve('/tmp/handoff-open');
  const folder = path.join(root, 'ws');
  const home = path.join(root, 'home', '.claude');
  const session = path.join(home, 'projects', '-ws', 's.jsonl');
  const dirs = { folder, workbenchDir: folder, agentHomes: [home], sessionFile: null };
  const attempt = buildTestPacket().failed_attempts[0]!;
  const p = buildTestPacket({
    failed_attempts: [
      { ...attempt, source: { file: session, line: 41 } },
      { ...attempt, index: 1, source: { file: 'feedback_record.jsonl', line: 2 } },
      { ...attempt, index: 2, source: { file: '/etc/shadow', line: 1 } },
      { ...attempt, index: 3, source: { file: path.join(root, 'elsewhere', 'x.jsonl'), line: 1 } },
      { ...attempt, index: 4, source: { file: '../outside.jsonl', line: 1 } },
    ],
  });

  it('opens an agent session file under an agent home, and a workbench file inside the folder', () => {
    assert.equal(openableSource(p, session, dirs), session);
    assert.equal(openableSource(p, 'feedback_record.jsonl', dirs), path.join(folder, 'feedback_record.jsonl'));
  });

  it('refuses a file the packet does not name, a non-session file outside the folder, a .jsonl elsewhere, and a way out', () => {
    assert.equal(openableSource(p, path.join(home, 'projects', '-ws', 'other.jsonl'), dirs), null, 'not named by the packet');
    assert.equal(openableSource(p, '/etc/shadow', dirs), null);
    assert.equal(openableSource(p, path.join(root, 'elsewhere', 'x.jsonl'), dirs), null);
    assert.equal(openableSource(p, '../outside.jsonl', dirs), null);
  });

  it('opens the folder state\'s own session file wherever it is', () => {
    const other = path.join(root, 'elsewhere', 'x.jsonl');
    assert.equal(openableSource(p, other, { ...dirs, sessionFile: other }), other);
  });

  it('opens a Cline / Roo Code task file the folder\'s state was read from, and no other task file', () => {
    const task = path.join(root, 'globalStorage', 'rooveterinaryinc.roo-cline', 'tasks', 't1', 'ui_messages.json');
    const rooPacket = buildTestPacket({ failed_attempts: [{ ...attempt, source: { file: task, line: 20 } }] });
    assert.equal(openableSource(rooPacket, task, { ...dirs, sessionFile: task }), task);
    assert.equal(openableSource(rooPacket, task, dirs), null, 'not the folder\'s session');
    assert.equal(openableSource(rooPacket, task, { ...dirs, sessionFile: path.join(path.dirname(task), 'other.json') }), null);
  });

  it('never opens Kilo Code\'s database as a text file, even as the folder\'s session (its "line" is a message number)', () => {
    const db = path.join(root, '.local', 'share', 'kilo', 'kilo.db');
    const kiloPacket = buildTestPacket({ failed_attempts: [{ ...attempt, source: { file: db, line: 2 } }] });
    assert.equal(openableSource(kiloPacket, db, { ...dirs, sessionFile: db }), null);
  });
});

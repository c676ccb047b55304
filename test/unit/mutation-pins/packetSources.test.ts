import * as assert from 'node:assert/strict';
import { describeSources, shortSessionId, sourceName } from '../../../src/core/packet/sources';
import { originKey, secretRisks } from '../../../src/core/packet/secretRisks';

describe('packet sources: where the facts came from, for people', () => {
  it('names an agent session by its agent and the first 8 characters of its id; other labels stay as they are', () => {
    const cases: [string, string][] = [
      ['claude:7f3e2a91-0c1d-4e5f', 'Claude Code session 7f3e2a91'],
      ['codex:0123456789abcdef', 'Codex session 01234567'],
      ['claude:ab', 'Claude Code session ab'],
      ['feedback_record.jsonl', 'feedback_record.jsonl'],
      // Only a label that is an agent session from its first character to its last.
      ['my claude:7f3e2a91', 'my claude:7f3e2a91'],
      ['claude:7f3e\nnotes.md', 'claude:7f3e\nnotes.md'],
      ['gemini:7f3e2a91', 'Gemini CLI session 7f3e2a91'],
      ['qwen:651e68fc-fced', 'Qwen Code session 651e68fc'],
      ['copilot-cli:f34d5de7-e445', 'Copilot CLI session f34d5de7'],
      ['aider:7f3e2a91', 'aider:7f3e2a91'],
    ];
    for (const [label, name] of cases) assert.equal(sourceName(label), name, label);
  });

  it('keeps the part of a time-ordered id that tells sessions apart: two Codex sessions of the same minute read differently', () => {
    // UUIDv7: the first 8 characters are the same for every session of about a minute.
    const a = '01a23a96-fea0-7272-86da-a28ca48f482f';
    const b = '01a23a97-3c11-7e02-9d11-0b3c5f0e9a10';
    const c = '01a23a96-ff02-7a01-8c00-5b1d2e3f4a5b';
    assert.equal(sourceName(`codex:${a}`), 'Codex session 01a23a96-fea0');
    assert.notEqual(shortSessionId(a), shortSessionId(c));
    assert.notEqual(shortSessionId(a), shortSessionId(b));
    // A UUIDv4 (random from its first character) stays at 8.
    assert.equal(shortSessionId('f34d5de7-e445-4f9f-9d7b-b5910ce70e6e'), 'f34d5de7');
    // OpenCode's ses_ ids start with 12 characters of time; a Cline task id is epoch milliseconds.
    assert.equal(shortSessionId('ses_dcc689e80ffenSdvr2OGWpBFDq'), 'ses_dcc689e80ffe');
    assert.notEqual(shortSessionId('ses_dcc689e80ffenSdvr2OGWpBFDq'), shortSessionId('ses_dcc689e7a012Qx7Yq1kLmNoPzR'));
    assert.equal(sourceName('cline:1764580000000'), 'Cline task 1764580000000');
  });

  it('groups the kinds of fact by origin, in words, agent sessions first, then where the next action came from', () => {
    assert.equal(
      describeSources({
        commands: 'feedback_record.jsonl',
        task_list: 'claude:7f3e2a91aaaa',
        changed_files: 'git + claude:7f3e2a91aaaa',
        decisions: 'claude:7f3e2a91aaaa',
        task: 'claude:7f3e2a91aaaa',
        next_action: 'task list',
      }),
      'From Claude Code session 7f3e2a91 (task list, changed files, declined commands, task); feedback_record.jsonl (commands); git (changed files); next action from the task list.',
    );
  });

  it('keeps the files in the order they came when no session is among them, and puts a session first wherever it stands', () => {
    assert.equal(
      describeSources({ commands: 'feedback_record.jsonl', changed_files: 'agent_state.json', unusual_kind_here: 'notes.md' }),
      'From feedback_record.jsonl (commands); agent_state.json (changed files); notes.md (unusual kind here).',
    );
    assert.equal(describeSources({ commands: 'codex:0123456789', changed_files: 'agent_state.json' }), 'From Codex session 01234567 (commands); agent_state.json (changed files).');
    assert.equal(describeSources({ commands: 'feedback_record.jsonl', changed_files: 'codex:0123456789' }), 'From Codex session 01234567 (changed files); feedback_record.jsonl (commands).');
    assert.equal(
      describeSources({ commands: 'feedback_record.jsonl', task_list: 'feature_list.json', changed_files: 'claude:7f3e2a91aaaa', decisions: 'agent_state.json' }),
      'From Claude Code session 7f3e2a91 (changed files); feedback_record.jsonl (commands); feature_list.json (task list); agent_state.json (declined commands).',
    );
  });

  it('reads each part of a combined label as an origin of its own, spaces around it aside', () => {
    assert.equal(describeSources({ changed_files: 'git +  claude:7f3e2a91aaaa ' }), 'From Claude Code session 7f3e2a91 (changed files); git (changed files).');
  });

  it('leaves out the session id and branch: they are facts about the session, not evidence', () => {
    assert.equal(describeSources({ session: 'agent_state.json', commands: 'feedback_record.jsonl' }), 'From feedback_record.jsonl (commands).');
    assert.equal(describeSources({ branch: 'agent_state.json', commands: 'feedback_record.jsonl' }), 'From feedback_record.jsonl (commands).');
    assert.equal(describeSources({ next_action: 'agent_state.json', commands: 'feedback_record.jsonl' }), 'From feedback_record.jsonl (commands); next action from agent_state.json.');
    assert.equal(describeSources({ session: 'agent_state.json', branch: 'agent_state.json', commands: 'feedback_record.jsonl' }), 'From feedback_record.jsonl (commands).');
  });

  it('names where the next action came from: the derived origins with "the", a file or session by its name', () => {
    const cases: [string, string][] = [
      ['task list', 'next action from the task list'],
      ['newest failure', 'next action from the newest failure'],
      ['latest request', 'next action from the latest request'],
      ['agent_state.json', 'next action from agent_state.json'],
      ['verification_report.json', 'next action from verification_report.json'],
      ['claude:7f3e2a91aaaa', 'next action from Claude Code session 7f3e2a91'],
    ];
    for (const [from, text] of cases) {
      assert.equal(describeSources({ commands: 'feedback_record.jsonl', next_action: from }), `From feedback_record.jsonl (commands); ${text}.`, from);
    }
  });

  it('with only the next action to tell, is one sentence about it; with nothing, is empty', () => {
    assert.equal(describeSources({ next_action: 'newest failure' }), 'Next action from the newest failure.');
    assert.equal(describeSources({ next_action: 'agent_state.json', session: 'claude:x', branch: 'agent_state.json' }), 'Next action from agent_state.json.');
    assert.equal(describeSources({ next_action: '' }), '');
    assert.equal(describeSources({}), '');
    assert.equal(describeSources({ session: 'claude:7f3e2a91' }), '');
  });
});

describe('a masked credential as a risk', () => {
  it('keys a finding by file and line, line 0 when the line is unknown', () => {
    assert.equal(originKey({ file: 'notes/.env', line: 12 }), 'notes/.env:12');
    assert.equal(originKey({ file: 'notes/.env', line: null }), 'notes/.env:0');
  });

  it('is one block risk per finding, for a human, naming the kind, file, line and what git knows of the line', () => {
    const risks = secretRisks(
      [
        { file: 'feedback_record.jsonl', line: 2, rule: 'stripe', label: 'a Stripe live key' },
        { file: 'agent_state.json', line: 4, rule: 'aws', label: 'an AWS access key' },
        { file: 'notes.md', line: 7, rule: 'gh', label: 'a GitHub token' },
        { file: 'setup.env', line: null, rule: 'pw', label: 'a password' },
      ],
      {
        'feedback_record.jsonl:2': { tracked: true, commit: '0123456789abcdef0123456789abcdef01234567' },
        'agent_state.json:4': { tracked: true, commit: null },
        'notes.md:7': { tracked: false, commit: null },
      },
    );
    assert.deepEqual(risks, [
      {
        id: 'leak:feedback_record.jsonl:2',
        severity: 'block',
        detail: 'A Stripe live key in feedback_record.jsonl line 2 (masked in this packet). Git tracks the file; the line is in history since commit 0123456789ab. Fix: rotate the credential now; remove it from the file and from git history (for example with git filter-repo) before pushing.',
        source: 'feedback_record.jsonl:2',
        owner: 'human',
      },
      {
        id: 'leak:agent_state.json:4',
        severity: 'block',
        detail: 'An AWS access key in agent_state.json line 4 (masked in this packet). Git tracks the file; this line is not committed yet. Fix: rotate the credential now; remove it from the file before committing.',
        source: 'agent_state.json:4',
        owner: 'human',
      },
      {
        id: 'leak:notes.md:7',
        severity: 'block',
        detail: 'A GitHub token in notes.md line 7 (masked in this packet). Git does not track the file. Fix: rotate the credential now; remove it from the file and keep the file out of commits.',
        source: 'notes.md:7',
        owner: 'human',
      },
      {
        id: 'leak:setup.env',
        severity: 'block',
        detail: 'A password in setup.env (masked in this packet). Fix: rotate the credential now; remove it from the file and, if it was ever committed, from git history before pushing.',
        source: 'setup.env',
        owner: 'human',
      },
    ]);
  });

  it('finds the history of a finding without a line under line 0, and knows nothing without origins', () => {
    const finding = { file: 'setup.env', line: null, rule: 'pw', label: 'a password' };
    assert.match(secretRisks([finding], { 'setup.env:0': { tracked: false, commit: null } })[0]!.detail, /Git does not track the file\./);
    assert.match(secretRisks([finding])[0]!.detail, /\(masked in this packet\)\. Fix: rotate/);
    assert.deepEqual(secretRisks([]), []);
  });
});

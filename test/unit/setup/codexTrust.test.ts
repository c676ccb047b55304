import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { codexEventLabel, codexHookHash, codexHookKey, codexHookTrust, codexTrustReport } from '../../../src/core/setup/codexTrust';

const CMD = '/opt/handoff/handoff hook';

describe('Codex hook trust (FORMATS L4: [hooks.state] trusted_hash)', () => {
  it('hashes the normalized hook as Codex does: reference values of sha256 over the compact key-sorted JSON, computed outside the product', () => {
    // {"event_name":"session_start","hooks":[{"async":false,"command":…,"statusMessage":"Loading handoff","timeout":10,"type":"command"}],"matcher":"startup|resume|clear|compact"}
    assert.equal(
      codexHookHash('SessionStart', 'startup|resume|clear|compact', { type: 'command', command: CMD, statusMessage: 'Loading handoff', timeout: 10 }),
      'sha256:2c5af6ed33426259ab934b6d20e86f9c183f2929d667e6451c4d4e60981ec764',
    );
    // Stop ignores its matcher: none is hashed, whatever the file says.
    const stop = 'sha256:99b498da809827eec2c366ff15a2fc8b3007f5aae2e262b92a763efd4a06ecca';
    assert.equal(codexHookHash('Stop', undefined, { type: 'command', command: CMD, timeout: 30 }), stop);
    assert.equal(codexHookHash('Stop', 'anything', { type: 'command', command: CMD, timeout: 30 }), stop);
    // SessionEnd's timeout is hashed as Codex clamps it (at most 3 s); a non-ASCII command as UTF-8.
    const end = 'sha256:174df994594d8efe97de871514ebc0eb7863f9fd710a3e732bd44fd38321022e';
    assert.equal(codexHookHash('SessionEnd', undefined, { type: 'command', command: '/opt/hånd/handoff hook', timeout: 30 }), end);
    assert.equal(codexHookHash('SessionEnd', undefined, { type: 'command', command: '/opt/hånd/handoff hook', timeout: 3 }), end);
  });

  it('the default timeout (600 s) is hashed when none is written; the command, the timeout or the matcher changed is another hash', () => {
    const base = codexHookHash('PreCompact', 'manual|auto', { type: 'command', command: CMD });
    assert.equal(base, codexHookHash('PreCompact', 'manual|auto', { type: 'command', command: CMD, timeout: 600 }));
    assert.notEqual(base, codexHookHash('PreCompact', 'manual|auto', { type: 'command', command: CMD, timeout: 30 }));
    assert.notEqual(base, codexHookHash('PreCompact', 'auto', { type: 'command', command: CMD }));
    assert.notEqual(base, codexHookHash('PreCompact', 'manual|auto', { type: 'command', command: `${CMD} --x` }));
    // On Windows the command Codex runs (and hashes) is commandWindows.
    const win = { type: 'command', command: CMD, commandWindows: 'C:\\h\\handoff.cmd hook', timeout: 30 };
    assert.equal(codexHookHash('Stop', undefined, win, 'win32'), codexHookHash('Stop', undefined, { type: 'command', command: 'C:\\h\\handoff.cmd hook', timeout: 30 }));
    assert.equal(codexHookHash('Stop', undefined, win, 'linux'), codexHookHash('Stop', undefined, { type: 'command', command: CMD, timeout: 30 }));
  });

  it('keys are "<hooks.json path>:<event label>:<group>:<handler>"; each of our hooks is trusted, modified, untrusted or disabled by config.toml', () => {
    assert.equal(codexEventLabel('UserPromptSubmit'), 'user_prompt_submit');
    const file = path.resolve('/home/u/.codex/hooks.json');
    const hooks = {
      hooks: {
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo theirs' }] }, { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: CMD, statusMessage: 'Loading handoff', timeout: 10 }] }],
        Stop: [{ hooks: [{ type: 'command', command: CMD, timeout: 30 }] }],
        PreCompact: [{ matcher: 'manual|auto', hooks: [{ type: 'command', command: CMD, timeout: 30 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: CMD, timeout: 5 }] }],
      },
    };
    const start = codexHookKey(file, 'SessionStart', 1, 0);
    assert.equal(start, `${file}:session_start:1:0`);
    const config = {
      hooks: {
        state: {
          [start]: { trusted_hash: codexHookHash('SessionStart', 'startup|resume|clear|compact', hooks.hooks.SessionStart[1]!.hooks[0]!), enabled: true },
          [codexHookKey(file, 'Stop', 0, 0)]: { trusted_hash: codexHookHash('Stop', undefined, { type: 'command', command: CMD, timeout: 60 }) },
          [codexHookKey(file, 'PreCompact', 0, 0)]: { enabled: false },
        },
      },
    };
    const statuses = codexHookTrust(file, hooks, config);
    assert.deepEqual(statuses.map((s) => [s.event, s.trust]), [['SessionStart', 'trusted'], ['Stop', 'modified'], ['PreCompact', 'disabled'], ['UserPromptSubmit', 'untrusted']]);
    assert.deepEqual(codexTrustReport(statuses, ['SessionStart', 'UserPromptSubmit', 'SessionEnd']), [
      'SessionStart: present, trusted (Codex runs it)',
      'UserPromptSubmit: present, not trusted yet: Codex does not run it until you approve it in /hooks',
      'SessionEnd: absent',
    ]);
  });
});

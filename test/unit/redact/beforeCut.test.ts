import * as assert from 'node:assert/strict';
import { findDebugPrints } from '../../../src/core/clean/codeSmells';
import { failedAttempts } from '../../../src/core/packet/commands';
import { fake, fragmentsIn } from './corpus';

/** A secret's label must not fall off when the text is cut to an excerpt: redaction sees the whole text first. */
describe('redaction happens before any cut to an excerpt', () => {
  it("a failure's output tail: the PEM header and the DB_PASSWORD key are far before the cut", () => {
    const body = fake(3, 64 * 8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
    const password = 'tail-pa55word-value';
    const stderr = `-----BEGIN RSA PRIVATE KEY-----\n${body.match(/.{64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----\nDB_PASSWORD=\n${'x'.repeat(10)}`;
    // The cut (the last 300 characters) falls right after `DB_PASSWORD=`: only the whole text shows the key.
    const dbLine = `connect failed: DB_PASSWORD=${password} ${'.'.repeat(300 - password.length - 1)}`;
    const [pem, db] = failedAttempts([
      { index: 0, record: { command: 'deploy', exit_code: 1, stderr_tail: stderr } },
      { index: 1, record: { command: 'migrate', exit_code: 1, stderr_tail: dbLine } },
    ]);
    assert.ok(pem && db);
    assert.deepEqual(fragmentsIn(pem.excerpt, body), [], pem.excerpt);
    assert.ok(pem.excerpt.length <= 302, 'still an excerpt');
    assert.deepEqual(fragmentsIn(db.excerpt, password), [], db.excerpt);
  });

  it('a debug print is redacted whole before the finding quotes its first 60 characters', () => {
    const token = ['ghp', fake(9, 36)].join('_');
    const [hit] = findDebugPrints([{ path: 'src/a.ts', line: 3, text: `  console.log("calling the API with the token", ${JSON.stringify(token)})` }], [/console\.log\(/]);
    assert.ok(hit);
    assert.ok(!hit.text.slice(0, 60).includes(token.slice(0, 8)), hit.text);
    assert.match(hit.text, /\[REDACTED\]/);
  });
});

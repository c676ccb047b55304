import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { workbenchFingerprint } from '../../../src/ui/state/fingerprint';
import { makeTempDir } from '../helpers/fixtures';

describe('workbench fingerprint (the fallback for lost watcher events)', () => {
  it('moves when a packet, an artifact or git HEAD changes, and only then', async () => {
    const dir = await makeTempDir();
    const dirs = { workbenchDir: dir, outputDir: path.join(dir, 'outputs/handoff'), gitDir: path.join(dir, '.git') };
    await fs.writeFile(path.join(dir, 'agent_state.json'), '{}');
    const first = await workbenchFingerprint(dirs);
    assert.equal(await workbenchFingerprint(dirs), first, 'stable while nothing changes');

    await fs.mkdir(dirs.outputDir, { recursive: true });
    await fs.writeFile(path.join(dirs.outputDir, 'clean_state.json'), '[]');
    assert.equal(await workbenchFingerprint(dirs), first, 'the clean-state report a refresh writes is not an input');
    await fs.mkdir(path.join(dirs.outputDir, 'sess-1'));
    await fs.writeFile(path.join(dirs.outputDir, 'sess-1', 'handoff.json'), '{}');
    const withPacket = await workbenchFingerprint(dirs);
    assert.notEqual(withPacket, first, 'a new packet');

    await fs.appendFile(path.join(dir, 'agent_state.json'), ' ');
    const edited = await workbenchFingerprint(dirs);
    assert.notEqual(edited, withPacket, 'an artifact edit');

    await fs.mkdir(dirs.gitDir, { recursive: true });
    await fs.writeFile(path.join(dirs.gitDir, 'HEAD'), 'ref: refs/heads/main\n');
    assert.notEqual(await workbenchFingerprint(dirs), edited, 'HEAD moved');
  });
});

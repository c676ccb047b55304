import assert from 'node:assert/strict';
import { Debouncer } from '../../../src/ui/state/debouncer';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('refresh debouncer', () => {
  it('coalesces a burst of triggers into one run', async () => {
    let runs = 0;
    const d = new Debouncer(20, async () => {
      runs++;
    });
    await Promise.all([d.trigger(), d.trigger(), d.trigger()]);
    assert.equal(runs, 1);
    d.dispose();
  });

  it('runs exactly once more when triggered during a run, and never two runs at once', async () => {
    let running = 0;
    let maxParallel = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const d = new Debouncer(0, async () => {
      running++;
      maxParallel = Math.max(maxParallel, running);
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
      running--;
    });
    const first = d.now();
    // The first run is under way (however long it took to start) before the next triggers.
    while (running === 0) await tick(1);
    const second = d.now();
    const third = d.now();
    release();
    await Promise.all([first, second, third]);
    assert.equal(runs, 2);
    assert.equal(maxParallel, 1);
    d.dispose();
  });

  it('resolves pending triggers on dispose instead of running', async () => {
    let runs = 0;
    const d = new Debouncer(50, async () => {
      runs++;
    });
    const p = d.trigger();
    d.dispose();
    await p;
    assert.equal(runs, 0);
  });
});

import assert from 'node:assert/strict';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { parseSettings } from '../../../src/ui/settings';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

describe('settings reader', () => {
  it('maps the sessionHandoff.* settings onto core options and UI settings', () => {
    const s = parseSettings(
      from({
        workbenchDir: 'work',
        outputDir: 'out/h',
        feedbackK: 9,
        'wrapUp.warnAt': 0.4,
        'wrapUp.urgeAt': 0.7,
        'context.sources': ['codex', 'codex'],
        'context.windowOverride': 1_000_000,
        'restartPrompt.firstTurn': 'Reply with a plan.',
      }),
    );
    assert.deepEqual(s.problems, []);
    assert.equal(s.options.workbenchDir, 'work');
    assert.equal(s.options.outputDir, 'out/h');
    assert.equal(s.options.feedbackK, 9);
    assert.equal(s.options.firstTurn, 'Reply with a plan.');
    assert.deepEqual(s.wrapUp, { enabled: true, warnAt: 0.4, urgeAt: 0.7 });
    assert.deepEqual(s.context.sources, ['codex']);
    assert.equal(s.context.windowOverride, 1_000_000);
  });

  it('replaces an out-of-bounds value by its default and says which setting', () => {
    const s = parseSettings(from({ feedbackK: 99, outputDir: 'x' }));
    assert.equal(s.options.feedbackK, DEFAULT_OPTIONS.feedbackK);
    assert.equal(s.options.outputDir, 'x');
    assert.equal(s.problems.length, 1);
    assert.match(s.problems[0] ?? '', /sessionHandoff\.feedbackK/);
  });

  it('refuses warnAt at or above urgeAt', () => {
    const s = parseSettings(from({ 'wrapUp.warnAt': 0.8, 'wrapUp.urgeAt': 0.6 }));
    assert.deepEqual([s.wrapUp.warnAt, s.wrapUp.urgeAt], [0.5, 0.75]);
    assert.match(s.problems.join(' '), /warnAt/);
  });

  it('skips a debug pattern that is not a regular expression, keeping the others', () => {
    const s = parseSettings(from({ 'clean.debugPatterns': ['console\\.log\\(', '(unclosed'] }));
    assert.deepEqual(s.options.debugPatterns, ['console\\.log\\(']);
    assert.match(s.problems.join(' '), /\(unclosed/);
  });

  it('keeps the workbench and output dirs inside the workspace folder, falling back to the defaults', () => {
    const folder = '/home/dev/project';
    const out = parseSettings(from({ workbenchDir: 'wb', outputDir: '../../../etc/handoff' }), folder);
    assert.equal(out.options.workbenchDir, 'wb');
    assert.equal(out.options.outputDir, DEFAULT_OPTIONS.outputDir);
    assert.deepEqual(out.problems, ['sessionHandoff.outputDir "../../../etc/handoff" leads outside the workspace folder; using the default.']);
    const wb = parseSettings(from({ workbenchDir: '/etc', outputDir: 'h' }), folder);
    assert.equal(wb.options.workbenchDir, DEFAULT_OPTIONS.workbenchDir);
    assert.equal(wb.options.outputDir, 'h');
    assert.match(wb.problems[0] ?? '', /workbenchDir "\/etc" leads outside/);
    // Absolute paths inside the folder are fine.
    assert.deepEqual(parseSettings(from({ workbenchDir: `${folder}/wb` }), folder).problems, []);
  });
});

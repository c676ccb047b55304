// Mocha's spec reporter plus one plain closing line, `<tier>: N passed, N failed`, that CI reads.
const Mocha = require('mocha');
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class PlainSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const tier = (options && options.reporterOptions && options.reporterOptions.tier) || process.env.TEST_TIER || 'tests';
    let passed = 0;
    let failed = 0;
    runner.on(EVENT_TEST_PASS, () => passed++);
    runner.on(EVENT_TEST_FAIL, () => failed++);
    runner.once(EVENT_RUN_END, () => {
      process.stdout.write(`\n${tier}: ${passed} passed, ${failed} failed\n`);
    });
  }
}
module.exports = PlainSummary;

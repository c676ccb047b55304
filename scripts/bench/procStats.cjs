// Preloaded (`node --require`) into each measured process: on exit, writes its peak RSS (bytes) and the
// CPU time of the whole process (µs, start-up included) as JSON to $HANDOFF_PROC_STATS.
'use strict';
process.on('exit', () => {
  const cpu = process.cpuUsage();
  const stats = { rss: process.resourceUsage().maxRSS * 1024, cpu: cpu.user + cpu.system };
  require('node:fs').writeFileSync(process.env.HANDOFF_PROC_STATS, JSON.stringify(stats));
});

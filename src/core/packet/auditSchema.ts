import { z } from 'zod';

/** The shape of a completeness audit: shared by the CLI's `--json`, the panel protocol and the core. */

export const PROBE_IDS = [
  'task',
  'next-action',
  'failure-causes',
  'uncertain-evidence',
  'rejected-approaches',
  'open-questions',
  'closing-words',
  'next-action-open',
  'read-first',
  'secrets',
  'fresh',
] as const;

export const ProbeSchema = z.object({
  id: z.enum(PROBE_IDS),
  title: z.string(),
  status: z.enum(['pass', 'fail', 'n/a']),
  /** What the probe saw (why it failed, or what passed). */
  detail: z.string(),
  /** How to make it pass. */
  fix: z.string(),
});
export type Probe = z.infer<typeof ProbeSchema>;

export const AuditSchema = z.object({
  passed: z.number().int(),
  applicable: z.number().int(),
  probes: z.array(ProbeSchema),
});
export type Audit = z.infer<typeof AuditSchema>;

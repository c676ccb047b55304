import { z } from 'zod';

/**
 * zod schemas for the five workbench artifacts (DESIGN §2). Lenient where real files vary; unknown
 * fields are kept (`passthrough`) so nothing an agent wrote is silently dropped.
 */

/** Free text or an object carrying the text under a common key. */
const textish = z.union([
  z.string(),
  z.object({ text: z.string().optional(), detail: z.string().optional(), description: z.string().optional() }).passthrough(),
]);

export const RiskInputSchema = z.union([
  z.string(),
  z
    .object({
      id: z.string().optional(),
      severity: z.string().optional(),
      detail: z.string().optional(),
      text: z.string().optional(),
      source: z.string().optional(),
      owner: z.string().optional(),
      verify: z.string().optional(),
    })
    .passthrough(),
]);

export const DecisionInputSchema = z.union([
  z.string(),
  z
    .object({
      decision: z.string().optional(),
      text: z.string().optional(),
      status: z.string().optional(),
      reason: z.string().optional(),
    })
    .passthrough(),
]);

export const AgentStateSchema = z
  .object({
    schema_version: z.number().optional(),
    active_task_id: z.string().nullable().optional(),
    session_id: z.string().optional(),
    branch: z.string().optional(),
    summary: z.string().optional(),
    touched_files: z.array(z.string()).default([]),
    assumptions: z.array(textish).default([]),
    blockers: z.array(textish).default([]),
    decisions: z.array(DecisionInputSchema).default([]),
    open_risks: z.array(RiskInputSchema).default([]),
    questions_for_human: z.array(textish).default([]),
    next_action: z.string().nullable().optional(),
    last_known_good_commit: z.string().nullable().optional(),
  })
  .passthrough();

export const FindingSchema = z
  .object({
    code: z.string().default(''),
    severity: z.string().default('warn'),
    detail: z.string().default(''),
  })
  .passthrough();

export const VerificationReportSchema = z
  .object({
    task_id: z.string().optional(),
    passed: z.boolean(),
    findings: z.array(FindingSchema).default([]),
  })
  .passthrough();

export const ReviewReportSchema = z
  .object({
    task_id: z.string().optional(),
    total: z.number().min(0).max(10),
    verdict: z.enum(['pass', 'soft_fail', 'hard_fail']),
    dimensions: z
      .array(z.object({ name: z.string(), score: z.number(), note: z.string().optional() }).passthrough())
      .default([]),
  })
  .passthrough();

export const FeedbackRecordSchema = z
  .object({
    command: z.union([z.string(), z.array(z.string())]),
    /** null (or absent) means the command timed out or never started: a failure, and an uncertain one. */
    exit_code: z.number().int().nullable().optional(),
    agent_note: z.string().nullable().optional(),
    started_at: z.union([z.number(), z.string()]).nullable().optional(),
    duration_ms: z.number().nullable().optional(),
    stdout_tail: z.string().nullable().optional(),
    stderr_tail: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
  })
  .passthrough();

export const FeatureSchema = z
  .object({
    id: z.string(),
    status: z.enum(['todo', 'in_progress', 'done', 'blocked']),
    goal: z.string().optional(),
    done_when: z.string().optional(),
  })
  .passthrough();

export const FeatureListSchema = z
  .object({
    active: z.string().nullable().optional(),
    features: z.array(FeatureSchema).default([]),
  })
  .passthrough();

export type AgentState = z.infer<typeof AgentStateSchema>;
export type VerificationReport = z.infer<typeof VerificationReportSchema>;
export type ReviewReport = z.infer<typeof ReviewReportSchema>;
export type FeedbackRecord = z.infer<typeof FeedbackRecordSchema>;
export type FeatureList = z.infer<typeof FeatureListSchema>;
export type Feature = z.infer<typeof FeatureSchema>;

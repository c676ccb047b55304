import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { DEFAULT_OPTIONS } from '../core/options';
import type { HandoffOptions } from '../core/options';
import type { ContextSource } from '../core/context/types';
import { uncontainedDir } from '../core/workflow/paths';

/** Settings of the UI beyond the core options, mirrored from `contributes.configuration`. */
export interface UiSettings {
  /** Options for the core (workbench dir, output dir, K, globs, patterns, first turn). */
  options: HandoffOptions;
  wrapUp: { enabled: boolean; warnAt: number; urgeAt: number };
  context: {
    sources: ContextSource[];
    claudeConfigDir: string;
    codexHome: string;
    windowOverride: number;
    /** Roo Code's custom storage folder (its `roo-cline.customStoragePath`), looked in as well; '' for none. */
    rooStoragePath: string;
    /** Zoo Code's custom storage folder (its `zoo-code.customStoragePath`), looked in as well; '' for none. */
    zooStoragePath: string;
    /** Kilo Code's database; '' for `$KILO_DB`, else `$XDG_DATA_HOME/kilo/kilo.db`, else `~/.local/share/kilo/kilo.db`. */
    kiloDatabase: string;
    /** The model Roo Code / Kilo Code use (they keep it in their settings, not in the task); '' for unknown. */
    rooModel: string;
  };
  /** One sentence per setting that was invalid and replaced by its default. */
  problems: string[];
}

// Each setting validated on its own, so one bad value falls back to its default and the rest still apply.
const fields = {
  workbenchDir: z.string().trim().min(1),
  outputDir: z.string().trim().min(1),
  feedbackK: z.number().int().min(1).max(30),
  'wrapUp.enabled': z.boolean(),
  'wrapUp.warnAt': z.number().gt(0).lt(1),
  'wrapUp.urgeAt': z.number().gt(0).lt(1),
  'context.sources': z.array(z.enum(['claude', 'codex', 'generic', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli'])),
  'context.claudeConfigDir': z.string(),
  'context.codexHome': z.string(),
  'context.windowOverride': z.number().int().min(0).max(10_000_000),
  'context.rooStoragePath': z.string(),
  'context.zooStoragePath': z.string(),
  'context.kiloDatabase': z.string(),
  'context.rooModel': z.string().max(200),
  'clean.tempGlobs': z.array(z.string().min(1)),
  'clean.debugPatterns': z.array(z.string().min(1)),
  'restartPrompt.firstTurn': z.string(),
} as const;
type Fields = typeof fields;
type Values = { [K in keyof Fields]: z.infer<Fields[K]> };

const DEFAULTS: Values = {
  workbenchDir: DEFAULT_OPTIONS.workbenchDir,
  outputDir: DEFAULT_OPTIONS.outputDir,
  feedbackK: DEFAULT_OPTIONS.feedbackK,
  'wrapUp.enabled': true,
  'wrapUp.warnAt': 0.5,
  'wrapUp.urgeAt': 0.75,
  'context.sources': ['claude', 'codex', 'generic', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli'],
  'context.claudeConfigDir': '',
  'context.codexHome': '',
  'context.windowOverride': 0,
  'context.rooStoragePath': '',
  'context.zooStoragePath': '',
  'context.kiloDatabase': '',
  'context.rooModel': '',
  'clean.tempGlobs': DEFAULT_OPTIONS.tempGlobs,
  'clean.debugPatterns': DEFAULT_OPTIONS.debugPatterns,
  'restartPrompt.firstTurn': DEFAULT_OPTIONS.firstTurn,
};

/**
 * Validates raw setting values (as `getConfiguration('sessionHandoff').get(key)` returns them) into
 * typed settings. Pure apart from its input, so it is unit-testable without a workbench. With the
 * workspace `folder`, a workbench or output dir leading outside it is replaced by the default.
 */
export function parseSettings(get: (key: string) => unknown, folder?: string): UiSettings {
  const problems: string[] = [];
  const v = {} as Record<string, unknown>;
  for (const key of Object.keys(fields) as (keyof Fields)[]) {
    const raw = get(key);
    const parsed = raw === undefined ? null : fields[key].safeParse(raw);
    if (parsed && !parsed.success) problems.push(`sessionHandoff.${key} is invalid (${parsed.error.issues[0]?.message ?? 'bad value'}); using the default.`);
    v[key] = parsed?.success ? parsed.data : DEFAULTS[key];
  }
  const s = v as Values;
  let { 'wrapUp.warnAt': warnAt, 'wrapUp.urgeAt': urgeAt } = s;
  if (warnAt >= urgeAt) {
    problems.push(`sessionHandoff.wrapUp.warnAt (${warnAt}) must be below wrapUp.urgeAt (${urgeAt}); using 0.5 and 0.75.`);
    warnAt = 0.5;
    urgeAt = 0.75;
  }
  let { workbenchDir, outputDir } = s;
  if (folder !== undefined) {
    const outside = uncontainedDir(folder, { workbenchDir, outputDir });
    if (outside) {
      problems.push(`sessionHandoff.${outside.setting} "${outside.value}" leads outside the workspace folder; using the default.`);
      if (outside.setting === 'workbenchDir') workbenchDir = DEFAULTS.workbenchDir;
      if (uncontainedDir(folder, { workbenchDir, outputDir })) outputDir = DEFAULTS.outputDir;
    }
  }
  for (const p of s['clean.debugPatterns']) {
    try {
      new RegExp(p);
    } catch {
      problems.push(`sessionHandoff.clean.debugPatterns: "${p}" is not a valid regular expression and is skipped.`);
    }
  }
  return {
    options: {
      ...DEFAULT_OPTIONS,
      workbenchDir,
      outputDir,
      feedbackK: s.feedbackK,
      tempGlobs: s['clean.tempGlobs'],
      debugPatterns: s['clean.debugPatterns'].filter(isRegExp),
      firstTurn: s['restartPrompt.firstTurn'],
    },
    wrapUp: { enabled: s['wrapUp.enabled'], warnAt, urgeAt },
    context: {
      sources: [...new Set(s['context.sources'])],
      claudeConfigDir: agentFolder(s['context.claudeConfigDir']),
      codexHome: agentFolder(s['context.codexHome']),
      windowOverride: s['context.windowOverride'],
      rooStoragePath: s['context.rooStoragePath'].trim(),
      zooStoragePath: s['context.zooStoragePath'].trim(),
      kiloDatabase: agentFolder(s['context.kiloDatabase']),
      rooModel: s['context.rooModel'].trim(),
    },
    problems,
  };
}

/** An agent folder as typed: `~` or `~/…` is the home folder; empty stays empty (the default applies). */
export function agentFolder(value: string, home: string = os.homedir()): string {
  const v = value.trim();
  if (v === '~') return home;
  if (v.startsWith('~/') || v.startsWith(`~${path.sep}`)) return path.join(home, v.slice(2));
  return v;
}

function isRegExp(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

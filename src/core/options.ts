/**
 * Options shared by the CLI and the extension. The extension maps `sessionHandoff.*` settings onto
 * this; the CLI maps flags. Paths are relative to the workspace folder unless absolute.
 */
export interface HandoffOptions {
  /** The workbench dir, relative to the workspace folder (setting `sessionHandoff.workbenchDir`). */
  workbenchDir: string;
  /** The output dir, relative to the workbench dir (setting `sessionHandoff.outputDir`). */
  outputDir: string;
  /** Keep the last K feedback records (plus every failure). */
  feedbackK: number;
  /** Never more than this many records in the packet. */
  maxCommands: number;
  /** Globs of temporary artifacts that make a workbench dirty. */
  tempGlobs: string[];
  /** Regular expressions (source text) of debug prints looked for in the session's added lines. */
  debugPatterns: string[];
  /** Appended to the restart prompt: how the first reply should look. Empty for the default. */
  firstTurn: string;
}

export const DEFAULT_TEMP_GLOBS = [
  '**/*.tmp',
  '**/*.bak',
  '**/*.orig',
  '**/*.rej',
  '**/*.swp',
  '**/*~',
  '**/scratch/**',
  '**/tmp/**',
];

/** Debug prints for JS/TS, Python, Go, Rust, Java, Ruby. */
export const DEFAULT_DEBUG_PATTERNS = [
  String.raw`\bconsole\.(log|debug|trace)\s*\(`,
  String.raw`^\s*debugger\s*;?\s*(?:\/[/*].*)?$`,
  String.raw`(^|[^\w.])print\(`,
  String.raw`\bpdb\.set_trace\(|\bbreakpoint\(\)`,
  String.raw`\bfmt\.Print(ln|f)?\(`,
  String.raw`\bdbg!\(`,
  String.raw`\bSystem\.(out|err)\.print(ln)?\(`,
  String.raw`^\s*(binding\.pry|byebug)\b|^\s*pp\s`,
];

export const DEFAULT_OPTIONS: HandoffOptions = {
  workbenchDir: '.',
  outputDir: 'outputs/handoff',
  feedbackK: 5,
  maxCommands: 30,
  tempGlobs: DEFAULT_TEMP_GLOBS,
  debugPatterns: DEFAULT_DEBUG_PATTERNS,
  firstTurn: '',
};

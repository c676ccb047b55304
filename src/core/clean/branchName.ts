/**
 * Why a name is not a plain branch name by git's rules (`git check-ref-format --branch`), or null when
 * it is one. Branch names reach offered commands from agent-written files (agent_state.json `branch`,
 * a transcript's `gitBranch`): one that git would refuse, or that reads as an option, is never put
 * into a command. Stricter than git in one way: no invisible or bidi characters either.
 */
export function branchNameProblem(name: string): string | null {
  if (!name) return 'it is empty';
  if (name.startsWith('-')) return 'it starts with "-", so git would read it as an option';
  // C0, DEL, C1 and the characters that hide or reorder text (see controlChars).
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]/.test(name)) return 'it holds a control or invisible character';
  if (/[ ~^:?*[\\]/.test(name)) return 'it holds a space or one of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'it holds ".."';
  if (name.includes('@{')) return 'it holds "@{"';
  if (name === '@' || name === 'HEAD') return `"${name}" is not a branch`;
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'it has an empty path component';
  if (name.endsWith('.')) return 'it ends with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'a component starts with "."';
    if (part.endsWith('.lock')) return 'a component ends with ".lock"';
  }
  return null;
}

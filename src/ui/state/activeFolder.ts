/**
 * The folder the status bar shows: the active editor's folder; while an editor outside any folder
 * (or none) is active, the last one if it is still open; else the first folder.
 */
export function pickActiveFolder<F extends { uri: { toString(): string } }>(fromEditor: F | undefined, current: F | undefined, folders: readonly F[]): F | undefined {
  if (fromEditor) return fromEditor;
  if (current && folders.some((f) => f.uri.toString() === current.uri.toString())) return current;
  return folders[0];
}

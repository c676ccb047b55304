import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/fixtures';

/** Every .ts module under a folder. */
function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? modules(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The module a relative specifier names (`./x` → x.ts or x/index.ts), or null when it is not one of ours. */
function resolve(from: string, spec: string, known: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const c of [`${base}.ts`, path.join(base, 'index.ts')]) if (known.has(c)) return c;
  return null;
}

/**
 * What a module imports at run time: import and export declarations (not `import type`, nor one whose
 * every name is a type), `import(…)` and `require(…)` of a literal. Type-only imports are erased.
 */
export function runtimeImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause?.isTypeOnly ||
        (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) specs.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) specs.push((node.arguments[0] as ts.StringLiteral).text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

/** The first import cycle found in a graph (its modules in order, the first again at the end), or null. */
export function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const dfs = (m: string): string[] | null => {
    state.set(m, 'open');
    stack.push(m);
    for (const next of graph.get(m) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = dfs(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(m, 'done');
    return null;
  };
  for (const m of [...graph.keys()].sort()) {
    if (state.has(m)) continue;
    const found = dfs(m);
    if (found) return found;
  }
  return null;
}

describe('src/ has no import cycle', () => {
  it('finds a cycle where there is one, and none through type-only imports', () => {
    const a = runtimeImports('a.ts', "import { b } from './b';\nimport type { C } from './c';\nimport { type D } from './d';\nexport { e } from './e';\nconst f = () => import('./f');\n");
    assert.deepEqual(a, ['./b', './e', './f']);
    assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), ['a', 'b', 'c', 'a']);
    assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), null);
  });

  it('no module of src/ imports itself back, directly or through others', () => {
    const src = path.join(repoRoot(), 'src');
    const files = modules(src);
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, runtimeImports(f, readFileSync(f, 'utf8')).flatMap((s) => resolve(f, s, known) ?? [])]));
    assert.ok(graph.size > 100, 'the scan found the modules');
    const cycle = findCycle(graph);
    assert.equal(cycle, null, `an import cycle: ${cycle?.map((f) => path.relative(src, f)).join(' → ')}`);
  });
});

// The documentation's link check (a tier of `npm test`): every relative link and image in README.md and
// docs/**/*.md must name a file that exists, and every #anchor a heading (or an explicit id) of the page
// it points into, with GitHub's heading ids. External links (https:, mailto:) are not fetched.
// Usage: node scripts/check-links.mjs [root]   prints each broken link as file:line, then
// `docs: N passed, N failed` (N links); exits 1 when one is broken.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** GitHub's id for a heading's text: its rendered text lowercased, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading) {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The text GitHub renders for a heading's markdown: code spans keep their content, markup goes. */
function renderedText(markdown) {
  const text = markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, ''); // inline HTML
  // Outside code spans, * is always emphasis; _ only at a word's edge (snake_case stays as it is).
  return text.split(/(`+[^`]*`+)/).map((part, i) => (i % 2 === 1
    ? part.replace(/^`+|`+$/g, '').trim()
    : part.replace(/\*+/g, '').replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'))).join('').trim();
}

/** The lines of a markdown text outside fenced code blocks, as [1-based line number, text]. */
function proseLines(markdown) {
  const out = [];
  let fence = null;
  markdown.split(/\r?\n/).forEach((line, i) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null;
      return;
    }
    if (open) { fence = open[1]; return; }
    out.push([i + 1, line]);
  });
  return out;
}

/** Every anchor a page offers: its headings' GitHub ids (repeats get -1, -2, …) and explicit id/name attributes. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  const add = (slug) => {
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  };
  const lines = proseLines(markdown);
  lines.forEach(([num, line], i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) { add(githubSlug(atx[1] ?? '')); return; }
    const next = lines[i + 1];
    // A setext heading: a paragraph line underlined with === or --- (a table row is no paragraph).
    if (next && next[0] === num + 1 && /^ {0,3}(=+|-+)[ \t]*$/.test(next[1]) && line.trim() !== ''
      && !line.includes('|') && !/^ {0,3}([-*+]|\d+[.)])[ \t]/.test(line) && !/^ {0,3}#/.test(line)) {
      add(githubSlug(line.trim()));
    }
    for (const m of line.matchAll(/<[a-z][^>]*?\s(?:id|name)=["']([^"']+)["']/gi)) anchors.add(m[1]);
  });
  return anchors;
}

/** The links of a page outside code: [text](target), ![alt](target), [id]: target, and HTML src/href. */
export function linksOf(markdown) {
  const links = [];
  for (const [line, text] of proseLines(markdown)) {
    const prose = text.replace(/(`+)(?:(?!\1).)*?\1/g, (m) => ' '.repeat(m.length)); // code spans hold no links
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      links.push({ line, target: m[1].replace(/^<|>$/g, '') });
    }
    const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
    if (def) links.push({ line, target: def[1].replace(/^<|>$/g, '') });
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)=["']([^"']+)["']/gi)) links.push({ line, target: m[1] });
  }
  return links;
}

/**
 * Checks the links of `files` (paths relative to `root`). Returns how many relative links were checked
 * and the broken ones, each with its file, line, target and why.
 */
export function checkLinks(root, files) {
  const anchorCache = new Map();
  const anchors = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(fs.readFileSync(file, 'utf8')));
    return anchorCache.get(file);
  };
  const broken = [];
  let checked = 0;
  for (const rel of files) {
    const file = path.join(root, rel);
    for (const { line, target } of linksOf(fs.readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('//')) continue; // external
      checked++;
      const hash = target.indexOf('#');
      const pathPart = hash === -1 ? target : target.slice(0, hash);
      const fragment = hash === -1 ? null : target.slice(hash + 1);
      let dest;
      try {
        dest = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURI(pathPart));
      } catch {
        broken.push({ file: rel, line, target, reason: 'not a valid link' });
        continue;
      }
      if (!fs.existsSync(dest)) {
        broken.push({ file: rel, line, target, reason: `no file ${path.relative(root, dest) || dest}` });
        continue;
      }
      if (fragment !== null && dest.endsWith('.md') && fs.statSync(dest).isFile()) {
        let id = fragment;
        try { id = decodeURIComponent(fragment); } catch { /* keep it as written */ }
        if (!anchors(dest).has(id)) broken.push({ file: rel, line, target, reason: `no heading #${id} in ${path.relative(root, dest)}` });
      }
    }
  }
  return { checked, broken };
}

/** README.md and every markdown page under docs/, relative to root. */
export function docFiles(root) {
  const out = fs.existsSync(path.join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (dir) => {
    if (!fs.existsSync(path.join(root, dir))) return;
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const { checked, broken } = checkLinks(root, docFiles(root));
  for (const b of broken) console.log(`${b.file}:${b.line}: ${b.target}: ${b.reason}`);
  console.log(`docs: ${checked - broken.length} passed, ${broken.length} failed`);
  process.exit(broken.length ? 1 : 0);
}

/**
 * Prints the structure figures a review looks at: largest source files, longest functions, imports between modules
 * (and cycles), `any` in the facade, lines over 120 columns. `tsx scripts/structure-report.ts [root]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? '.');
const DIRS = ['src', 'rest-compat', 'jobs'];

function walk(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === 'generated' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) out = out.concat(walk(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const files = DIRS.flatMap((d) => walk(path.join(root, d)));
const rel = (f: string) => path.relative(root, f);

const sizes = files.map((f) => ({ file: rel(f), lines: readFileSync(f, 'utf8').split('\n').length }));
sizes.sort((a, b) => b.lines - a.lines);

interface Fn {
  name: string;
  file: string;
  lines: number;
}
const fns: Fn[] = [];
for (const f of files) {
  const src = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node, owner: string) => {
    let name = owner;
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isPropertyAssignment(node)) {
      name = node.name ? node.name.getText(src) : owner;
    } else if (ts.isVariableDeclaration(node)) name = node.name.getText(src);
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      fns.push({ name, file: rel(f), lines: end - start + 1 });
    }
    ts.forEachChild(node, (c) => visit(c, name));
  };
  visit(src, '(top)');
}
fns.sort((a, b) => b.lines - a.lines);

const moduleOf = (f: string) => /^src\/modules\/([^/]+)\//.exec(rel(f))?.[1];
const edges = new Map<string, number>();
for (const f of files) {
  const from = moduleOf(f);
  if (!from) continue;
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
    const target = moduleOf(path.resolve(path.dirname(f), m[1]));
    if (target && target !== from) edges.set(`${from} -> ${target}`, (edges.get(`${from} -> ${target}`) ?? 0) + 1);
  }
}
const pairs = [...edges.keys()].map((e) => e.split(' -> ') as [string, string]);
const mutual = pairs.filter(([a, b]) => a < b && edges.has(`${b} -> ${a}`)).map(([a, b]) => `${a} <-> ${b}`);

const anyCount = files
  .filter((f) => rel(f).startsWith('rest-compat/'))
  .reduce((n, f) => n + (readFileSync(f, 'utf8').match(/\bany\b/g)?.length ?? 0), 0);
const longLines = files.reduce(
  (n, f) =>
    n +
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.length > 120).length,
  0,
);

console.log(`source files: ${files.length}, lines: ${sizes.reduce((n, s) => n + s.lines, 0)}`);
console.log('\nlargest files:');
for (const s of sizes.slice(0, 8)) console.log(`  ${String(s.lines).padStart(5)}  ${s.file}`);
console.log(`files over 300 lines: ${sizes.filter((s) => s.lines > 300).length}`);
console.log('\nlongest functions:');
for (const f of fns.slice(0, 8)) console.log(`  ${String(f.lines).padStart(5)}  ${f.name} (${f.file})`);
console.log(`functions over 80 lines: ${fns.filter((f) => f.lines > 80).length}`);
console.log(
  `\nimports between modules: ${[...edges.values()].reduce((a, b) => a + b, 0)} over ${edges.size} module pairs`,
);
console.log(`modules importing each other: ${mutual.length ? mutual.join(', ') : 'none'}`);
console.log(`\n\`any\` in rest-compat/: ${anyCount}`);
console.log(`lines over 120 columns (src, rest-compat, jobs): ${longLines}`);

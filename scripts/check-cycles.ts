/**
 * No import circle in src/ (issue 42): reads the relative imports of every src/**\/*.ts (`import`, `import type`,
 * `export … from`, `import('…')` in code and in types, `import x = require(…)`), with `.js` resolved to `.ts`
 * (`.cjs` to `.cts`, `.mjs` to `.mts`, a directory to its index.ts), finds the strongly connected components of that
 * graph and prints each circle with the `file:line` of its arrows. A type-only import is an arrow like any other: a
 * circle of types is still a circle for a reader.
 *
 * It exits 1 when a circle is not in ALLOWED_CIRCLES, or when an allowed circle no longer exists (the list only
 * shrinks: take it out). `npm run lint` runs it; test/lint/cycles.test.ts runs it on src/ and on small trees.
 *
 * Run from the built tree: `node dist/scripts/check-cycles.js [dir]` (it reads src/*.ts, not dist).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Circles that may stay for now, each by its key (`circleKey`) with why. Only ever remove entries. */
export const ALLOWED_CIRCLES: Record<string, string> = {};

/** One import of a file: the specifier as written, its line, and whether only types come through it. */
export interface ImportRef {
  spec: string;
  line: number;
  typeOnly: boolean;
}

/** An arrow of the graph: `from` imports `to` at `from`'s `line` (paths relative to the root given to `importGraph`). */
export interface Arrow {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  arrows: Arrow[];
}

const isSource = (name: string) => /\.(c|m)?ts$/.test(name) && !name.endsWith('.d.ts');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return isSource(name) ? [p] : [];
  });
}

/** Whether every name an import or export clause brings in is a type (`import { type A, type B }`). */
function onlyTypes(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // `import './x.js'` runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    return !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** The imports of one source text, relative or not, in order. */
export function importsOf(path: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: ImportRef[] = [];
  const add = (spec: ts.Node | undefined, at: ts.Node, typeOnly: boolean) => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    found.push({ spec: spec.text, line: source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, node, onlyTypes(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], node, false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, node, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names among `files` (absolute paths), or undefined (a package, or no such file). */
function resolveSpec(from: string, spec: string, files: Set<string>): string | undefined {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const p = resolve(dirname(from), spec);
  const candidates = [p, p.replace(/\.js$/, '.ts'), p.replace(/\.cjs$/, '.cts'), p.replace(/\.mjs$/, '.mts'), `${p}.ts`, join(p, 'index.ts')];
  return candidates.find((c) => files.has(c));
}

/** The graph of relative imports between the source files under `dir`, paths relative to `root` with `/`. */
export function importGraph(dir: string, root: string = dir): ImportGraph {
  const absolute = walk(dir).sort();
  const set = new Set(absolute);
  const name = (p: string) => relative(root, p).split('\\').join('/');
  const arrows: Arrow[] = [];
  for (const file of absolute) {
    for (const ref of importsOf(file, readFileSync(file, 'utf8'))) {
      const to = resolveSpec(file, ref.spec, set);
      if (to) arrows.push({ from: name(file), to: name(to), line: ref.line, typeOnly: ref.typeOnly });
    }
  }
  return { files: absolute.map(name), arrows };
}

/** The strongly connected components of more than one file (or of one file importing itself), each sorted (Tarjan). */
export function circlesOf(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const a of graph.arrows) next.get(a.from)?.push(a.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: start, i: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = next.get(frame.v)!;
      if (frame.i < out.length) {
        const w = out[frame.i++]!;
        if (!index.has(w)) {
          index.set(w, index.size);
          low.set(w, index.get(w)!);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) !== index.get(frame.v)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== frame.v);
      if (component.length > 1 || out.includes(frame.v)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => circleKey(a).localeCompare(circleKey(b)));
}

/** A circle's name in ALLOWED_CIRCLES: its files, sorted, joined by ` + `. */
export const circleKey = (circle: string[]): string => [...circle].sort().join(' + ');

export interface CycleReport {
  circles: string[][];
  /** Circles not in the allowed list. */
  unexpected: string[][];
  /** Allowed keys with no such circle any more. */
  stale: string[];
}

export function checkCycles(graph: ImportGraph, allowed: Record<string, string> = ALLOWED_CIRCLES): CycleReport {
  const circles = circlesOf(graph);
  const keys = new Set(circles.map(circleKey));
  return {
    circles,
    unexpected: circles.filter((c) => allowed[circleKey(c)] === undefined),
    stale: Object.keys(allowed).filter((k) => !keys.has(k)),
  };
}

/** A circle as lines: its files, then each arrow between them as `file:line -> file`. */
export function describeCircle(graph: ImportGraph, circle: string[]): string[] {
  const inside = new Set(circle);
  const arrows = graph.arrows.filter((a) => inside.has(a.from) && inside.has(a.to));
  return [
    `circle of ${circle.length} file${circle.length === 1 ? '' : 's'}: ${circle.join(', ')}`,
    ...arrows.map((a) => `  ${a.from}:${a.line} -> ${a.to}${a.typeOnly ? ' (types only)' : ''}`),
  ];
}

function main(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const dir = resolve(root, process.argv[2] ?? 'src');
  const graph = importGraph(dir, root);
  const report = checkCycles(graph);
  for (const circle of report.circles) {
    const why = ALLOWED_CIRCLES[circleKey(circle)];
    console.log([...describeCircle(graph, circle), why === undefined ? '  NOT ALLOWED' : `  allowed for now: ${why}`].join('\n'));
  }
  for (const key of report.stale) console.log(`allowed circle ${key} no longer exists: remove it from ALLOWED_CIRCLES in scripts/check-cycles.ts`);
  const summary = `cycles: ${graph.files.length} files, ${graph.arrows.length} imports, ${report.circles.length} circle(s)`;
  if (report.unexpected.length === 0 && report.stale.length === 0) {
    console.log(`${summary}${report.circles.length > 0 ? ', all in the allowed list' : ''}`);
    return;
  }
  console.log(`${summary}: ${report.unexpected.length} not allowed, ${report.stale.length} allowed but gone`);
  process.exitCode = 1;
}

// Run as a script (not when a test imports it).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

/**
 * The size targets of src/ (issue 30): no file over 400 lines, no function over 120 lines. Lists every file and
 * function over its limit, with the exceptions below named and their reason. `npm run lint` runs it as a report
 * (it exits 0); `--strict` exits 1 when anything over a limit is not an allowed exception.
 *
 * Run from the built tree: `node dist/scripts/check-sizes.js [--strict]` (it reads src/*.ts, not dist).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 120;

/** Allowed exceptions, by `file` (a path under src/) or `file#function`, each with why it stays long. */
export const EXCEPTIONS: Record<string, string> = {};

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const srcDir = join(root, 'src');

export interface Oversize {
  /** `path` under src/ for a file, `path#name` for a function. */
  key: string;
  /** Where it starts, `path:line`. */
  at: string;
  lines: number;
  limit: number;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** A function's name as a reader finds it: its own, the variable or property it is assigned to, else `<anonymous>`. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    return parent.name.getText(source);
  }
  return '<anonymous>';
}

/** The files and functions of one source over their limits. */
export function oversizeIn(path: string, text: string): Oversize[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Oversize[] = [];
  const fileLines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) found.push({ key: path, at: `${path}:1`, lines: fileLines, limit: MAX_FILE_LINES });
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = lineOf(fn.getStart(source));
      const lines = lineOf(fn.getEnd()) - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({ key: `${path}#${functionName(fn, source)}`, at: `${path}:${start}`, lines, limit: MAX_FUNCTION_LINES });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Everything in src/ over a limit, the allowed exceptions included. */
export function oversizeInSrc(): Oversize[] {
  return walk(srcDir)
    .sort()
    .flatMap((file) => oversizeIn(relative(srcDir, file).split('\\').join('/'), readFileSync(file, 'utf8')));
}

function main(): void {
  const strict = process.argv.includes('--strict');
  const found = oversizeInSrc();
  const allowed = found.filter((o) => EXCEPTIONS[o.key] !== undefined);
  const over = found.filter((o) => EXCEPTIONS[o.key] === undefined);
  for (const o of allowed) console.log(`allowed ${o.at} ${o.key}: ${o.lines} lines (limit ${o.limit}): ${EXCEPTIONS[o.key]}`);
  for (const o of over) console.log(`over    ${o.at} ${o.key}: ${o.lines} lines (limit ${o.limit})`);
  const unused = Object.keys(EXCEPTIONS).filter((key) => !found.some((o) => o.key === key));
  for (const key of unused) console.log(`unused exception ${key}: it is within its limit now, take it out of EXCEPTIONS`);
  if (over.length === 0 && unused.length === 0) {
    console.log(`sizes: every file in src/ within ${MAX_FILE_LINES} lines, every function within ${MAX_FUNCTION_LINES}`);
    return;
  }
  console.log(`sizes: ${over.length} over the limits${strict ? '' : ' (report only; --strict fails on them)'}`);
  if (strict) process.exitCode = 1;
}

// Run as a script (not when a test imports it for `oversizeIn`).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

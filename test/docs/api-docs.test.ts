/**
 * The public API is documented where an editor shows it (issue 42): every function and class that the six package
 * entries export, and every public method of those classes, carries a JSDoc comment; the newest features (agents,
 * tasks, people) carry `@experimental` (docs/architecture.md "Experimental"). Read with the TypeScript compiler's own
 * API from the sources, no build needed.
 */
import assert from 'node:assert/strict';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ENTRIES = ['src/index.ts', 'src/worker.ts', 'src/workflows/index.ts', 'src/client/index.ts', 'src/testing/index.ts', 'src/ai-sdk/index.ts'];

/** What is experimental: an export of an entry (`entry:name`) or a field of an exported interface (`entry:Type.field`). */
const EXPERIMENTAL = [
  'src/ai-sdk/index.ts:mcpAgent',
  'src/ai-sdk/index.ts:durableMcpTools',
  'src/ai-sdk/index.ts:agentModel',
  'src/ai-sdk/index.ts:McpAgentInput',
  'src/ai-sdk/index.ts:McpAgentResult',
  'src/ai-sdk/index.ts:AgentToolCall',
  'src/ai-sdk/index.ts:NeedsApproval',
  'src/ai-sdk/index.ts:DurableMcpToolsOptions',
  'src/workflows/index.ts:ExecuteMcpToolInput.assignees',
  'src/workflows/index.ts:ExecuteMcpToolInput.approvals',
  'src/workflows/index.ts:ElicitationOptions.remindAfter',
  'src/workflows/index.ts:ElicitationOptions.escalateAfter',
  'src/workflows/index.ts:ElicitationOptions.escalateTo',
  'src/workflows/index.ts:AnswerBy.person',
];

const program = ts.createProgram(
  ENTRIES.map((e) => join(root, e)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();

function exportsOf(entry: string): Map<string, ts.Symbol> {
  const source = program.getSourceFile(join(root, entry));
  assert.ok(source, `${entry} is in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol, `${entry} is a module`);
  return new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [s.name, s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s] as const));
}

const documented = (s: ts.Symbol) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim() !== '';
const isFunction = (d: ts.Declaration) =>
  ts.isFunctionDeclaration(d) ||
  (ts.isVariableDeclaration(d) && !!d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)));

describe('the public API is documented', () => {
  it('every exported function and class, and every public method, has a JSDoc comment', () => {
    const missing: string[] = [];
    let counted = 0;
    for (const entry of ENTRIES) {
      for (const [name, symbol] of exportsOf(entry)) {
        const decl = symbol.declarations?.[0];
        if (!decl || !(isFunction(decl) || ts.isClassDeclaration(decl))) continue;
        counted++;
        const where = relative(root, decl.getSourceFile().fileName);
        if (!documented(symbol)) missing.push(`${entry}: ${name} (${where})`);
        if (!ts.isClassDeclaration(decl)) continue;
        for (const member of decl.members) {
          if (!(ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member)) || ts.isPrivateIdentifier(member.name)) continue;
          if (ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
          const method = checker.getSymbolAtLocation(member.name);
          counted++;
          if (!method || !documented(method)) missing.push(`${entry}: ${name}.${member.name.getText()} (${where})`);
        }
      }
    }
    assert.ok(counted > 80, `checked ${counted} functions, classes and methods`);
    assert.deepEqual(missing, []);
  });

  it('agents, tasks and people are marked @experimental', () => {
    const unmarked: string[] = [];
    for (const item of EXPERIMENTAL) {
      const [entry, path] = item.split(':') as [string, string];
      const [name, field] = path.split('.') as [string, string | undefined];
      let symbol = exportsOf(entry).get(name);
      assert.ok(symbol, `${entry} exports ${name}`);
      if (field) {
        symbol = symbol.members?.get(ts.escapeLeadingUnderscores(field));
        assert.ok(symbol, `${name} has the field ${field}`);
      }
      if (!symbol.getJsDocTags(checker).some((t) => t.name === 'experimental')) unmarked.push(item);
    }
    assert.deepEqual(unmarked, []);
  });
});

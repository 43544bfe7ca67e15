import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureServerPath, modernServerPath } from '../fixtures/paths.js';
import { ZOO_TOOL_JSON } from '../fixtures/tool-listing.js';
import { cliHarness, EXIT, run } from '../helpers/cli.js';

const ZOO = { FIXTURE_SCHEMA_ZOO: '1' };

describe('durable-mcp tools <server>: the tools of a server, listed through a worker (dev server, a worker process, real MCP servers)', () => {
  const h = cliHarness({
    extraServers: {
      zoo: { command: [process.execPath, fixtureServerPath], env: ZOO },
      modern: { command: [process.execPath, modernServerPath], env: ZOO },
    },
  });
  /** The one line the CLI prints on stderr for a failure (nothing else is printed there). */
  const oneLine = (stderr: string) => {
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line on stderr, got: ${stderr}`);
    return lines[0]!;
  };

  it('with no worker polling, exits 4 at once and says how to start one', async () => {
    const r = await run(['tools', 'fx'], h.cliEnv);
    assert.equal(r.code, EXIT.NO_WORKER, r.stderr);
    assert.match(oneLine(r.stderr), /could not list the tools of server "fx": no worker has polled its task queue recently.*durable-mcp worker/);
  });

  it('prints one line per tool (name, first line of its description, control characters escaped); --json each tool as sent', async () => {
    await h.startWorkerProcess();
    const r = await run(['tools', 'zoo'], h.cliEnv);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.ok(lines.length >= 10, r.stdout);
    const width = lines.find((l) => l.startsWith('echo '))!.indexOf('Returns "echo');
    assert.ok(width > 'echo'.length, lines.join('\n'));
    assert.equal(
      lines.find((l) => l.startsWith('schema_zoo')),
      `${'schema_zoo'.padEnd(width - 2)}  A tool whose input schema uses unusual keywords \\e[31m(red)\\e[0m.`,
    );
    assert.ok(!r.stdout.includes('\u001b'), 'no raw escape character');
    assert.doesNotMatch(r.stdout, /Second line/);

    for (const server of ['zoo', 'modern']) {
      const json = await run(['tools', server, '--json'], h.cliEnv);
      assert.equal(json.code, 0, json.stderr);
      const out = JSON.parse(json.stdout) as { server: string; workflowId: string; tools: Array<{ name: string }> };
      assert.equal(out.server, server);
      assert.match(out.workflowId, new RegExp(`^mcp-tools-${server}-[0-9a-f]{8}$`));
      assert.equal(JSON.stringify(out.tools.find((t) => t.name === 'schema_zoo')), ZOO_TOOL_JSON, server);
    }
  });

  it('a failed listing exits 1 with one line: what failed, why, and the fix; --json an error object', async () => {
    const unknown = await run(['tools', 'nosuch'], h.cliEnv);
    assert.equal(unknown.code, EXIT.CALL_FAILED, unknown.stderr);
    assert.match(
      oneLine(unknown.stderr),
      new RegExp(
        '^durable-mcp: listing the tools of server "nosuch" \\(workflow "mcp-tools-nosuch-[0-9a-f]{8}"\\) failed: UnknownServer: ' +
          'unknown MCP server "nosuch"; configured servers: fx, ghost, zoo, modern; name one of the configured servers, ' +
          "or add it to the worker's MCP config",
      ),
    );
    const json = await run(['tools', 'nosuch', '--json'], h.cliEnv);
    assert.equal(json.code, EXIT.CALL_FAILED);
    const obj = JSON.parse(json.stdout);
    assert.equal(obj.error, 'UnknownServer');
    assert.equal(obj.server, 'nosuch');
    assert.match(obj.message, /^unknown MCP server "nosuch"; configured servers: fx, ghost, zoo, modern; name one/);
    assert.match(obj.workflowId, /^mcp-tools-nosuch-/);

    const ghost = await run(['tools', 'ghost'], h.cliEnv);
    assert.equal(ghost.code, EXIT.CALL_FAILED, ghost.stderr);
    assert.match(
      oneLine(ghost.stderr),
      /failed: McpServerUnavailable: .*\/nonexistent\/bin\/mcp-server-ghost.*not found.*; check that the server runs and its command or url in the worker's MCP config$/,
    );
  });

  it('usage errors exit 2, an unreachable Temporal 3; --help documents the command', async () => {
    const missing = await run(['tools'], h.cliEnv);
    assert.equal(missing.code, EXIT.USAGE);
    assert.match(missing.stderr, /missing required argument 'server'/);
    const empty = await run(['tools', ''], h.cliEnv);
    assert.equal(empty.code, EXIT.USAGE);
    assert.match(oneLine(empty.stderr), /<server> must be the name of a server in the worker's MCP config, got ""/);
    const unreachable = await run(['tools', 'fx'], { ...h.cliEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(unreachable.code, EXIT.TEMPORAL_UNREACHABLE);
    assert.match(unreachable.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
    const help = await run(['tools', '--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: durable-mcp tools \[options\] <server>/);
  });
});

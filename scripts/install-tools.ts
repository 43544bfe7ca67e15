// Installs the Temporal CLI and the time-skipping test server into the project's tools folder (pip), and the
// official MCP Python SDK (2.x, for the interop test's Python tool server) into .tools/python.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { pythonSdkDir } from '../test/fixtures/python/paths.js';
import { findTemporalBinary } from '../src/cli/temporal-binaries.js';

for (const kind of ['cli', 'test-server'] as const) {
  const found = findTemporalBinary(kind, { allowDownload: false });
  console.log(`${kind}: ${found.path} (${found.source})`);
}

const MCP_PYTHON = 'mcp==2.3.0';
const dir = pythonSdkDir();
if (!existsSync(`${dir}/mcp/__init__.py`) || !existsSync(`${dir}/mcp-2.3.0.dist-info`)) {
  rmSync(dir, { recursive: true, force: true });
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', dir, MCP_PYTHON], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`could not install the MCP Python SDK (${MCP_PYTHON}) into ${dir} with pip`);
    process.exit(1);
  }
}
console.log(`mcp (python): ${dir} (${MCP_PYTHON})`);

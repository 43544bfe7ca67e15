// Installs the Temporal CLI and the time-skipping test server into the project's tools folder (pip), and the
// official MCP Python SDK (2.x, for the interop test's Python tool server) into .tools/python, with what the
// interop test's Python side of the encryption format needs: `cryptography` (AES-GCM) and `temporalio` (the
// `temporal.api.common.v1.Payload` protobuf); and Node 22 and 24 (npm's `node` package, from the npm registry) into
// .tools/node22 and .tools/node24, for CI's runs on each supported line and the conformance runner (scripts/node-lines.ts);
// the Go interop fixture's modules (the MCP Go SDK, from the Go module proxy) into .tools/go; and the Rust interop
// fixture (the MCP Rust SDK rmcp, from crates.io) built into .tools/rust.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildGoElicitServer, goNexusCallerBinary, goToolsDir } from '../test/fixtures/go/paths.js';
import { buildRustElicitServer } from '../test/fixtures/rust/paths.js';
import { pythonSdk1Dir, pythonSdkDir } from '../test/fixtures/python/paths.js';
import { findTemporalBinary } from '../src/cli/temporal-binaries.js';
import { NODE_LINES, nodeLineBinary, nodeLineDir } from './node-lines.js';

for (const kind of ['cli', 'test-server'] as const) {
  const found = findTemporalBinary(kind, { allowDownload: false });
  console.log(`${kind}: ${found.path} (${found.source})`);
}

const PYTHON_PACKAGES = ['mcp==2.3.0', 'cryptography==50.0.2', 'temporalio==1.35.0'];
const dir = pythonSdkDir();
const installed = (spec: string): boolean => {
  const [name, version] = spec.split('==');
  return existsSync(`${dir}/${name}-${version}.dist-info`);
};
if (!existsSync(`${dir}/mcp/__init__.py`) || !PYTHON_PACKAGES.every(installed)) {
  rmSync(dir, { recursive: true, force: true });
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', dir, ...PYTHON_PACKAGES], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`could not install the Python packages (${PYTHON_PACKAGES.join(' ')}) into ${dir} with pip`);
    process.exit(1);
  }
}
console.log(`python packages: ${dir} (${PYTHON_PACKAGES.join(' ')})`);

// The Python SDK 1.x (legacy era only) beside it, for the interop test's 1.x comparison (issue #21).
const MCP1 = 'mcp==1.30.0';
const dir1 = pythonSdk1Dir();
if (!existsSync(`${dir1}/mcp-1.30.0.dist-info`)) {
  rmSync(dir1, { recursive: true, force: true });
  const r = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', dir1, MCP1], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`could not install ${MCP1} into ${dir1} with pip`);
    process.exit(1);
  }
}
console.log(`python packages: ${dir1} (${MCP1})`);

for (const line of NODE_LINES) {
  const bin = nodeLineBinary(line);
  const version = (): string => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (!existsSync(bin) || !version().startsWith(`v${line}.`)) {
    const dir = nodeLineDir(line);
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `node@${line}`], { stdio: 'inherit' });
    if (r.status !== 0 || !existsSync(bin)) {
      console.error(`could not install Node ${line} (npm's node@${line} package) into ${dir}`);
      process.exit(1);
    }
  }
  console.log(`node ${line}: ${bin} (${version()})`);
}

// The Go interop fixture (a server of the official MCP Go SDK, pinned in its go.mod and go.sum): its modules from the
// Go module proxy into .tools/go/mod, built once here; the tests build it again offline from that cache.
try {
  const bin = buildGoElicitServer(join(goToolsDir(), 'bin', 'elicit-server'), true);
  console.log(`go fixture: ${bin} (${spawnSync('go', ['version'], { encoding: 'utf8' }).stdout?.trim()})`);
  // The Go caller of the Nexus service (examples/nexus-go, Temporal's Go SDK): the first build takes a minute or two.
  console.log(`go nexus caller: ${goNexusCallerBinary(true)}`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

// The Rust interop fixture (a server of the official MCP Rust SDK rmcp, pinned in its Cargo.toml and Cargo.lock): its
// crates from crates.io into .tools/rust/cargo, built into .tools/rust/bin; again only when its sources change.
try {
  const started = Date.now();
  const { path, built } = buildRustElicitServer(true);
  const how = built ? `built in ${Math.round((Date.now() - started) / 1000)} s` : 'cached';
  console.log(`rust fixture: ${path} (${how}; ${spawnSync('cargo', ['--version'], { encoding: 'utf8' }).stdout?.trim()})`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

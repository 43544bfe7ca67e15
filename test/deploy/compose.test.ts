// The deployment files (docker-compose.yml, Dockerfile, deploy/) are validated by parsing: these machines have
// no Docker engine. Checks what a user relies on: pinned images, the start order, the worker's wiring.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/visibility.js';

// Compiled to dist/test/deploy/compose.test.js: the repo root is three levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  volumes?: (string | { type?: string; source?: string; target?: string; read_only?: boolean })[];
  ports?: (string | number | { target?: number; published?: string | number })[];
  healthcheck?: { test?: string | string[] };
  entrypoint?: string | string[];
  command?: string | string[];
  restart?: string;
  stop_grace_period?: string;
};

const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service> };
const services = compose.services;

function service(name: string): Service {
  const s = services[name];
  assert.ok(s, `docker-compose.yml has no service ${name}`);
  return s;
}

function env(s: Service): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(s.environment)) {
    for (const entry of s.environment) {
      const i = entry.indexOf('=');
      if (i > 0) out[entry.slice(0, i)] = entry.slice(i + 1);
    }
  } else {
    for (const [k, v] of Object.entries(s.environment ?? {})) out[k] = v == null ? '' : String(v);
  }
  return out;
}

/** depends_on as name -> condition (the short list form means `service_started`). */
function dependsOn(s: Service): Record<string, string> {
  if (Array.isArray(s.depends_on)) return Object.fromEntries(s.depends_on.map((n) => [n, 'service_started']));
  return Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([n, d]) => [n, d?.condition ?? 'service_started']));
}

/** Bind mounts as { source (repo-relative), target, readOnly }. */
function binds(s: Service): { source: string; target: string; readOnly: boolean }[] {
  return (s.volumes ?? []).flatMap((v) => {
    if (typeof v === 'string') {
      const [source, target, mode] = v.split(':');
      if (!source.startsWith('.') || !target) return [];
      return [{ source, target, readOnly: (mode ?? '').split(',').includes('ro') }];
    }
    if (v.type !== 'bind' || !v.source || !v.target) return [];
    return [{ source: v.source, target: v.target, readOnly: v.read_only === true }];
  });
}

/** The repo file mounted at a container path (a file mount, or a file inside a mounted folder). */
function mountedFile(s: Service, containerPath: string): string | undefined {
  for (const b of binds(s)) {
    if (b.target === containerPath) return posix.normalize(b.source);
    if (containerPath.startsWith(b.target + '/')) return posix.join(b.source, containerPath.slice(b.target.length + 1));
  }
  return undefined;
}

/** The text of what a one-shot service runs: its command and entrypoint, plus any repo script they name. */
function runsText(s: Service): string {
  const words = [s.entrypoint, s.command].flatMap((x) => (x == null ? [] : Array.isArray(x) ? x : [x]));
  const scripts = words.map((w) => mountedFile(s, w)).filter((f): f is string => !!f && existsSync(join(root, f)));
  return [words.join(' '), ...scripts.map(read)].join('\n');
}

const dockerfile = read('Dockerfile');
/** Dockerfile instructions (comments dropped, `\` continuations joined), split into stages at FROM. */
const stages: { from: string; lines: string[] }[] = [];
for (const line of dockerfile
  .replace(/\\\r?\n/g, ' ')
  .split(/\r?\n/)
  .map((l) => l.trim())) {
  if (!line || line.startsWith('#')) continue;
  if (/^FROM\s/i.test(line)) stages.push({ from: line, lines: [] });
  else stages.at(-1)?.lines.push(line);
}
const instr = (stage: { lines: string[] }, name: string) => stage.lines.filter((l) => new RegExp(`^${name}\\s`, 'i').test(l));

/** A version-like tag: digits first (e.g. 16.10, 1.30.1, 2.34.0, 20.19.5-bookworm-slim), never `latest`. */
function assertPinned(image: string, where: string): string {
  const ref = image.split('@')[0];
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  assert.ok(colon > slash, `${where}: image ${image} has no tag`);
  const tag = ref.slice(colon + 1);
  assert.notEqual(tag, 'latest', `${where}: image ${image} uses latest`);
  assert.match(tag, /^v?\d+(\.\d+)+([-_.][\w.-]+)?$/, `${where}: image ${image} tag is not a version`);
  return tag;
}

describe('docker-compose.yml', () => {
  it('has the services of the stack', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-setup', 'temporal-ui', 'worker', 'codec-server']) service(name);
  });

  it('pins every image to a version tag (never latest)', () => {
    const images = Object.entries(services).filter(([, s]) => s.image);
    assert.ok(images.length >= 4, 'expected pinned images for postgres, temporal, admin-tools and ui');
    for (const [name, s] of images) assertPinned(s.image!, `service ${name}`);
  });

  it('runs Postgres with a data volume and a pg_isready healthcheck', () => {
    const pg = service('postgresql');
    assert.match(pg.image!, /^postgres:/);
    assert.ok((pg.volumes ?? []).some((v) => (typeof v === 'string' ? v : (v.target ?? '')).includes('/var/lib/postgresql/data')));
    assert.match(JSON.stringify(pg.healthcheck?.test), /pg_isready/);
  });

  it('starts Temporal after Postgres is healthy and its schema is set up, on port 7233, with a healthcheck', () => {
    const t = service('temporal');
    assert.match(t.image!, /^temporalio\/(server|auto-setup):/);
    assert.equal(dependsOn(t).postgresql, 'service_healthy');
    const e = env(t);
    assert.equal(e.DB, 'postgres12');
    assert.equal(e.POSTGRES_SEEDS, 'postgresql');
    assert.ok((t.ports ?? []).some((p) => String(typeof p === 'object' ? p.target : p).endsWith('7233')));
    assert.ok(t.healthcheck?.test, 'temporal has a healthcheck');
    // Schema: auto-setup does it itself; the plain server image needs a one-shot that completed first.
    if (t.image!.startsWith('temporalio/server:')) {
      const schema = Object.entries(dependsOn(t)).find(([, c]) => c === 'service_completed_successfully');
      assert.ok(schema, 'temporal waits for a schema setup service');
      const text = runsText(service(schema[0]));
      assert.match(text, /temporal-sql-tool/);
      assert.match(text, /setup-schema/);
      assert.match(text, /update-schema/);
      assert.equal(dependsOn(service(schema[0])).postgresql, 'service_healthy');
    }
  });

  it('temporal-setup creates the namespace and registers every search attribute of durable-mcp with its type, idempotently', () => {
    const s = service('temporal-setup');
    assert.match(s.image!, /^temporalio\/admin-tools:/);
    assert.equal(dependsOn(s).temporal, 'service_healthy');
    assert.equal(env(s).TEMPORAL_ADDRESS, 'temporal:7233');
    const text = runsText(s);
    assert.match(text, /operator namespace create/);
    assert.match(text, /operator search-attribute create/);
    assert.match(text, /operator search-attribute create --namespace "\$NAMESPACE" --name "\$1" --type "\$2"/);
    for (const { name, type } of SEARCH_ATTRIBUTES) assert.match(text, new RegExp(`register_search_attribute\\s+${name}\\s+${type}\\b`), `${name} as ${type}`);
    assert.match(text, /already exists/i, 'an existing namespace or search attribute is not an error');
  });

  it('admin-tools and server images share the same Temporal version', () => {
    const server = assertPinned(service('temporal').image!, 'temporal');
    for (const [name, s] of Object.entries(services)) {
      if (s.image?.startsWith('temporalio/admin-tools:')) assert.ok(assertPinned(s.image, name).startsWith(server), `${name} matches server ${server}`);
    }
  });

  it('publishes the Temporal frontend and the UI on loopback only by default', () => {
    for (const name of ['temporal', 'temporal-ui', 'codec-server']) {
      for (const p of service(name).ports ?? []) {
        assert.equal(typeof p, 'string', `${name}: ports in the short form`);
        assert.match(
          String(p),
          /^\$\{PUBLISH_ADDRESS:-127\.0\.0\.1\}:\d+:\d+$/,
          `${name} publishes ${String(p)} on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise`,
        );
      }
    }
  });

  it("matches the UI image to the server's release (the pairing of Temporal's own compose)", () => {
    // temporalio/samples-server compose/.env pairs these; a server upgrade must bump the UI with it.
    // Server 1.32.0 with UI 2.54.1: the pair the dev server of Temporal CLI 1.9.1 embeds, and Temporal's Helm chart pins.
    const pairs: Record<string, string> = { '1.30.1': '2.34.0', '1.32.0': '2.54.1' };
    const server = service('temporal').image!.split(':')[1];
    assert.ok(pairs[server], `a known UI release for server ${server}`);
    assert.equal(service('temporal-ui').image, `temporalio/ui:${pairs[server]}`);
  });

  it('runs the Temporal server line the tests run (the dev server of .tools reports its server version)', (t) => {
    let cli: string | undefined;
    try {
      cli = findTemporalBinary('cli', { install: false, allowDownload: false }).path;
    } catch {
      cli = undefined;
    }
    if (!cli) return t.skip('no Temporal CLI on this machine');
    // e.g. "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)"
    const version = execFileSync(cli, ['--version'], { encoding: 'utf8' });
    const m = /Server (\d+)\.(\d+)\.(\d+)/.exec(version);
    assert.ok(m, `the dev server names its server version: ${version}`);
    const [major, minor] = service('temporal').image!.split(':')[1].split('.');
    assert.equal(`${major}.${minor}`, `${m[1]}.${m[2]}`, `compose runs server ${service('temporal').image}, the tests run ${m[0]}`);
  });

  it('runs a codec server from the worker image, token and keys required, and points the UI at it', () => {
    const c = service('codec-server');
    const w = service('worker');
    assert.deepEqual(c.build, w.build, 'built like the worker (the same image)');
    const command = Array.isArray(c.command) ? c.command : String(c.command).split(/\s+/);
    assert.deepEqual(command.slice(0, 3), ['node', 'dist/src/cli/main.js', 'codec-server']);
    const flag = (name: string) => command[command.indexOf(name) + 1];
    assert.equal(flag('--host'), '0.0.0.0', 'reachable from the published port (so the token is required)');
    const port = flag('--port');
    const e = env(c);
    // Compose refuses to start without them (`${VAR:?message}`), rather than serve without a token or keys.
    assert.match(e.DURABLE_MCP_CODEC_TOKEN, /^\$\{DURABLE_MCP_CODEC_TOKEN:\?[^}]+\}$/);
    assert.match(e.DURABLE_MCP_ENCRYPTION_KEYS, /^\$\{DURABLE_MCP_ENCRYPTION_KEYS:\?[^}]+\}$/);
    assert.equal(env(w).DURABLE_MCP_ENCRYPTION_KEYS, e.DURABLE_MCP_ENCRYPTION_KEYS, 'the worker encrypts with the keys the codec server decodes with');
    const published = (c.ports ?? []).map(String).find((p) => p.endsWith(`:${port}`));
    assert.ok(published, `the codec server's port ${port} is published`);
    const hostPort = published.split(':').at(-2);

    const ui = env(service('temporal-ui'));
    const endpoint = /^\$\{TEMPORAL_CODEC_ENDPOINT:-([^}]+)\}$/.exec(ui.TEMPORAL_CODEC_ENDPOINT)?.[1] ?? ui.TEMPORAL_CODEC_ENDPOINT;
    assert.equal(new URL(endpoint).port, hostPort, 'the UI calls the codec server at its published port');
    assert.equal(ui.TEMPORAL_CODEC_INCLUDE_CREDENTIALS, 'true', "the browser's requests carry the codec server's cookie");
    // CORS: the UI's published origin (http://localhost:8080) is allowed, on the codec endpoint's own site (the cookie is SameSite).
    const origins = (/^\$\{DURABLE_MCP_CODEC_UI_ORIGINS:-([^}]+)\}$/.exec(e.DURABLE_MCP_CODEC_UI_ORIGINS)?.[1] ?? e.DURABLE_MCP_CODEC_UI_ORIGINS).split(',');
    const uiPort = String(service('temporal-ui').ports?.[0]).split(':').at(-2);
    assert.ok(origins.includes(`http://${new URL(endpoint).hostname}:${uiPort}`), `the UI's origin is among ${origins.join(', ')}`);
    assert.ok(c.healthcheck?.test, 'the codec server has a healthcheck');
  });

  it('checks the worker with `durable-mcp health` (a worker polls the task queue)', () => {
    const w = service('worker');
    assert.deepEqual(w.healthcheck?.test, ['CMD', 'node', 'dist/src/cli/main.js', 'health']);
  });

  it('points the UI at temporal:7233 on port 8080', () => {
    const ui = service('temporal-ui');
    assert.match(ui.image!, /^temporalio\/ui:/);
    assert.equal(env(ui).TEMPORAL_ADDRESS, 'temporal:7233');
    assert.ok((ui.ports ?? []).some((p) => /(^|:)8080$/.test(String(typeof p === 'object' ? p.target : p))));
  });

  it('builds the worker from the Dockerfile and wires it to Temporal and its MCP config', () => {
    const w = service('worker');
    const build = typeof w.build === 'string' ? { context: w.build } : w.build;
    assert.ok(build, 'worker is built, not pulled');
    assert.equal(posix.normalize(build.context ?? '.'), '.');
    const dockerfilePath = build.dockerfile ?? 'Dockerfile';
    assert.equal(dockerfilePath, 'Dockerfile');
    assert.ok(existsSync(join(root, dockerfilePath)));

    const e = env(w);
    const [host, port] = e.TEMPORAL_ADDRESS.split(':');
    assert.ok(services[host], `TEMPORAL_ADDRESS names the ${host} service`);
    assert.equal(port, '7233');
    assert.equal(e.TEMPORAL_NAMESPACE, 'default');

    const config = mountedFile(w, e.MCP_CONFIG);
    assert.equal(config, 'deploy/mcp.json', 'MCP_CONFIG is the mounted deploy/mcp.json');
    assert.ok(existsSync(join(root, config!)));
    assert.ok(binds(w).find((b) => b.target === e.MCP_CONFIG)?.readOnly, 'the MCP config is mounted read-only');

    assert.equal(dependsOn(w)['temporal-setup'], 'service_completed_successfully');
    assert.equal(w.restart, 'unless-stopped');
    const grace = /^(\d+)s$/.exec(w.stop_grace_period ?? '');
    assert.ok(grace && Number(grace[1]) >= 20, `stop_grace_period is long enough for a graceful shutdown (${w.stop_grace_period})`);
  });

  it('every repo file mounted into a service exists', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const b of binds(s)) assert.ok(existsSync(join(root, b.source)), `${name}: ${b.source} exists`);
    }
  });
});

describe('deploy/mcp.json', () => {
  it('parses as JSON with an mcpServers key whose servers have a command or url', () => {
    const config = JSON.parse(read('deploy/mcp.json')) as { mcpServers?: Record<string, { command?: string[]; url?: string }> };
    assert.ok(config.mcpServers && typeof config.mcpServers === 'object');
    const servers = Object.entries(config.mcpServers);
    assert.ok(servers.length > 0);
    for (const [name, s] of servers) assert.ok(Array.isArray(s.command) || typeof s.url === 'string', `server ${name}`);
  });

  it('starts the demo server from the image build output', () => {
    const config = JSON.parse(read('deploy/mcp.json')) as { mcpServers: Record<string, { command?: string[] }> };
    const commands = Object.values(config.mcpServers).flatMap((s) => s.command ?? []);
    assert.ok(commands.includes('/app/dist/src/cli/demo-server.js'));
    assert.ok(existsSync(join(root, 'src', 'cli', 'demo-server.ts')), 'the demo server source exists');
  });
});

describe('Dockerfile', () => {
  it('pins every FROM image, never latest, never alpine', () => {
    assert.ok(stages.length >= 2, 'a multi-stage build');
    const names = new Set<string>();
    for (const { from } of stages) {
      const m = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(from);
      assert.ok(m, from);
      if (names.has(m[1])) continue; // FROM an earlier stage
      if (m[2]) names.add(m[2]);
      assertPinned(m[1], from);
      assert.doesNotMatch(m[1], /alpine/i, 'glibc only: @temporalio/core-bridge ships a glibc binary');
    }
  });

  it('has a build stage that runs npm ci and npm run build', () => {
    const build = stages.find((s) => instr(s, 'RUN').some((r) => /npm run build/.test(r)));
    assert.ok(build, 'a stage runs npm run build');
    const runs = instr(build, 'RUN');
    const ci = runs.findIndex((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r));
    const b = runs.findIndex((r) => /npm run build/.test(r));
    assert.ok(ci >= 0 && ci <= b, 'npm ci (with dev deps) before npm run build');
  });

  it('runs the worker as a non-root user in the final stage with production deps only', () => {
    const last = stages.at(-1)!;
    assert.ok(
      instr(last, 'RUN').some((r) => /npm ci\b.*--omit=dev/.test(r)),
      'production dependencies only',
    );
    assert.ok(
      instr(last, 'COPY').some((c) => /--from=\S+.*\bdist\b/.test(c)),
      'dist/ from the build stage',
    );
    assert.ok(instr(last, 'ENV').some((e) => /NODE_ENV[= ]production/.test(e)));
    // glibc's per-thread malloc arenas otherwise let the worker's RSS grow with every tool call (benchmark B3).
    assert.ok(
      instr(last, 'ENV').some((e) => /MALLOC_ARENA_MAX[= ]2\b/.test(e)),
      'MALLOC_ARENA_MAX=2 in the final stage',
    );
    const user = instr(last, 'USER').at(-1);
    assert.ok(user, 'the final stage sets USER');
    assert.doesNotMatch(user, /^USER\s+(root|0)(:|\s*$)/i);
  });

  it('starts the worker from dist', () => {
    const last = stages.at(-1)!;
    const start = [...instr(last, 'ENTRYPOINT'), ...instr(last, 'CMD')].join(' ');
    assert.match(start, /dist\/src\/cli\/main\.js"?,?\s*"?worker|dist\/src\/cli\/worker-command\.js/);
  });
});

describe('.dockerignore', () => {
  it('keeps node_modules and dist out of the build context', () => {
    const lines = read('.dockerignore')
      .split(/\r?\n/)
      .map((l) => l.trim().replace(/^\/|\/$/g, ''));
    for (const p of ['node_modules', 'dist']) assert.ok(lines.includes(p), p);
  });
});

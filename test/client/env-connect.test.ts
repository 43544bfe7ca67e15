/**
 * The connection settings without @temporalio/envconfig (an optional peer dependency): the plain variables read as
 * envconfig reads them, and a setting only envconfig reads refused with what to install. Pure: no server. The
 * packed install without envconfig is test/install/optional-peers.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { plainEnvConnectConfig } from '../../src/client/connection.js';
import { tempDir } from '../helpers/temporal.js';

/** An environment with no Temporal config file where envconfig would look for one. */
const clean = (vars: Record<string, string>) => ({ HOME: tempDir('env-connect-home-'), XDG_CONFIG_HOME: tempDir('env-connect-xdg-'), ...vars });

describe('connection settings without @temporalio/envconfig', () => {
  for (const vars of <Array<Record<string, string>>>[
    {},
    { TEMPORAL_ADDRESS: 'temporal.example:7233', TEMPORAL_NAMESPACE: 'prod' },
    { TEMPORAL_ADDRESS: 'ns.tmprl.cloud:7233', TEMPORAL_API_KEY: 'k' },
    { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' },
    { TEMPORAL_TLS: 'true' },
    { TEMPORAL_TLS: '0' },
  ]) {
    it(`reads ${JSON.stringify(vars)} as envconfig does`, () => {
      const env = clean(vars);
      const theirs = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
      const ours = plainEnvConnectConfig(env);
      // As JSON: a key whose value is undefined is no setting.
      const shape = (c: typeof ours) =>
        JSON.parse(JSON.stringify({ namespace: c.namespace, ...c.connectionOptions, metadata: c.connectionOptions.metadata ?? {} }));
      assert.deepEqual(shape(ours), shape(theirs));
    });
  }

  it('refuses what only envconfig reads, naming it and the package to install', () => {
    for (const [name, value] of [
      ['TEMPORAL_PROFILE', 'prod'],
      ['TEMPORAL_CONFIG_FILE', '/etc/temporal.toml'],
      ['TEMPORAL_TLS_CLIENT_CERT_PATH', '/certs/client.pem'],
      ['TEMPORAL_GRPC_META_X_TENANT', 'acme'],
    ]) {
      assert.throws(
        () => plainEnvConnectConfig(clean({ [name!]: value! })),
        new RegExp(
          `^ConnectConfigError: ${name}: reading this needs @temporalio/envconfig, which is not installed\\. Run \`npm install @temporalio/envconfig\``,
        ),
      );
    }
  });

  it('refuses when a Temporal config file is where envconfig would read it', () => {
    const env = clean({});
    mkdirSync(join(env.XDG_CONFIG_HOME, 'temporalio'));
    writeFileSync(join(env.XDG_CONFIG_HOME, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "elsewhere:7233"\n');
    assert.throws(() => plainEnvConnectConfig(env), /the Temporal config file .*temporal\.toml: reading this needs @temporalio\/envconfig/);
  });

  it('names a bad TEMPORAL_TLS', () => {
    assert.throws(() => plainEnvConnectConfig(clean({ TEMPORAL_TLS: 'yes' })), /TEMPORAL_TLS must be true, false, 1 or 0, got "yes"/);
  });
});

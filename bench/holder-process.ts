/**
 * B1's floor, the holder's side, in a process of its own (as the worker's activities are): reads workflow ids
 * from stdin, one per line; for each sends the `benchHold` update to that `benchRelay` workflow and prints
 * `{"id","ms"}` once it returns, `ms` from sending the update to its result. Env: TEMPORAL_ADDRESS, DURABLE_MCP_ENCRYPTION_KEYS.
 * Prints `holder: ready` once connected; ends when stdin closes.
 */
import { createInterface } from 'node:readline';
import { Client, Connection } from '@temporalio/client';
import { dataConverterOf, EncryptionCodec } from '../src/codec/index.js';
import { benchHoldUpdate } from './workflows.js';

// With DURABLE_MCP_ENCRYPTION_KEYS set, the holder's update goes through the codec as the worker's does.
const dataConverter = dataConverterOf(EncryptionCodec.fromEnv());
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
const client = new Client({ connection, ...(dataConverter ? { dataConverter } : {}) });
process.stdout.write('holder: ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const id = line.trim();
  if (!id) continue;
  const t = performance.now();
  try {
    const held = await client.workflow.getHandle(id).executeUpdate(benchHoldUpdate, { args: ['r'] });
    const ms = performance.now() - t;
    process.stdout.write(`${JSON.stringify(held === 'r' ? { id, ms } : { id, error: `released ${JSON.stringify(held)}` })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ id, error: String(err) })}\n`);
  }
}
await connection.close();

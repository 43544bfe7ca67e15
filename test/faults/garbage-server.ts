#!/usr/bin/env node
/**
 * A stdio "MCP server" that writes garbage to stdout, for the fault suite (F3).
 *
 *   node dist/test/faults/garbage-server.js --garbage-then-behave [--garbage-every MS]
 *       prints non-JSON and non-MCP lines, then runs the real fixture server (test/fixtures/server.ts) in this
 *       process; with --garbage-every it keeps printing garbage lines between the MCP messages.
 *   node dist/test/faults/garbage-server.js --garbage-then-exit
 *       prints garbage lines, then exits with code 1 without ever speaking MCP.
 *
 * Env FIXTURE_LOG: appends a `{"event":"garbage","pid":…,"lines":N}` line per burst.
 */
import { appendFileSync, writeSync } from 'node:fs';

const argv = process.argv.slice(2);
const every = (() => {
  const i = argv.indexOf('--garbage-every');
  return i >= 0 ? Number(argv[i + 1]) : 0;
})();

const GARBAGE = [
  'hello, this is not JSON',
  '',
  '{"half": ',
  '[1, 2, 3]',
  '{"not":"jsonrpc"}',
  'null',
  '42',
  '\u0000\u0001\u0002 binary-ish \u00ff',
  '{"jsonrpc":"2.0","id":987654,"result":{}}',
  '{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}',
  '{"jsonrpc":"1.0","method":"initialize"}',
  'Content-Length: 52',
];

function log(lines: number, phase: string): void {
  const path = process.env.FIXTURE_LOG;
  if (!path) return;
  try {
    appendFileSync(path, JSON.stringify({ pid: process.pid, server: process.env.FIXTURE_NAME, event: 'garbage', phase, lines, ts: Date.now() }) + '\n');
  } catch {
    // never break the script for a log line
  }
}

function burst(phase: string): void {
  // Whole lines in one synchronous write each, so they never tear an MCP message written by the server.
  for (const line of GARBAGE) writeSync(1, line + '\n');
  log(GARBAGE.length, phase);
}

burst('start');
if (argv.includes('--garbage-then-exit')) {
  writeSync(2, 'garbage-server: exiting after garbage\n');
  process.exit(1);
}
if (every > 0) {
  const timer = setInterval(() => {
    // process.stdout is synchronous for pipes on Linux, and it is the stream the MCP server writes to:
    // a garbage line always lands between two whole MCP messages.
    if (!process.stdout.writable) return clearInterval(timer);
    process.stdout.write(`${GARBAGE[Math.floor(Math.random() * GARBAGE.length)]}\n`);
  }, every);
  timer.unref();
}
// Behave: the fixture server runs on import (it reads process.argv and stdin itself).
await import('../fixtures/server.js');

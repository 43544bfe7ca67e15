/** The benchmarks `npm run bench` (bench/run.ts) runs, in this order; one file each, their setup in bench/setup.ts. */
import { b1 } from './b1-round-trip.js';
import { b2 } from './b2-session-reuse.js';
import { b3 } from './b3-idle-cost.js';
import { b4 } from './b4-recovery.js';
import { b5 } from './b5-throughput.js';
import { b6 } from './b6-mrtr-round.js';
import { b3m } from './b3m-idle-cost-modern.js';
import { b8 } from './b8-encryption.js';
import { b9 } from './b9-approval.js';
import { b10 } from './b10-agent-step.js';
import { b7 } from './b7-inbox-scale.js';
import { b11 } from './b11-tasks.js';
import { b12 } from './b12-mcp-client.js';
import { b13 } from './b13-nexus.js';
import type { Benchmark } from './setup.js';

export const benchmarks: Benchmark[] = [b1, b2, b3, b4, b5, b6, b3m, b8, b9, b7, b10, b11, b12, b13];

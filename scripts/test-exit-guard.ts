// Loaded into every test file's process by scripts/run-tests.ts (`node --import`). Node's test runner ends a file
// that passed its timeout with SIGTERM, then waits for it to exit. Temporal's runtime takes SIGTERM as a request for a
// graceful shutdown, which waits for the workers' activities: an activity waiting on a run the time-skipping server
// had stranded kept one file, and so CI, alive for an hour. Once signalled, a test file exits within the grace.
const GRACE_MS = 30_000;

process.once('SIGTERM', () => {
  setTimeout(() => {
    process.stderr.write(`test-exit-guard: still running ${GRACE_MS / 1000} s after SIGTERM (the test runner's timeout): exiting\n`);
    process.exit(1);
  }, GRACE_MS).unref();
});

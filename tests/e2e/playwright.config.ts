import { defineConfig } from '@playwright/test';

// The app under test is the debug binary the test script builds, started
// with no DATABASE_URL: it runs its own embedded PostgreSQL in a fresh data
// folder and seeds the demo event, exactly as a newcomer's first run does.
const port = Number(process.env.SEATMAP_E2E_PORT ?? 3210);
const binary = process.env.SEATMAP_BIN ?? '../../target/debug/seatmap';

export default defineConfig({
  testDir: './specs',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    // tests/run-all.sh passes a fresh data folder (and removes it after);
    // run by hand, a new one is made here.
    command: process.env.SEATMAP_E2E_DATA_DIR
      ? `SEATMAP_DATA_DIR="${process.env.SEATMAP_E2E_DATA_DIR}" exec ${binary}`
      : `dir=$(mktemp -d "\${TMPDIR:-/tmp}/seatmap-e2e-XXXXXX") && chmod 755 "$dir" && ` +
        `SEATMAP_DATA_DIR="$dir" exec ${binary}`,
    url: `http://127.0.0.1:${port}/api/events`,
    env: { SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'warn' },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
    // SIGTERM lets the app drain and stop its embedded PostgreSQL.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
  },
});

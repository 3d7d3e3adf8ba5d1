import { defineConfig } from '@playwright/test';
import { tmpdir } from 'os';

// The app under test is the debug binary the test script builds, started
// with no DATABASE_URL: each server runs its own embedded PostgreSQL in a
// fresh data folder and seeds the demo event, as a newcomer's first run
// does. A second server holds seats for only a few seconds, for the
// expiry test; a third for 100 s, inside the last two minutes from the
// start, for the extension test. Each gets a staff account first.
const binary = process.env.SEATMAP_BIN ?? '../../target/debug/seatmap';
export const MAIN_PORT = Number(process.env.SEATMAP_E2E_PORT ?? 3210);
export const SHORT_PORT = MAIN_PORT + 1;
export const SHORT_HOLD_SECS = 8;
export const EXTEND_PORT = MAIN_PORT + 2;
export const EXTEND_HOLD_SECS = 100;
export const STAFF = { name: 'e2e-staff', password: 'e2e box office password' };
// A fourth server takes payment through the Stripe stand-in
// (crates/stripe-standin, built by the test script): Stripe itself can't
// be reached from here.
export const PAY_PORT = MAIN_PORT + 3;
export const STANDIN_PORT = MAIN_PORT + 4;
const STANDIN_SECRET = 'whsec_e2e_standin';
// A fifth server mails its tickets to a real SMTP server (aiosmtpd, from
// Debian's python3-aiosmtpd, which the test script installs), which keeps
// each message as a file in MAILDIR for the language tests to read.
export const MAIL_PORT = MAIN_PORT + 5;
export const SMTP_PORT = MAIN_PORT + 6;
export const MAILDIR = `${process.env.SEATMAP_E2E_DATA_DIR ?? `${tmpdir()}/seatmap-e2e-${MAIN_PORT}`}/maildir`;
// Made by wallet-keys.sh in the server's data folder; exported for it.
const walletKeys =
  `bash ./wallet-keys.sh "$dir/wallet" && ` +
  `export SEATMAP_WALLET_CERT="$dir/wallet/pass.pem" SEATMAP_WALLET_KEY="$dir/wallet/pass.key" ` +
  `SEATMAP_WALLET_WWDR_CERT="$dir/wallet/wwdr.pem" SEATMAP_GOOGLE_WALLET_KEY="$dir/wallet/google.json" && `;
const standin = process.env.STANDIN_BIN ?? '../../target/debug/stripe-standin';

function server(name: string, port: number, env: Record<string, string>, prelude = '') {
  // tests/run-all.sh passes a fresh folder (and removes it after); run by
  // hand, a new one is made here.
  const dataDir = process.env.SEATMAP_E2E_DATA_DIR
    ? `"${process.env.SEATMAP_E2E_DATA_DIR}/${name}"`
    : `"$(mktemp -d "\${TMPDIR:-/tmp}/seatmap-e2e-XXXXXX")"`;
  return {
    command:
      `dir=${dataDir} && mkdir -p "$dir" && chmod 755 "$dir" && export SEATMAP_DATA_DIR="$dir" && ${prelude}` +
      `(printf '%s\\n' '${STAFF.password}' | ${binary} staff add ${STAFF.name} >/dev/null 2>&1 || true) && ` +
      `exec ${binary}`,
    url: `http://127.0.0.1:${port}/api/events`,
    // Every browser test buys from 127.0.0.1, so the cap on open holds per
    // address (20 by default) counted the whole suite as one hoarder: a
    // full run opens more than 20 holds on the main server, and which test
    // found itself refused ("asking for 4 while holding 2", once) depended
    // on the order the two workers ran them in. The cap has its own
    // integration tests; here it is off.
    // The read gate (4 reads in flight per address, then a wait and a
    // 503) would count the whole suite, 20,000-seat debug-build maps and
    // all, as one flooding client: off here too. Its own test is
    // tests/it/hostile.rs' flood of first-time readers.
    env: {
      SEATMAP_ADDR: `127.0.0.1:${port}`,
      RUST_LOG: 'warn',
      SEATMAP_MAX_HOLDS_PER_IP: '0',
      SEATMAP_READS_PER_IP: '0',
      // The demo arena's waiting room opens at once here (a minute after
      // the first start by default): with no line an "auto" queue admits
      // a browser as it arrives, so the arena's own tests see its map.
      // The waiting room's test puts a queue of its own.
      SEATMAP_DEMO_QUEUE_OPENS_SECS: '0',
      // Its always-on puzzle is off here: the arena's tests (one without
      // JavaScript) open its map straight away, as a page view within the
      // free joins does.
      SEATMAP_DEMO_QUEUE_WITHOUT_PUZZLE: '1',
      ...env,
    },
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe' as const,
    stderr: 'pipe' as const,
    // SIGTERM lets the app drain and stop its embedded PostgreSQL.
    gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 10_000 },
  };
}

export default defineConfig({
  testDir: './specs',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  // Always: the test command doesn't set CI, and a stray .only would
  // quietly skip the rest of the suite.
  forbidOnly: true,
  retries: 0,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL: `http://127.0.0.1:${MAIN_PORT}`,
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
  webServer: [
    server('main', MAIN_PORT, {}),
    server('short', SHORT_PORT, { SEATMAP_HOLD_TTL_SECS: String(SHORT_HOLD_SECS) }),
    server('extend', EXTEND_PORT, { SEATMAP_HOLD_TTL_SECS: String(EXTEND_HOLD_SECS) }),
    {
      command:
        `exec ${standin} --listen 127.0.0.1:${STANDIN_PORT} --webhook-secret ${STANDIN_SECRET} ` +
        `--webhook-url http://127.0.0.1:${PAY_PORT}/payments/stripe/webhook`,
      url: `http://127.0.0.1:${STANDIN_PORT}/_standin/ledger`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'pipe' as const,
      stderr: 'pipe' as const,
    },
    {
      command: `rm -rf "${MAILDIR}" && mkdir -p "$(dirname "${MAILDIR}")" && exec /usr/bin/python3 -m aiosmtpd -n -l 127.0.0.1:${SMTP_PORT} -c aiosmtpd.handlers.Mailbox "${MAILDIR}"`,
      port: SMTP_PORT,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'pipe' as const,
      stderr: 'pipe' as const,
    },
    // It also has (throwaway) Apple and Google Wallet keys, made at start.
    server('mail', MAIL_PORT, {
      SEATMAP_SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
      SEATMAP_MAIL_POLL_MS: '200',
      SEATMAP_WALLET_PASS_TYPE_ID: 'pass.com.example.tickets',
      SEATMAP_WALLET_TEAM_ID: 'ABCDE12345',
      SEATMAP_GOOGLE_WALLET_ISSUER_ID: '3388000000012345678',
    }, walletKeys),
    server('pay', PAY_PORT, {
      SEATMAP_STRIPE_SECRET_KEY: 'sk_test_e2e',
      SEATMAP_STRIPE_WEBHOOK_SECRET: STANDIN_SECRET,
      SEATMAP_STRIPE_API_URL: `http://127.0.0.1:${STANDIN_PORT}`,
    }),
  ],
});

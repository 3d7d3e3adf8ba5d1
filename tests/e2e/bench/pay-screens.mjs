// Screenshots of the payment pages at 1440×900 and 390×844, for a person
// to read before calling them done: the hold panel's "Pay", the order page
// waiting for its payment (after a cancel on the provider's page), paid,
// and a box-office reservation with the console and the staff order page.
//
//   cargo build && cargo build -p stripe-standin
//   node tests/e2e/bench/pay-screens.mjs [out-dir]     # default /tmp/seatmap-pay-screens
//   FORMAT=jpeg node tests/e2e/bench/pay-screens.mjs docs/screens   # the set docs/screens.md shows
//
// It starts the Stripe stand-in (crates/stripe-standin) and a server that
// pays through it, each on its own port, in a fresh data folder.
import { chromium } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const binary = join(root, 'target/debug/seatmap');
const standinBinary = join(root, 'target/debug/stripe-standin');
const out = process.argv[2] ?? '/tmp/seatmap-pay-screens';
mkdirSync(out, { recursive: true });
const port = 3295;
const standinPort = 3296;
const base = `http://127.0.0.1:${port}`;
const SECRET = 'whsec_screens';
const STAFF = ['screens-staff', 'a long box-office password'];
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WIDTHS = [
  { name: '1440', viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false },
  { name: '390', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
];

const dataDir = mkdtempSync(join(tmpdir(), 'seatmap-pay-screens-'));
chmodSync(dataDir, 0o755);
const env = {
  ...process.env, SEATMAP_DATA_DIR: dataDir, SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'error',
  SEATMAP_STRIPE_SECRET_KEY: 'sk_test_screens', SEATMAP_STRIPE_WEBHOOK_SECRET: SECRET,
  SEATMAP_STRIPE_API_URL: `http://127.0.0.1:${standinPort}`,
};
delete env.DATABASE_URL;
execFileSync(binary, ['staff', 'add', STAFF[0]], { env, input: `${STAFF[1]}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
const standin = spawn(standinBinary, ['--listen', `127.0.0.1:${standinPort}`, '--webhook-secret', SECRET,
  '--webhook-url', `${base}/payments/stripe/webhook`], { stdio: ['ignore', 'ignore', 'inherit'] });
const server = spawn(binary, [], { env, stdio: ['ignore', 'ignore', 'inherit'] });
for (let i = 0; i < 600; i++) {
  try { if ((await fetch(`${base}/readyz`)).ok) break; } catch {}
  await new Promise((r) => setTimeout(r, 200));
}

const jpeg = process.env.FORMAT === 'jpeg';
async function shoot(page, name, width) {
  const file = join(out, `${name}-${width}.${jpeg ? 'jpg' : 'png'}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: file, type: jpeg ? 'jpeg' : 'png', ...(jpeg ? { quality: 72 } : {}) });
  console.log(file);
}

const seat = (page, row, n) => page.getByRole('button', { name: new RegExp(`^Orchestra, row ${row}, seat ${n}, `) });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
try {
  const staff = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await staff.goto(`${base}/staff/login`);
  await staff.getByLabel('Name').fill(STAFF[0]);
  await staff.getByLabel('Password').fill(STAFF[1]);
  await staff.getByRole('button', { name: 'Sign in' }).click();
  await staff.getByRole('link', { name: /Demo Night/ }).first().click();
  const consoleUrl = staff.url();
  const setMode = async (label) => {
    await staff.goto(consoleUrl);
    await staff.getByLabel(label).check();
    await staff.getByRole('button', { name: 'Save payment' }).click();
  };
  await setMode('Online, by card (Stripe Checkout)');
  let row = 0;
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: width.viewport, isMobile: width.isMobile, hasTouch: width.hasTouch });
    const page = await context.newPage();
    const r = ['L', 'M'][row++];
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: /Demo Night/ }).click();
    await seat(page, r, 8).press('Enter');
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.locator('.buy-form').scrollIntoViewIfNeeded();
    await shoot(page, 'pay-hold-panel', width.name);
    await page.getByRole('button', { name: /^Pay €/ }).click();
    await page.waitForURL(/\/c\/pay\//);
    await shoot(page, 'pay-standin', width.name);
    await page.getByRole('link', { name: 'Cancel and go back' }).click();
    await page.getByRole('heading', { name: 'Payment not made' }).waitFor();
    await shoot(page, 'pay-order-pending', width.name);
    await page.goto(page.url().replace('payment=cancelled', 'payment=returned'));
    await shoot(page, 'pay-order-waiting', width.name);
    await page.goto(page.url().replace('payment=returned', 'payment=cancelled'));
    await page.getByRole('button', { name: /^Pay €/ }).click();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await shoot(page, 'pay-order-paid', width.name);
    await context.close();
  }
  await setMode('Reserve online, pay at the box office');
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: width.viewport, isMobile: width.isMobile, hasTouch: width.hasTouch });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: /Demo Night/ }).click();
    await seat(page, 'N', width.name === '1440' ? 4 : 5).press('Enter');
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByRole('button', { name: /^Reserve, pay/ }).click();
    await page.getByRole('heading', { name: 'Reserved: pay at the box office' }).waitFor();
    await shoot(page, 'pay-order-reserved', width.name);
    await context.close();
  }
  await staff.goto(`${consoleUrl}?q=`);
  await staff.locator('#payment').scrollIntoViewIfNeeded();
  await shoot(staff, 'staff-payment-section', '1440');
  await staff.locator('#payment').getByRole('link').first().click();
  await shoot(staff, 'staff-order-reserved', '1440');
  await staff.getByRole('button', { name: 'Paid in cash' }).click();
  await shoot(staff, 'staff-order-paid-at-counter', '1440');
  // The same staff pages on a phone: the other reservation is still waiting.
  await staff.setViewportSize({ width: 390, height: 844 });
  await staff.goto(`${consoleUrl}?q=`);
  await staff.locator('#payment').scrollIntoViewIfNeeded();
  await shoot(staff, 'staff-payment-section', '390');
  await staff.locator('#payment').getByRole('link').first().click();
  await shoot(staff, 'staff-order-reserved', '390');
} finally {
  await browser.close();
  server.kill('SIGTERM');
  standin.kill('SIGTERM');
}

// The buyer pages' browser budget, measured in headless Debian Chromium:
// bytes over the wire for the first view, DOM elements, the longest
// main-thread task while loading, and the time from clicking a seat to the
// hold panel showing it (desktop, then with the CPU slowed 4×).
//
//   cargo build --release
//   node tests/e2e/bench/browser-budget.mjs            # or SEATMAP_BIN=...
//
// It starts its own server (embedded PostgreSQL in a fresh folder), so
// nothing else on the machine is touched. Each number is the median of
// RUNS fresh browser contexts; timings are printed, never asserted.
import { chromium } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, chmodSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const binary = process.env.SEATMAP_BIN
  ?? [join(root, 'target/release/seatmap'), join(root, 'target/debug/seatmap')].find(existsSync);
if (!binary) throw new Error('no seatmap binary: run cargo build --release (or set SEATMAP_BIN)');
const RUNS = Number(process.env.RUNS ?? 5);
const port = Number(process.env.PORT ?? 3290);
const base = `http://127.0.0.1:${port}`;
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const STAFF = ['budget-staff', 'a long box-office password'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function waitUp() {
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/api/events`)).ok) return; } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

/** The arena event: seeded by newer builds; imported through the staff pages otherwise. */
async function arenaEventId(browser) {
  const events = await (await fetch(`${base}/api/events`)).json();
  const list = events.events ?? events;
  const seeded = list.find((e) => /arena/i.test(e.venue ?? '') || /arena/i.test(e.name));
  if (seeded) return seeded.id;
  const page = await (await browser.newContext({ baseURL: base })).newPage();
  await page.goto('/staff/login?next=/staff/venues');
  await page.getByLabel('Name').fill(STAFF[0]);
  await page.getByLabel('Password').fill(STAFF[1]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const file = process.env.ARENA_LAYOUT ?? ['arena-20000.json', 'arena-20000.csv'].map((f) => join(root, 'static/layouts', f)).find(existsSync);
  await page.getByLabel('Layout file').setInputFiles({ name: file.split('/').pop(), mimeType: 'text/plain', buffer: readFileSync(file) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByLabel('Event name').fill('Budget Arena');
  await page.getByLabel(/^Starts/).fill('2099-06-01T20:00');
  const prices = page.getByRole('group', { name: /^Prices/ }).getByRole('textbox');
  for (let i = 0; i < await prices.count(); i++) await prices.nth(i).fill(String(45 + 10 * i));
  await page.getByRole('button', { name: 'Create event' }).click();
  await page.waitForURL(/\/staff\/events\/\d+$/);
  const id = Number(page.url().split('/').pop());
  await page.context().close();
  return id;
}

/** One fresh visit: first-view bytes, DOM size, longest load task, and click → mine. */
async function visit(browser, url, cpuSlowdown, seatIndex) {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
  if (cpuSlowdown > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('html[data-live="open"]', { timeout: 60_000 }).catch(() => {});
  await page.waitForTimeout(500);
  const firstView = { bytes, dom: await page.evaluate(() => document.getElementsByTagName('*').length),
    longest: await page.evaluate(() => window.__longest) };
  // A big venue opens on an overview: the click is then made in the
  // first section it links to, as a buyer would.
  const sectionLink = page.locator('a.overview__section').first();
  if (await sectionLink.count()) {
    await sectionLink.click();
    await page.waitForSelector('button.seat--available');
    await page.waitForTimeout(300);
  }
  const clickToMine = await page.evaluate(async (index) => {
    const seats = document.querySelectorAll('button.seat--available:not(.seat--legend)');
    const seat = seats[Math.min(index, seats.length - 1)];
    const id = seat.id;
    const started = performance.now();
    return await new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error(`seat ${id} never showed as mine`)), 20000);
      const done = () => {
        const now = document.getElementById(id);
        const listed = document.querySelector(`#hold-panel button[name="release"][value="${now?.value}"]`);
        if (now && now.getAttribute('aria-pressed') === 'true' && listed) {
          observer.disconnect();
          // The frame that shows it.
          requestAnimationFrame(() => resolve(performance.now() - started));
        }
      };
      const observer = new MutationObserver(done);
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      seat.click();
    });
  }, seatIndex);
  await context.close();
  return { ...firstView, clickToMine };
}

const dataDir = mkdtempSync(join(tmpdir(), 'seatmap-budget-'));
chmodSync(dataDir, 0o755);
// Every visit is a new buyer from 127.0.0.1: the limits against hoarding
// would refuse the 21st hold, so they are off, as in the load tests.
const env = {
  ...process.env, SEATMAP_DATA_DIR: dataDir, SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'error',
  SEATMAP_MAX_HOLDS_PER_IP: '0', SEATMAP_HOLD_REQUESTS_PER_MINUTE: '0', SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP: '0',
};
delete env.DATABASE_URL;
execFileSync(binary, ['staff', 'add', STAFF[0]], { env, input: `${STAFF[1]}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
const server = spawn(binary, [], { env, stdio: ['ignore', 'ignore', 'inherit'] });
try {
  await waitUp();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  const events = await (await fetch(`${base}/api/events`)).json();
  const demo = (events.events ?? events).find((e) => /Demo Night/.test(e.name));
  const arena = await arenaEventId(browser);
  console.log(`binary ${binary}; median of ${RUNS} fresh visits each (1440×900)`);
  console.log('page          cpu  first-view bytes  DOM elements  longest task ms  click→mine ms');
  for (const [name, id] of [['demo', demo.id], ['arena', arena]]) {
    for (const cpu of [1, 4]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await visit(browser, `/events/${id}`, cpu, 3 * i));
      const m = (k) => median(runs.map((r) => r[k]));
      console.log(`${name.padEnd(12)} ${String(cpu).padStart(3)}×  ${String(Math.round(m('bytes'))).padStart(16)}  ${String(m('dom')).padStart(12)}  ${m('longest').toFixed(0).padStart(15)}  ${m('clickToMine').toFixed(0).padStart(13)}`);
    }
  }
  await browser.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

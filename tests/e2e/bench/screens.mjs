// Screenshots of every buyer and staff page at 1440×900 and 390×844
// (touch), in headless Debian Chromium, for a person to read: the README
// and docs/ show some of them, and a change to a page is looked at here
// before it is called done.
//
//   cargo build
//   node tests/e2e/bench/screens.mjs [out-dir]     # default /tmp/seatmap-screens
//   FORMAT=jpeg node tests/e2e/bench/screens.mjs docs/screens   # the set docs/screens.md shows
//
// It starts its own server (embedded PostgreSQL in a fresh folder), buys
// one order so the after-sale pages have something to show, and names each
// file <page>-<width>.png. ONLY=substring limits it to matching pages.
import { chromium } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const binary = process.env.SEATMAP_BIN
  ?? [join(root, 'target/debug/seatmap'), join(root, 'target/release/seatmap')].find(existsSync);
if (!binary) throw new Error('no seatmap binary: run cargo build (or set SEATMAP_BIN)');
const out = process.argv[2] ?? '/tmp/seatmap-screens';
mkdirSync(out, { recursive: true });
const port = Number(process.env.PORT ?? 3291);
const base = `http://127.0.0.1:${port}`;
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const STAFF = ['screens-staff', 'a long box-office password'];
const only = process.env.ONLY;
const WIDTHS = [
  { name: '1440', viewport: { width: 1440, height: 900 }, isMobile: false, hasTouch: false },
  { name: '390', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
];

async function waitUp() {
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/readyz`)).ok) return; } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

const FORMAT = process.env.FORMAT === 'jpeg' ? 'jpeg' : 'png';
async function shoot(page, name, width, { full = false } = {}) {
  // The jpeg set (for docs/) leaves out the full-page views.
  if (full && FORMAT === 'jpeg') return;
  const file = join(out, `${name}-${width}.${FORMAT === 'jpeg' ? 'jpg' : 'png'}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: file, fullPage: full, type: FORMAT, ...(FORMAT === 'jpeg' ? { quality: 72 } : {}) });
  console.log(file);
}

const dataDir = mkdtempSync(join(tmpdir(), 'seatmap-screens-'));
chmodSync(dataDir, 0o755);
// The arena's waiting room opens at once here, so its map is what the
// arena's shots show; the waiting room's own shots put a queue on the demo.
const env = { ...process.env, SEATMAP_DATA_DIR: dataDir, SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'error', SEATMAP_DEMO_QUEUE_OPENS_SECS: '0' };
delete env.DATABASE_URL;
execFileSync(binary, ['staff', 'add', STAFF[0], '--role', 'admin'], { env, input: `${STAFF[1]}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
const server = spawn(binary, [], { env, stdio: ['ignore', 'ignore', 'inherit'] });
try {
  await waitUp();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  const events = await (await fetch(`${base}/api/events`)).json();
  const list = events.events ?? events;
  const demo = list.find((e) => /Demo Night/.test(e.name)).id;
  const arena = list.find((e) => /arena/i.test(e.venue ?? '') || /arena/i.test(e.name)).id;

  for (const width of WIDTHS) {
    const want = (name) => !only || name.includes(only);
    const buyer = await browser.newContext({ baseURL: base, ...width });
    const page = await buyer.newPage();
    if (want('demo-map')) {
      await page.goto(`/events/${demo}`);
      await shoot(page, 'demo-map', width.name);
      await shoot(page, 'demo-map-full', width.name, { full: true });
    }
    if (want('demo-map-de')) {
      // The same map for a buyer whose browser asks for German.
      const german = await browser.newContext({ baseURL: base, ...width, locale: 'de-DE' });
      const de = await german.newPage();
      await de.goto(`/events/${demo}`);
      await shoot(de, 'demo-map-de', width.name);
      await de.getByLabel('Im Rollstuhl').selectOption('1');
      await de.getByRole('button', { name: 'Plätze finden' }).click();
      await de.waitForSelector('#hold-panel .held-seats li');
      await shoot(de, 'demo-held-de', width.name);
      await german.close();
    }
    if (want('arena')) {
      await page.goto(`/events/${arena}`);
      await shoot(page, 'arena-overview', width.name);
      const section = page.locator('a.overview__section').first();
      await page.goto(await section.getAttribute('href'));
      await shoot(page, 'arena-section', width.name);
      await page.goto(`/events/${arena}?section=` + new URL(await page.locator('a.overview__section').nth(5).getAttribute('href') ?? '', base).searchParams.get('section'));
      await shoot(page, 'arena-section-turned', width.name);
    }
    if (want('demo-held') || want('order') || want('ticket') || want('my-orders') || want('staff')) {
      await page.goto(`/events/${demo}`);
      await page.locator('#best-count').selectOption('4').catch(() => page.locator('#best-count').fill('4'));
      await page.getByRole('button', { name: 'Find seats' }).click();
      await page.locator('#hold-panel .countdown').waitFor();
      await shoot(page, 'demo-held', width.name);
      await page.locator('#buyer-name').scrollIntoViewIfNeeded();
      await shoot(page, 'demo-checkout', width.name);
      await page.locator('#buyer-name').fill('Ada Lovelace');
      await page.locator('#buyer-email').fill('ada@example.com');
      await page.getByRole('button', { name: /^Buy for/ }).click();
      await page.waitForURL(/\/orders\//);
      await shoot(page, 'order', width.name);
      await shoot(page, 'order-full', width.name, { full: true });
      const ticket = page.locator('a[href^="/tickets/"]').first();
      if (await ticket.count()) {
        await page.goto(await ticket.getAttribute('href'));
        await shoot(page, 'ticket', width.name);
      }
      await page.goto('/my/orders');
      await shoot(page, 'my-orders', width.name);
      await page.goto(`/events/${demo}/list`);
      await shoot(page, 'demo-list', width.name);
    }
    // The demo's season: a seat held in every concert, then bought.
    if (want('season')) {
      await page.goto('/');
      await page.getByRole('link', { name: /Winter Season/ }).click();
      const seat = width.name === '390' ? 'Orchestra, row G, seat 12, ' : 'Orchestra, row G, seat 11, ';
      // On a phone the first tap zooms the map in; the next one picks.
      const button = page.getByRole('button', { name: new RegExp(`^${seat}`) });
      await button.click();
      if (width.name === '390') {
        await page.waitForTimeout(500);
        if (!(await page.locator('#hold-panel .countdown').count())) await button.click();
      }
      await page.locator('#hold-panel .countdown').waitFor();
      await shoot(page, 'season-held', width.name);
      await page.getByLabel('Name', { exact: true }).fill('Clara Schumann');
      await page.getByLabel('Email', { exact: true }).fill('clara@example.com');
      await page.getByRole('button', { name: 'Buy the season' }).click();
      await page.waitForURL(/\/orders\//);
      await page.locator('.ticket[data-night]').first().scrollIntoViewIfNeeded();
      await shoot(page, 'season-order', width.name);
    }
    await buyer.close();

    const staff = await browser.newContext({ baseURL: base, ...width });
    const desk = await staff.newPage();
    await desk.goto('/staff/login');
    if (want('staff-login')) await shoot(desk, 'staff-login', width.name);
    await desk.getByLabel('Name').fill(STAFF[0]);
    await desk.getByLabel('Password').fill(STAFF[1]);
    await desk.getByRole('button', { name: 'Sign in' }).click();
    await desk.waitForURL(/\/staff/);
    const pages = [
      ['staff-index', '/staff'],
      ['staff-console', `/staff/events/${demo}`],
      ['staff-console-arena', `/staff/events/${arena}`],
      ['staff-walk-up', `/staff/events/${demo}/walk-up`],
      ['staff-door', `/staff/events/${demo}/door`],
      ['staff-mail', `/staff/events/${demo}/mail`],
      ['staff-report', `/staff/events/${demo}/report`],
      ['staff-accessible', `/staff/events/${demo}#accessible-seating`],
      ['staff-report-accessible', `/staff/events/${demo}/report#accessible-counts-heading`],
      ['staff-venues', '/staff/venues'],
      ['staff-venue', '/staff/venues/1'],
      ['staff-webhooks', '/staff/webhooks'],
      ['staff-accounts', '/staff/accounts'],
      ['staff-seasons', '/staff/seasons'],
    ];
    for (const [name, path] of pages) {
      if (!want(name)) continue;
      await desk.goto(path);
      await shoot(desk, name, width.name);
    }
    // The designer: the seeded arena (the only venue), and a new venue.
    for (const [name, path] of [['staff-preview-arena', '/staff/venues/1/preview'], ['staff-preview-section', '/staff/venues/1/preview?section=6']]) {
      if (!want(name)) continue;
      await desk.goto(path);
      await shoot(desk, name, width.name);
    }
    for (const [name, path] of [['staff-designer-arena', '/staff/venues/1/edit'], ['staff-designer-new', '/staff/venues/new']]) {
      if (!want(name)) continue;
      await desk.goto(path);
      await desk.waitForSelector('[data-designer]:not([hidden]) [data-status]:not(:empty)');
      await shoot(desk, name, width.name);
    }
    // The door with the network gone: a scan checked against the list
    // this device keeps.
    if (want('staff-door-offline')) {
      await desk.goto(`/staff/events/${demo}/door?gate=North`);
      await desk.waitForSelector('[data-door-offline][data-door-cached=yes]');
      await staff.setOffline(true);
      await desk.waitForSelector('[data-door-offline][data-door-state=offline]');
      await desk.getByLabel('Ticket code').fill('A'.repeat(32));
      await desk.getByRole('button', { name: 'Check ticket' }).click();
      await desk.waitForSelector('#door-result.door-result--refuse');
      await shoot(desk, 'staff-door-offline', width.name);
      await staff.setOffline(false);
    }
    if (want('staff-order')) {
      await desk.goto(`/staff/events/${demo}`);
      const order = desk.locator('a[href*="/staff/orders/"], a[href*="/orders/"]').first();
      if (await order.count()) {
        await desk.goto(await order.getAttribute('href'));
        await shoot(desk, 'staff-order', width.name);
      }
    }
    if (want('queue')) {
      // The demo behind a waiting room opening in ten minutes: the page
      // before joining, then a place in line; then the queue is off again.
      const opensAt = new Date(Date.now() + 10 * 60 * 1000).toISOString();
      const put = await desk.request.put(`/api/staff/events/${demo}/queue`, {
        data: { opens_at: opensAt, admit_per_minute: 600, window_minutes: 15 },
      });
      if (!put.ok()) throw new Error(`putting the queue: ${put.status()} ${await put.text()}`);
      await desk.goto(`/staff/events/${demo}#waiting-room`);
      await shoot(desk, 'staff-queue', width.name);
      const visitor = await browser.newContext({ baseURL: base, ...width });
      const line = await visitor.newPage();
      await line.goto(`/events/${demo}`);
      await shoot(line, 'queue-join', width.name);
      await line.getByRole('button', { name: 'Join the queue' }).click();
      await line.waitForSelector('[data-queue-position]');
      await shoot(line, 'queue-waiting', width.name);
      await visitor.close();
      await desk.request.delete(`/api/staff/events/${demo}/queue`);
    }
    await staff.close();
  }
  await browser.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

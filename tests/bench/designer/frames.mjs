// The designer on the 20,000-seat arena, in headless Debian Chromium:
// how long it takes to open, the frame times while a section is dragged
// and while one is turned (requestAnimationFrame deltas), and how long a
// save takes from the click to the 200. Prints numbers; asserts nothing
// (the machines are shared; see docs/performance.md). Headless Chromium
// draws at 60 Hz, so a frame on time is 16.7 ms: the long-task count says
// whether any frame's work overran.
//
//   cargo build            (or --release, and SEATMAP_BIN=target/release/seatmap)
//   (cd tests/e2e && npm ci)   # Playwright, which this borrows
//   node tests/bench/designer/frames.mjs [runs]
import { chromium } from '../../e2e/node_modules/@playwright/test/index.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const binary = process.env.SEATMAP_BIN
  ?? [join(root, 'target/debug/seatmap'), join(root, 'target/release/seatmap')].find(existsSync);
if (!binary) throw new Error('no seatmap binary: run cargo build (or set SEATMAP_BIN)');
const runs = Number(process.argv[2] ?? 3);
const port = Number(process.env.PORT ?? 3293);
const base = `http://127.0.0.1:${port}`;
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const STAFF = ['bench-staff', 'a long box-office password'];

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const p95 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]; };
const fmt = (x) => x.toFixed(1);

const dataDir = mkdtempSync(join(tmpdir(), 'seatmap-designer-bench-'));
chmodSync(dataDir, 0o755);
const env = { ...process.env, SEATMAP_DATA_DIR: dataDir, SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'error' };
delete env.DATABASE_URL;
execFileSync(binary, ['staff', 'add', STAFF[0]], { env, input: `${STAFF[1]}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
const server = spawn(binary, [], { env, stdio: ['ignore', 'ignore', 'inherit'] });

async function waitUp() {
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/readyz`)).ok) return; } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

/** Frame deltas (ms) while `act` runs, and the long tasks (over 50 ms,
 * the browser's own measure of jank) in the same time. */
async function frames(page, act) {
  await page.evaluate(() => {
    window.__long = 0;
    window.__observer?.disconnect();
    window.__observer = new PerformanceObserver((list) => { window.__long += list.getEntries().length; });
    window.__observer.observe({ type: 'longtask' });
    window.__frames = [];
    let last = performance.now();
    const tick = (now) => { window.__frames.push(now - last); last = now; if (window.__recording) requestAnimationFrame(tick); };
    window.__recording = true;
    requestAnimationFrame(tick);
  });
  await act();
  const [deltas, long] = await page.evaluate(() => { window.__recording = false; return [window.__frames.slice(1), window.__long]; });
  longTasks.push(long);
  return deltas;
}
const longTasks = [];

async function drag(page, from, dx, dy, steps) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(from.x + (dx * i) / steps, from.y + (dy * i) / steps);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  await page.mouse.up();
}

try {
  await waitUp();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${base}/staff/login`);
  await page.getByLabel('Name').fill(STAFF[0]);
  await page.getByLabel('Password').fill(STAFF[1]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/staff/);
  const result = { open: [], openScript: [], dragFrames: [], turnFrames: [], save: [] };
  for (let run = 1; run <= runs; run++) {
    const started = Date.now();
    await page.goto(`${base}/staff/venues/1/edit`);
    await page.waitForSelector('[data-designer]:not([hidden]) [data-status]:not(:empty)');
    result.open.push(Date.now() - started);
    result.openScript.push(Number(await page.locator('[data-designer]').getAttribute('data-loaded-ms')));

    // Drag a section (by its first seat) 200 px across.
    const grip = page.locator('circle[data-s="0"][data-r="0"][data-p="0"]');
    const box = await grip.boundingBox();
    result.dragFrames.push(...await frames(page, () => drag(page, { x: box.x + box.width / 2, y: box.y + box.height / 2 }, 200, 40, 60)));
    // Turn it by its handle.
    const handle = page.locator('[data-handle="0"]');
    const h = await handle.boundingBox();
    result.turnFrames.push(...await frames(page, () => drag(page, { x: h.x + h.width / 2, y: h.y + h.height / 2 }, 120, 60, 60)));

    // Back where it was (moved, it may overlap a neighbour, which the
    // server refuses), then saved: the whole arena goes up either way.
    await page.locator('[data-canvas]').focus();
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    const clicked = Date.now();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForFunction(() => /Saved as version|Not saved|problem/.test(document.querySelector('[data-status]').textContent));
    const said = await page.locator('[data-status]').textContent();
    if (!/Saved as version/.test(said)) throw new Error(`the save failed: ${said}`);
    result.save.push(Date.now() - clicked);
  }
  console.log(`designer on the arena (20,000 seats), ${runs} runs, ${binary}`);
  console.log(`  open (navigation to drawn): median ${median(result.open)} ms; the script's own fetch-and-draw: median ${median(result.openScript)} ms`);
  console.log(`  drag a section: ${result.dragFrames.length} frames, median ${fmt(median(result.dragFrames))} ms, p95 ${fmt(p95(result.dragFrames))} ms`);
  console.log(`  turn a section: ${result.turnFrames.length} frames, median ${fmt(median(result.turnFrames))} ms, p95 ${fmt(p95(result.turnFrames))} ms`);
  console.log(`  long tasks (over 50 ms) while dragging and turning: ${longTasks.join(', ')}`);
  console.log(`  save (click to 200): median ${median(result.save)} ms (${result.save.join(', ')})`);
  await browser.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

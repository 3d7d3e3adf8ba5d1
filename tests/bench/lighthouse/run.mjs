// Lighthouse's mobile profile (simulated slow 4G, 4× CPU slowdown) on the
// demo map and one arena section page, in Debian's Chromium. A benchmark:
// it prints scores, asserts nothing, and is not run in CI.
//
//   cargo build --release
//   cd tests/bench/lighthouse && npm install && node run.mjs
//
// SEATMAP_BIN picks another build (say, main's, for a before/after);
// RUNS (default 3) sets how many runs each page gets; the median score is
// printed with the spread. It starts its own server on an embedded
// PostgreSQL in a fresh folder, so nothing else on the machine is touched.
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const binary = process.env.SEATMAP_BIN
  ?? [join(root, 'target/release/seatmap'), join(root, 'target/debug/seatmap')].find(existsSync);
if (!binary) throw new Error('no seatmap binary: run cargo build --release (or set SEATMAP_BIN)');
const RUNS = Number(process.env.RUNS ?? 3);
const port = Number(process.env.PORT ?? 3292);
const base = `http://127.0.0.1:${port}`;
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function waitUp() {
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/readyz`)).ok) return; } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

/** The arena event's first section page, found the way a buyer finds it. */
async function arenaSectionUrl() {
  const events = await (await fetch(`${base}/api/events`)).json();
  const arena = (events.events ?? events).find((e) => /arena/i.test(e.venue ?? '') || /arena/i.test(e.name));
  const html = await (await fetch(`${base}/events/${arena.id}`)).text();
  const href = html.match(/class="overview__section[^"]*"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*class="overview__section/);
  if (!href) throw new Error('the arena overview links no section');
  return { overview: `${base}/events/${arena.id}`, section: new URL((href[1] ?? href[2]).replaceAll('&amp;', '&'), base).href };
}

const dataDir = mkdtempSync(join(tmpdir(), 'seatmap-lighthouse-'));
chmodSync(dataDir, 0o755);
// Every run is a new buyer from 127.0.0.1; the limits against hoarding are
// off, as in the load tests (Lighthouse holds nothing, but loads pages often).
const env = {
  ...process.env, SEATMAP_DATA_DIR: dataDir, SEATMAP_ADDR: `127.0.0.1:${port}`, RUST_LOG: 'error',
  SEATMAP_MAX_HOLDS_PER_IP: '0', SEATMAP_HOLD_REQUESTS_PER_MINUTE: '0', SEATMAP_HOLD_REQUESTS_PER_MINUTE_PER_IP: '0',
};
delete env.DATABASE_URL;
const server = spawn(binary, [], { env, stdio: ['ignore', 'ignore', 'inherit'] });
let chrome;
try {
  await waitUp();
  const events = await (await fetch(`${base}/api/events`)).json();
  const demo = (events.events ?? events).find((e) => /Demo Night/.test(e.name));
  const arena = await arenaSectionUrl();
  const pages = [
    ['demo map', `${base}/events/${demo.id}`],
    ['arena overview', arena.overview],
    ['arena section', arena.section],
  ];
  chrome = await chromeLauncher.launch({ chromePath: '/usr/bin/chromium', chromeFlags: FLAGS });
  console.log(`binary ${binary}; Lighthouse mobile profile, median of ${RUNS} runs (min–max)`);
  console.log('page             performance   accessibility  best-practices  TBT ms        LCP ms');
  for (const [name, url] of pages) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
      const lhr = result.lhr;
      if (lhr.runtimeError || lhr.categories.performance.score === null) {
        console.log(`${name}: run ${i + 1} failed (${lhr.runtimeError?.code ?? 'no score'}); not counted`);
        continue;
      }
      runs.push({
        performance: Math.round(lhr.categories.performance.score * 100),
        accessibility: Math.round(lhr.categories.accessibility.score * 100),
        'best-practices': Math.round(lhr.categories['best-practices'].score * 100),
        tbt: lhr.audits['total-blocking-time'].numericValue,
        lcp: lhr.audits['largest-contentful-paint'].numericValue,
        failed: Object.values(lhr.audits)
          .filter((a) => a.score !== null && a.score < 1 && ['accessibility', 'best-practices'].some((c) => lhr.categories[c].auditRefs.some((r) => r.id === a.id && r.weight > 0)))
          .map((a) => a.id),
      });
    }
    const cell = (k, w) => {
      const xs = runs.map((r) => r[k]);
      return `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`.padEnd(w);
    };
    console.log(`${name.padEnd(16)} ${cell('performance', 13)} ${cell('accessibility', 14)} ${cell('best-practices', 15)} ${cell('tbt', 13)} ${cell('lcp', 13)}`);
    const failed = [...new Set(runs.flatMap((r) => r.failed))];
    if (failed.length) console.log(`${''.padEnd(16)} below full marks: ${failed.join(', ')}`);
  }
} finally {
  if (chrome) await chrome.kill();
  server.kill('SIGTERM');
  await new Promise((r) => server.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

import { APIRequestContext, Browser, BrowserContext, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { signInStaff } from './helpers';

// The door with no network: two gates (two devices, each its own browser
// context) keep the door list, go offline, both let the same ticket in,
// come back online and sync. The server holds one admission and both
// gates show the conflict. Balcony row D is this file's.

async function buyCodes(request: APIRequestContext, numbers: string[]): Promise<string[]> {
  const listing = await (await request.get('/api/events/1/seats')).json();
  const ids = (listing.seats as any[])
    .filter((s) => s.section === 'Balcony' && s.row === 'D' && numbers.includes(s.number))
    .map((s) => s.id);
  expect(ids, 'Balcony row D seats').toHaveLength(numbers.length);
  const held = await request.post('/api/events/1/holds', { data: { seat_ids: ids } });
  expect(held.status(), await held.text()).toBe(201);
  const hold = await held.json();
  const bought = await request.post(`/api/holds/${hold.hold_id}/purchase`, {
    data: { name: 'Grace Hopper', email: 'grace@example.com' },
  });
  expect(bought.status(), await bought.text()).toBe(201);
  return ((await bought.json()).tickets as any[]).map((t) => t.code);
}

async function gate(browser: Browser, name: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInStaff(page, '/staff/events/1/door');
  await page.goto(`/staff/events/1/door?gate=${encodeURIComponent(name)}`);
  const root = page.locator('[data-door-offline]');
  // The list is kept, and the page with it, before the network goes.
  await expect(page.locator('[data-door-network]')).toContainText(/Online · door list from \d\d:\d\d kept on this device/);
  await expect(root).toHaveAttribute('data-door-cached', 'yes');
  return { context, page };
}

async function scan(page: Page, code: string) {
  await page.getByLabel('Ticket code').fill(code);
  await page.getByRole('button', { name: 'Check ticket' }).click();
}

test('two gates offline admit one code; after syncing the server holds one admission and both show the conflict', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const [code, other] = await buyCodes(request, ['1', '2']);
  const a = await gate(browser, 'Gate A');
  const b = await gate(browser, 'Gate B');

  await a.context.setOffline(true);
  await b.context.setOffline(true);
  for (const g of [a, b]) {
    await expect(g.page.locator('[data-door-network]')).toContainText(/Offline: checking against the list from \d\d:\d\d/);
  }

  await scan(a.page, code);
  await expect(a.page.locator('#door-result')).toContainText('Admit — Balcony, row D, seat 1');
  await expect(a.page.locator('#door-result')).toHaveClass(/door-result--admit/);
  // The same device never admits a code twice.
  await scan(a.page, code);
  await expect(a.page.locator('#door-result')).toContainText(/Already admitted at \d\d:\d\d at Gate A/);
  await expect(a.page.locator('#door-result')).toHaveClass(/door-result--refuse/);
  // Gate B doesn't know: it admits the same code, typed in lower case with
  // a zero for each O and a one for each I.
  await scan(b.page, code.toLowerCase().replace(/o/g, '0').replace(/i/g, '1'));
  await expect(b.page.locator('#door-result')).toContainText('Admit — Balcony, row D, seat 1');
  // A code no ticket has is refused offline too.
  await scan(b.page, 'A'.repeat(32));
  await expect(b.page.locator('#door-result')).toContainText('Unknown ticket');
  await expect(a.page.locator('[data-door-network]')).toContainText('1 scan waiting to be sent');

  await expect(b.page.locator('[data-door-network]')).toContainText('1 scan waiting to be sent');

  await a.context.setOffline(false);
  await expect(a.page.locator('[data-door-offline]')).toHaveAttribute('data-door-queue', '0', { timeout: 20_000 });
  // Gate A's admission reached the server; Gate B's hasn't yet.
  const staffApi = a.context.request;
  const between = await (await staffApi.get('/api/staff/events/1/door-list')).json();
  const seatOne = (between.tickets as any[]).find((t) => t.place === 'Balcony, row D, seat 1');
  expect(seatOne.state).toBe('admitted');
  expect(seatOne.gate).toBe('Gate A');
  expect(between.conflicts.map((c: any) => c.place)).not.toContain('Balcony, row D, seat 1');
  await b.context.setOffline(false);
  await expect(b.page.locator('[data-door-offline]')).toHaveAttribute('data-door-queue', '0', { timeout: 20_000 });

  // Both gates show the conflict: B from its sync's answer, A from its
  // next door list.
  const conflict = /Admitted twice: Balcony, row D, seat 1 — Gate A \d\d:\d\d, Gate B \d\d:\d\d/;
  await expect(b.page.locator('[data-door-conflicts]')).toContainText(conflict);
  // A hears of it with its next list (every 15 s).
  await expect(a.page.locator('[data-door-conflicts]')).toContainText(conflict, { timeout: 40_000 });

  // The server holds one admission of the ticket, Gate A's.
  const list = await (await staffApi.get('/api/staff/events/1/door-list')).json();
  const admitted = (list.tickets as any[]).filter((t) => t.place === 'Balcony, row D, seat 1');
  expect(admitted).toHaveLength(1);
  expect(admitted[0].state).toBe('admitted');
  expect(admitted[0].gate).toBe('Gate A');
  // The other ticket was never scanned.
  expect((list.tickets as any[]).find((t) => t.place === 'Balcony, row D, seat 2').state).toBe('valid');
  expect(other).toMatch(/^[A-Z2-7]{32}$/);
  await a.context.close();
  await b.context.close();
});

test('an offline queue survives a reload with no network, and is sent once the network is back', async ({ browser, request }) => {
  const [code] = await buyCodes(request, ['3']);
  const g = await gate(browser, 'Gate C');
  await g.context.setOffline(true);
  await scan(g.page, code);
  await expect(g.page.locator('#door-result')).toContainText('Admit — Balcony, row D, seat 3');
  await expect(g.page.locator('[data-door-network]')).toContainText('1 scan waiting to be sent');

  // Still offline: the service worker gives the page back, and the queue
  // and the list are still on the device. setOffline may not reach the
  // worker's own fetches (it tries the network first), so the server is
  // made unreachable for them too: every request of the context, the
  // worker's included, is refused; only the worker's cache can answer.
  await g.context.route('**/*', (route) => route.abort('internetdisconnected'));
  const reloaded = await g.page.reload();
  expect(reloaded?.fromServiceWorker(), 'the service worker gave the page back').toBe(true);
  await expect(g.page.getByRole('heading', { name: /^Door: .*Demo Night$/ })).toBeVisible();
  await expect(g.page.locator('[data-door-network]')).toContainText(/Offline: checking against the list from \d\d:\d\d · 1 scan waiting to be sent/);
  await scan(g.page, code);
  await expect(g.page.locator('#door-result')).toContainText(/Already admitted at \d\d:\d\d at Gate C/);

  await g.context.unrouteAll();
  // The list fetched after the queue is sent is the one that would carry
  // a conflict: waited for, then the conflicts box is read.
  const refreshed = g.page.waitForResponse((r) => r.url().includes('/door-list') && r.ok(), { timeout: 30_000 });
  await g.context.setOffline(false);
  await expect(g.page.locator('[data-door-offline]')).toHaveAttribute('data-door-queue', '0', { timeout: 20_000 });
  await refreshed;
  const list = await (await g.context.request.get('/api/staff/events/1/door-list')).json();
  const ticket = (list.tickets as any[]).find((t) => t.place === 'Balcony, row D, seat 3');
  expect(ticket.state).toBe('admitted');
  expect(ticket.gate).toBe('Gate C');
  await expect(g.page.locator('[data-door-conflicts]')).not.toContainText('seat 3');
  await g.context.close();
});

import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { seat, signInStaff } from './helpers';

// A venue fix reaches an event on sale: staff move it to the venue's new
// version from the venue page, after a preview; a seat a buyer holds that
// the new version removes refuses the move, naming it; a held seat the
// new version keeps stays the buyer's; the new wheelchair row is on sale.

function hall(name: string, withFix: boolean) {
  const row = (label: string, y: number, count: number, flags: string[] = []) => ({
    label,
    seats: Array.from({ length: count }, (_, i) => ({ label: String(i + 1), tier: 'std', x: 30 * (i + 1), y, flags })),
  });
  const rows = [row('A', 0, 4), row('B', 30, withFix ? 3 : 4)];
  if (withFix) rows.push(row('W', 70, 2, ['wheelchair']));
  return {
    name,
    time_zone: 'Europe/Berlin',
    tiers: [{ code: 'std', name: 'Standard' }],
    sections: [{ name: 'Stalls', position: { x: 100, y: 200 }, rows }],
  };
}

async function api(page: Page, method: string, path: string, body: unknown, ifMatch?: string) {
  return page.evaluate(async ({ method, path, body, ifMatch }) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (ifMatch) headers['If-Match'] = ifMatch;
    const response = await fetch(path, { method, headers, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  }, { method, path, body, ifMatch });
}

test('move an event on sale to the venue\'s fixed version, after a preview', async ({ page, browser }) => {
  test.setTimeout(90_000);
  await signInStaff(page, '/staff/venues');
  const name = `Fix Hall ${Date.now()}`;
  const created = await api(page, 'POST', '/api/staff/venues', hall(name, false));
  expect(created.status).toBe(201);
  const venueId = created.body.id;

  await page.goto(`/staff/venues/${venueId}`);
  await page.getByLabel('Event name').fill('Fix Night');
  await page.getByLabel('Starts (Europe/Berlin time)').fill('2099-09-01T19:30');
  await page.getByRole('group', { name: 'Prices' }).getByRole('textbox').fill('20');
  await page.getByRole('button', { name: 'Create event' }).click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+$/);
  const eventId = page.url().split('/').pop();
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByRole('status')).toContainText('Published');

  // A buyer holds A1 (the fix keeps it) and B4 (the fix removes it).
  const buyerContext = await browser.newContext();
  const buyer = await buyerContext.newPage();
  await buyer.goto(`/events/${eventId}`);
  for (const [row, n] of [['A', 1], ['B', 4]] as const) {
    await seat(buyer, 'Stalls', row, n).click();
    await expect(seat(buyer, 'Stalls', row, n)).toHaveAccessibleName(/held by you$/);
  }

  const saved = await api(page, 'PUT', `/api/staff/venues/${venueId}/layout`, hall(name, true), '"v1"');
  expect(saved.status).toBe(200);
  await page.goto(`/staff/venues/${venueId}`);
  const events = page.getByRole('region', { name: 'Events here' });
  await expect(events).toContainText('Fix Night');
  await events.getByRole('link', { name: 'Move to version 2' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Move Fix Night to version 2');
  const refused = page.getByRole('alert');
  await expect(refused).toContainText("Can't move yet: 1 in use");
  await expect(refused).toContainText('Stalls B4 (held): removed');
  await expect(page.getByRole('button', { name: 'Move to version 2' })).toHaveCount(0);

  // Box office lets B4 go; the preview now offers the move.
  await page.goto(`/staff/events/${eventId}`);
  await page.getByRole('button', { name: 'Release Stalls, row B, seat 4' }).click();
  await expect(page.getByRole('status')).toContainText('Released');
  await page.goto(`/staff/events/${eventId}/move?version=2`);
  await expect(page.locator('.move-preview')).toContainText('7 seats kept');
  await expect(page.locator('.move-preview')).toContainText('2 seats added');
  await expect(page.locator('.move-preview')).toContainText('1 seat removed');
  await page.getByRole('button', { name: 'Move to version 2' }).click();
  await expect(page).toHaveURL(new RegExp(`/staff/events/${eventId}$`));
  await expect(page.getByRole('status')).toContainText('Moved to version 2: 7 seats kept, 2 seats added, 1 seat removed.');

  // The buyer still holds A1; B4 is gone; the wheelchair row is on sale.
  await buyer.reload();
  await expect(seat(buyer, 'Stalls', 'A', 1)).toHaveAccessibleName(/held by you$/);
  await expect(seat(buyer, 'Stalls', 'B', 4)).toHaveCount(0);
  await expect(seat(buyer, 'Stalls', 'W', 1)).toHaveAccessibleName(/wheelchair/i);
  await expect(seat(buyer, 'Stalls', 'W', 1)).toHaveAccessibleName(/available$/);
  await buyerContext.close();
});

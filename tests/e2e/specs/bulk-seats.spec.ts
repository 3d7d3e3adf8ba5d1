import { test, expect } from './fixtures';
import { seat, signInStaff } from './helpers';

// House seats in one action: staff choose seats on the console's map (a
// row by shift-click, more by dragging a box), block them for the press,
// and buyers see them taken.

test('choose seats on the console map and block them for a purpose', async ({ page, browser }) => {
  test.setTimeout(90_000);
  await signInStaff(page, '/staff/venues');
  const name = `Bulk Hall ${Date.now()}`;
  const row = (label: string, y: number) => ({
    label,
    seats: Array.from({ length: 6 }, (_, i) => ({ label: String(i + 1), tier: 'std', x: 40 * (i + 1), y })),
  });
  const created = await page.evaluate(async (layout) => {
    const response = await fetch('/api/staff/venues', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(layout),
    });
    return { status: response.status, body: await response.json() };
  }, { name, tiers: [{ code: 'std', name: 'Standard' }], sections: [{ name: 'Stalls', position: { x: 100, y: 200 }, rows: [row('A', 0), row('B', 40)] }] });
  expect(created.status).toBe(201);
  await page.goto(`/staff/venues/${created.body.id}`);
  await page.getByLabel('Event name').fill('Press Night');
  await page.getByLabel(/^Starts/).fill('2099-09-01T19:30');
  await page.getByRole('group', { name: 'Prices' }).getByRole('textbox').fill('20');
  await page.getByRole('button', { name: 'Create event' }).click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+$/);
  const eventId = page.url().split('/').pop();
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByRole('status')).toContainText('Published');

  const bulk = page.getByRole('region', { name: 'Several seats at once' });
  await bulk.getByRole('button', { name: 'Choose seats on the map' }).click();
  await seat(page, 'Stalls', 'A', 1).click();
  await seat(page, 'Stalls', 'A', 4).click({ modifiers: ['Shift'] });
  await expect(bulk).toContainText('4 seats chosen.');
  // A box around B5 and B6.
  const b5 = (await seat(page, 'Stalls', 'B', 5).boundingBox())!;
  const b6 = (await seat(page, 'Stalls', 'B', 6).boundingBox())!;
  await page.mouse.move(b5.x - 6, b5.y - 6);
  await page.mouse.down();
  await page.mouse.move(b6.x + b6.width + 6, b6.y + b6.height + 6, { steps: 5 });
  await page.mouse.up();
  await expect(bulk).toContainText('6 seats chosen.');
  await expect(seat(page, 'Stalls', 'B', 5)).toHaveAttribute('aria-pressed', 'true');
  await expect(seat(page, 'Stalls', 'A', 5)).toHaveAttribute('aria-pressed', 'false');
  await page.screenshot({ path: 'test-results/bulk-chosen-1440.png' });
  await bulk.getByLabel('Set aside for (when blocking)').fill('press');
  await bulk.getByRole('button', { name: 'Block', exact: true }).click();
  await expect(page.getByRole('status')).toContainText('Blocked 6 seats for press.');

  const buyerContext = await browser.newContext();
  const buyer = await buyerContext.newPage();
  await buyer.goto(`/events/${eventId}`);
  for (const [r, n] of [['A', 1], ['A', 3], ['B', 6]] as const) {
    await expect(seat(buyer, 'Stalls', r, n)).toHaveAccessibleName(/not for sale$/);
  }
  await expect(seat(buyer, 'Stalls', 'A', 5)).toHaveAccessibleName(/available$/);
  await buyerContext.close();
});

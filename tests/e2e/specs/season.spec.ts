import { test, expect } from './fixtures';

// Seasons (issue 50): a newcomer finds the demo's Winter Season on the
// list, holds a seat on the season's map (held in all three concerts at
// once), buys it, and the order lists a ticket for every night. Another
// buyer's map then shows the place sold.

test('a buyer holds a season seat on its map, buys it, and gets a ticket for every night', async ({ page, browser }) => {
  await page.goto('/');
  await page.getByRole('link', { name: /Winter Season/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Winter Season');
  // The nights are listed: three concerts.
  await expect(page.locator('[data-season-night]')).toHaveCount(3);

  const seat = page.getByRole('button', { name: /^Orchestra, row D, seat 5, / });
  await expect(seat).toHaveAttribute('aria-label', /available/i);
  await seat.click();
  await expect(page.locator('.notice')).toContainText('every night');
  await expect(page.locator('#hold-panel')).toContainText('Orchestra, row D, seat 5');
  await expect(page.locator('.countdown')).toBeVisible();
  await expect(page.getByRole('button', { name: /^Orchestra, row D, seat 5, / })).toHaveAttribute('data-state', 'mine');

  await page.getByLabel('Name', { exact: true }).fill('Clara Schumann');
  await page.getByLabel('Email', { exact: true }).fill(`clara.${Date.now()}@example.com`);
  await page.getByRole('button', { name: 'Buy the season' }).click();
  await expect(page.getByRole('heading', { name: 'Your tickets' })).toBeVisible();

  // One ticket per night, each naming its concert.
  const nights = page.locator('.ticket[data-night]');
  await expect(nights).toHaveCount(3);
  await expect(nights.nth(0)).toContainText('Beethoven');
  await expect(nights.nth(1)).toContainText('Brahms');
  await expect(nights.nth(2)).toContainText('Mahler');
  for (let i = 0; i < 3; i++) {
    await expect(nights.nth(i)).toContainText('Orchestra, row D, seat 5');
    await expect(nights.nth(i).locator('svg')).toBeVisible();
  }

  // Someone else's season map: the place is sold.
  const other = await browser.newContext();
  const them = await other.newPage();
  await them.goto(page.url().replace(/\/orders\/.*/, '/'));
  await them.getByRole('link', { name: /Winter Season/ }).click();
  await expect(them.getByRole('button', { name: /^Orchestra, row D, seat 5, / })).toHaveAttribute('data-state', 'sold');
  await other.close();
});

test('a subscriber gives one night back to sale, and only that night goes on sale', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: /Winter Season/ }).click();
  await page.getByRole('button', { name: /^Orchestra, row D, seat 7, / }).click();
  await expect(page.locator('#hold-panel')).toContainText('Orchestra, row D, seat 7');
  await page.getByLabel('Name', { exact: true }).fill('Robert Schumann');
  await page.getByLabel('Email', { exact: true }).fill(`robert.${Date.now()}@example.com`);
  await page.getByRole('button', { name: 'Buy the season' }).click();
  const nights = page.locator('.ticket[data-night]');
  await expect(nights).toHaveCount(3);
  await nights.nth(1).getByRole('button', { name: /give this night back to sale/i }).click();
  await expect(page.locator('.notice')).toContainText('Your other nights are unchanged');
  // The Brahms night is given back; the other two still get in.
  const released = page.locator('.ticket--released');
  await expect(released).toHaveCount(1);
  await expect(released).toContainText('Brahms');
  await expect(released.locator('.ticket__status')).toContainText('Given back to sale');
  await expect(page.locator('.ticket--valid')).toHaveCount(2);
  await expect(page.locator('main')).toContainText('2 valid tickets');
});

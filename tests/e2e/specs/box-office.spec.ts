import { test, expect } from './fixtures';
import { seat, signInStaff } from './helpers';

// The box office sells across the counter from the map, sees the total
// and tender before it sells, and reads every time in the venue's zone.

test('a walk-up sale picked on the map: the seats fill the form, the review shows the total and tender, and a refusal keeps what was typed', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Demo Night/ }).first().click();
  await page.getByRole('link', { name: 'Walk-up sale' }).click();
  // Row I of the Orchestra is no other spec's.
  for (const n of [9, 10]) {
    await seat(page, 'Orchestra', 'I', n).click();
    await expect(seat(page, 'Orchestra', 'I', n)).toHaveAttribute('aria-pressed', 'true');
  }
  const seats = page.getByLabel(/^Seats \(row and seat/);
  await expect(seats).toHaveValue('Orchestra I9, Orchestra I10');
  // Selected again, a seat comes out of the sale.
  await seat(page, 'Orchestra', 'I', 10).click();
  await expect(seats).toHaveValue('Orchestra I9');
  await seat(page, 'Orchestra', 'I', 10).click();

  // A label the house has in three sections: refused, nothing typed is lost.
  await seats.fill('Orchestra I9, Orchestra I10, A1');
  await page.getByLabel("Buyer's name").fill('Wanda Walkup');
  await page.getByLabel('Cash').check();
  await page.getByRole('button', { name: 'Review the sale' }).click();
  const notice = page.locator('#notice');
  await expect(notice).toContainText('"A1" is in 3 sections (Orchestra, Mezzanine, Balcony): write the section first');
  await expect(seats).toHaveValue('Orchestra I9, Orchestra I10, A1');
  await expect(page.getByLabel("Buyer's name")).toHaveValue('Wanda Walkup');
  await expect(page.getByLabel('Cash')).toBeChecked();

  await seats.fill('Orchestra I9, Orchestra I10');
  await page.getByRole('button', { name: 'Review the sale' }).click();
  const review = page.getByRole('region', { name: 'This sale' });
  await expect(review).toContainText('Orchestra, row I, seat 9');
  await expect(review).toContainText(/Total\s*€110/);
  await expect(review).toContainText('Paid by: cash');
  // The map shows the picked seats again after the review.
  await expect(seat(page, 'Orchestra', 'I', 9)).toHaveAttribute('aria-pressed', 'true');
  // A change after the review withdraws it: the sale must be checked again.
  await page.getByLabel('Card terminal').check();
  await expect(review).toHaveCount(0);
  await page.getByLabel('Cash').check();
  await page.getByRole('button', { name: 'Review the sale' }).click();
  await expect(review).toContainText('Paid by: cash');
  await review.getByRole('button', { name: 'Sell and print' }).click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+\/orders\/[0-9a-f-]{36}$/);
  await expect(page.getByText('Sold 2 tickets.')).toBeVisible();
});

test('best available at the counter fills the sale with its seats and reviews them', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Demo Night/ }).first().click();
  await page.getByRole('link', { name: 'Walk-up sale' }).click();
  await page.getByLabel('Seats', { exact: true }).selectOption('3');
  await page.getByLabel('Section', { exact: true }).selectOption('Balcony');
  await page.getByRole('button', { name: 'Find best seats' }).click();
  await expect(page.getByLabel(/^Seats \(row and seat/)).toHaveValue(/^Balcony [A-Z]\d+, Balcony [A-Z]\d+, Balcony [A-Z]\d+$/);
  await expect(page.getByRole('region', { name: 'This sale' })).toContainText(/Total\s*€90/);
});

test('every time the box office shows is in the venue zone, named, as on the buyer order page', async ({ page, browser }) => {
  // A buyer's order: its page says when it was bought, in the venue's zone.
  const buyer = await (await browser.newContext()).newPage();
  await buyer.goto('/');
  await buyer.getByRole('link', { name: /Demo Night/ }).click();
  await seat(buyer, 'Orchestra', 'I', 20).press('Enter');
  await expect(seat(buyer, 'Orchestra', 'I', 20)).toHaveAttribute('aria-pressed', 'true');
  await buyer.getByLabel('Name').fill('Zone Tester');
  await buyer.getByLabel('Email').fill('zone@example.com');
  await buyer.getByRole('button', { name: /^Buy for/ }).click();
  await expect(buyer).toHaveURL(/\/orders\//);
  const orderId = buyer.url().split('/').pop()!;
  const zone = /\d{2}:\d{2}(:\d{2})? CES?T/;
  await expect(buyer.locator('main')).toContainText(zone);
  // Now on a Paris clock, to the minute, as the pages should say it.
  const paris = (at: Date) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hour12: false }).format(at);
  const nearNow = [paris(new Date(Date.now() - 60_000)), paris(new Date()), paris(new Date(Date.now() + 60_000))];

  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Demo Night/ }).first().click();
  const console = page.url();
  await page.getByLabel(/^Search by email/).fill('zone@example.com');
  await page.getByLabel(/^Search by email/).press('Enter');
  const row = page.getByRole('row', { name: /Zone Tester/ });
  await expect(row).toContainText(zone);
  await expect(row).not.toContainText('UTC');
  const consoleTime = (await row.textContent())!.match(/(\d{2}:\d{2}) CES?T/)![1];
  expect(nearNow, `the console's ${consoleTime} is Paris time`).toContain(consoleTime);
  // The seat's panel says when it was bought the same way.
  await page.goto(`${console}?seat=${await seat(page, 'Orchestra', 'I', 20).getAttribute('value')}`);
  const panel = page.locator('aside.hold-panel');
  await expect(panel).toContainText('Zone Tester');
  await expect(panel).toContainText(`${consoleTime} CE`);
  await expect(panel).not.toContainText('UTC');
  await page.goto(`${console}/orders/${orderId}`);
  await expect(page.locator('main')).toContainText(`${consoleTime} CE`);
  await expect(page.locator('main')).not.toContainText('UTC');
  await page.goto(`${console}/mail`);
  const mail = page.getByRole('row', { name: /zone@example.com/ });
  await expect(mail).toContainText(zone);
  await expect(mail).not.toContainText('UTC');
  await buyer.context().close();
});

test('the arena console opens on its overview, not 20,000 seats, and a section shows its own', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Arena: Demo Tour/ }).first().click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Box office: Seatmap Arena');
  // The console's overview: all 38 sections as links, and no seat drawn.
  await expect(page.locator('a.overview__section')).toHaveCount(38);
  await expect(page.locator('button.seat:not(.seat--legend)')).toHaveCount(0);
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(5000);
  await page.getByRole('link', { name: /^Section 104 (from|Sold)/ }).first().click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+\?section=\d+$/);
  const seats = page.locator('button.seat:not(.seat--legend)');
  await expect.poll(() => seats.count()).toBeGreaterThan(100);
  const inSection = await seats.count();
  expect(inSection).toBeLessThan(2000);
  // A seat selected opens its panel, still in its section.
  await seats.nth(5).click();
  await expect(page).toHaveURL(/[?&]seat=\d+/);
  await expect(page.locator('aside.hold-panel')).toContainText(/104, row \w+, seat \w+/);
  await expect(seats).toHaveCount(inSection);
  await page.getByRole('link', { name: 'All sections' }).first().click();
  await expect(page.locator('button.seat:not(.seat--legend)')).toHaveCount(0);
});

test('on a phone the door opens with the camera button on the first screen, full width', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Demo Night/ }).first().click();
  await page.getByRole('link', { name: 'Door', exact: true }).first().click();
  const camera = page.getByRole('button', { name: 'Scan with the camera' });
  const box = (await camera.boundingBox())!;
  expect(box.y + box.height, 'in the top half of the first screen').toBeLessThan(844 / 2);
  expect(box.width).toBeGreaterThan(390 * 0.8);
  expect(box.height).toBeGreaterThanOrEqual(48);
  await context.close();
});

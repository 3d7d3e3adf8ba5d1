import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { openDemoEvent, seat, signInStaff, waitLive } from './helpers';

async function isMine(page: Page, row: string, n: number) {
  return (await seat(page, 'Orchestra', row, n).getAttribute('aria-pressed')) === 'true';
}

test('two browsers race for one seat: exactly one wins, the other sees it taken, live', async ({ browser }) => {
  const [a, b] = await Promise.all([browser.newContext(), browser.newContext()]);
  const [pa, pb] = await Promise.all([a.newPage(), b.newPage()]);
  await Promise.all([openDemoEvent(pa), openDemoEvent(pb)]);
  await Promise.all([waitLive(pa), waitLive(pb)]);

  // Forced: if one page's live update lands first, the seat turns
  // aria-disabled there, which Playwright won't click but a person can.
  // The update swaps the seat's button, and a click that meets the swap
  // half done fails before it is sent ("element is not visible", once in
  // eight runs): it is tried again then, so each page still clicks once.
  const clickOnce = async (page: Page) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await seat(page, 'Orchestra', 'F', 8).click({ force: true, timeout: 5_000 });
        return;
      } catch (error) {
        if (attempt === 3 || !String(error).includes('not visible')) { throw error; }
      }
    }
  };
  await Promise.all([clickOnce(pa), clickOnce(pb)]);
  await expect
    .poll(async () => [await isMine(pa, 'F', 8), await isMine(pb, 'F', 8)].filter(Boolean).length)
    .toBe(1);
  const [winner, loser] = (await isMine(pa, 'F', 8)) ? [pa, pb] : [pb, pa];
  await expect(seat(loser, 'Orchestra', 'F', 8)).toHaveAccessibleName(/held by another buyer$/);

  // A change the loser didn't cause reaches its page without a reload.
  const url = loser.url();
  await seat(winner, 'Orchestra', 'F', 9).click();
  await expect(seat(winner, 'Orchestra', 'F', 9)).toHaveAttribute('aria-pressed', 'true');
  await expect(seat(loser, 'Orchestra', 'F', 9)).toHaveAccessibleName(/held by another buyer$/);
  expect(loser.url()).toBe(url);
  await Promise.all([a.close(), b.close()]);
});

test('staff release a buyer\'s hold and the buyer\'s page says so, live', async ({ page, browser }) => {
  await openDemoEvent(page);
  await waitLive(page);
  await seat(page, 'Orchestra', 'G', 10).click();
  await expect(seat(page, 'Orchestra', 'G', 10)).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#notice .notice--success')).toContainText('Holding');
  const eventPath = new URL(page.url()).pathname;

  const staffContext = await browser.newContext();
  const staff = await staffContext.newPage();
  await signInStaff(staff, `/staff${eventPath}`);
  const row = staff.getByRole('row').filter({ hasText: 'Orchestra, row G, seat 10' });
  await row.getByRole('button', { name: /^Release hold/ }).click();
  await expect(staff.getByRole('status')).toContainText('Released hold');
  await staffContext.close();

  await expect(page.locator('#hold-panel')).toContainText('The box office released your hold');
  await expect(seat(page, 'Orchestra', 'G', 10)).toHaveAccessibleName(/available$/);
  // The "Holding …" notice from the pick is no longer true, so it is gone.
  await expect(page.locator('#notice .notice--success')).toHaveCount(0);
});

test('keyboard only: tab to the map, arrow to a seat, hold it, and buy', async ({ page }) => {
  await openDemoEvent(page);
  await waitLive(page);
  const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
  for (let i = 0; i < 60 && !(await focusedName()).startsWith('Orchestra, row'); i++) {
    await page.keyboard.press('Tab');
  }
  // One tab stop per section: the map is entered at its first seat.
  expect(await focusedName()).toMatch(/^Orchestra, row A, seat 1, /);
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
  expect(await focusedName()).toMatch(/^Orchestra, row H, seat 10, .*available$/);
  await page.keyboard.press('Enter');
  await expect(seat(page, 'Orchestra', 'H', 10)).toHaveAttribute('aria-pressed', 'true');
  // Focus stays on the seat after the update.
  await expect.poll(focusedName).toMatch(/^Orchestra, row H, seat 10, .*held by you$/);

  for (let i = 0; i < 40 && (await page.evaluate(() => document.activeElement?.id)) !== 'buyer-name'; i++) {
    await page.keyboard.press('Tab');
  }
  await page.keyboard.type('Kay Board');
  await page.keyboard.press('Tab');
  await page.keyboard.type('kay@example.com');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Your tickets' })).toBeVisible();
  await expect(page.locator('.ticket__place', { hasText: 'Orchestra, row H, seat 10' })).toBeVisible();
});

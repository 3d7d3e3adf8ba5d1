import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { openDemoEvent, seat as anySeat } from './helpers';

// Each test takes seats in its own row of the demo event, so the tests can
// run in parallel against one server without taking each other's seats.

function seat(page: Page, row: string, number: number) {
  return anySeat(page, 'Orchestra', row, number);
}

async function buyAndConfirm(page: Page, row: string, numbers: number[]) {
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: /^Buy for/ }).click();
  await expect(page).toHaveURL(/\/orders\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Your tickets' })).toBeVisible();
  for (const n of numbers) {
    await expect(page.locator('.ticket__place', { hasText: `Orchestra, row ${row}, seat ${n}` })).toBeVisible();
  }
}

test('pick two seats, watch the countdown, buy them', async ({ page }) => {
  await openDemoEvent(page);
  for (const n of [14, 15]) {
    await seat(page, 'C', n).click();
    await expect(seat(page, 'C', n)).toHaveAttribute('aria-pressed', 'true');
    await expect(seat(page, 'C', n)).toHaveAccessibleName(/held by you$/);
  }
  const panel = page.locator('#hold-panel');
  await expect(panel).toContainText('Orchestra, row C, seat 14');
  await expect(panel).toContainText('Orchestra, row C, seat 15');
  await expect(panel).toContainText('€170');

  // The countdown ticks down from the server's expiry (8 minutes by default).
  const clock = panel.locator('.countdown__time');
  await expect(clock).toHaveText(/^0[78]:\d\d$/);
  const first = await clock.textContent();
  await expect(clock).not.toHaveText(first!, { timeout: 3_000 });

  await buyAndConfirm(page, 'C', [14, 15]);

  // Back on the map, the seats are sold to everyone, including a stranger.
  await page.getByRole('link', { name: 'Back to the seat map' }).click();
  await expect(seat(page, 'C', 14)).toHaveAccessibleName(/sold$/);
});

test.describe('with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  test('seats are form buttons that post and redirect, and buying still works', async ({ page }) => {
    await openDemoEvent(page);
    for (const n of [20, 21]) {
      await seat(page, 'D', n).click();
      await expect(page).toHaveURL(/\/events\/\d+$/);
      await expect(seat(page, 'D', n)).toHaveAttribute('aria-pressed', 'true');
    }
    const panel = page.locator('#hold-panel');
    await expect(panel).toContainText('Orchestra, row D, seat 21');
    await expect(panel.locator('.countdown')).toContainText(/Held for 0[78]:\d\d/);
    await expect(page.getByRole('status')).toContainText('Holding Orchestra, row D, seat 21');
    await buyAndConfirm(page, 'D', [20, 21]);
  });
});

test('a taken seat is explained, not changed', async ({ page, browser }) => {
  await openDemoEvent(page);
  await seat(page, 'E', 5).click();
  await expect(seat(page, 'E', 5)).toHaveAttribute('aria-pressed', 'true');

  const rivalContext = await browser.newContext();
  const rival = await rivalContext.newPage();
  await openDemoEvent(rival);
  await expect(seat(rival, 'E', 5)).toHaveAccessibleName(/held by another buyer$/);
  // aria-disabled tells assistive tech the seat can't be taken, but the
  // button still works (it explains why); Playwright's click refuses
  // aria-disabled elements, so the click is forced.
  await seat(rival, 'E', 5).click({ force: true });
  await expect(rival.getByRole('status')).toContainText('is held by another buyer');
  await expect(seat(rival, 'E', 5)).toHaveAccessibleName(/held by another buyer$/);
  await rivalContext.close();

  await page.reload();
  await expect(seat(page, 'E', 5)).toHaveAttribute('aria-pressed', 'true');
});

test('"Release all" asks first, and keeps the seats if the buyer says no', async ({ page }) => {
  await openDemoEvent(page);
  await anySeat(page, 'Orchestra', 'N', 11).click();
  await expect(anySeat(page, 'Orchestra', 'N', 11)).toHaveAttribute('aria-pressed', 'true');
  const releaseAll = page.getByRole('button', { name: 'Release all' });

  // Every request the page sends, to show that the dismissed one never went.
  const sent: string[] = [];
  page.on('request', (request) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`));
  page.once('dialog', (dialog) => dialog.dismiss());
  await releaseAll.click();
  // A later action's answer: had the release gone, it would have gone first.
  await anySeat(page, 'Orchestra', 'N', 12).click();
  await expect(anySeat(page, 'Orchestra', 'N', 12)).toHaveAttribute('aria-pressed', 'true');
  expect(sent.filter((r) => r.endsWith('/hold/release'))).toEqual([]);
  await expect(anySeat(page, 'Orchestra', 'N', 11)).toHaveAttribute('aria-pressed', 'true');

  page.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('Release all your seats?');
    return dialog.accept();
  });
  await releaseAll.click();
  await expect(anySeat(page, 'Orchestra', 'N', 11)).toHaveAttribute('aria-pressed', 'false');
  await expect(anySeat(page, 'Orchestra', 'N', 12)).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('#hold-panel')).toContainText('You hold no seats');
});

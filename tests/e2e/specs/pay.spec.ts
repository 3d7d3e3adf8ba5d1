import { test, expect } from './fixtures';
import { seat, signInStaff } from './helpers';
import { PAY_PORT, STANDIN_PORT } from '../playwright.config';

// The pay server takes payment through the Stripe stand-in
// (crates/stripe-standin): its hosted page pays, sends the signed webhook,
// and returns the buyer to the order page, as Stripe Checkout does.
test.use({ baseURL: `http://127.0.0.1:${PAY_PORT}` });
test.describe.configure({ mode: 'serial' });

test('staff make the demo event paid online', async ({ page }) => {
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Demo Night/ }).first().click();
  await page.getByLabel('Online, by card (Stripe Checkout)').check();
  await page.getByRole('button', { name: 'Save payment' }).click();
  await expect(page.locator('main')).toContainText('Buyers now pay: online, by card');
});

async function checkout(page: import('@playwright/test').Page, row: string, n: number) {
  await page.goto('/');
  await page.getByRole('link', { name: /Demo Night/ }).click();
  await seat(page, 'Orchestra', row, n).press('Enter');
  await expect(seat(page, 'Orchestra', row, n)).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('heading', { name: 'Checkout' })).toBeVisible();
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: /^Pay €/ }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127.0.0.1:${STANDIN_PORT}/c/pay/cs_test_`));
  await expect(page.getByRole('heading', { name: 'Stripe stand-in' })).toBeVisible();
}

test('pick a seat, pay on the provider page, come back to the tickets', async ({ page }) => {
  await checkout(page, 'K', 3);
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127.0.0.1:${PAY_PORT}/orders/[0-9a-f-]{36}\\?`));
  await expect(page.getByRole('heading', { name: 'Payment received' })).toBeVisible();
  await expect(page.locator('.ticket__place', { hasText: 'Orchestra, row K, seat 3' })).toBeVisible();
});

test('cancel on the provider page, come back with the seat still held, and pay again', async ({ page, browser }) => {
  await checkout(page, 'K', 5);
  const firstSession = new URL(page.url()).pathname;
  await page.getByRole('link', { name: 'Cancel and go back' }).click();
  await expect(page.getByRole('heading', { name: 'Payment not made' })).toBeVisible();
  await expect(page.locator('#payment-panel')).toContainText(/Pay €\d+ by /);
  const order = page.url();
  // Nobody else can take the seat meanwhile: another browser sees it held.
  const other = await (await browser.newContext({ baseURL: `http://127.0.0.1:${PAY_PORT}` })).newPage();
  await other.goto('/');
  await other.getByRole('link', { name: /Demo Night/ }).click();
  await expect(seat(other, 'Orchestra', 'K', 5)).toHaveAccessibleName(/held by another buyer$/);
  await other.close();
  // "Pay" again is the same session at the provider, not a second one.
  await page.goto(order);
  await page.getByRole('button', { name: /^Pay €/ }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127.0.0.1:${STANDIN_PORT}/c/pay/cs_test_`));
  expect(new URL(page.url()).pathname).toBe(firstSession);
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page.getByRole('heading', { name: 'Payment received' })).toBeVisible();
  await expect(page.locator('.ticket__place', { hasText: 'Orchestra, row K, seat 5' })).toBeVisible();
});

test('back from paying before the provider says so, the order page waits, then shows the tickets', async ({ page, request }) => {
  // Stripe's webhook is not instant: the stand-in holds it back 4 s.
  const delayed = await request.post(`http://127.0.0.1:${STANDIN_PORT}/_standin/webhook-delay?ms=4000`);
  expect(delayed.status()).toBe(204);
  try {
    await checkout(page, 'K', 7);
    await page.getByRole('button', { name: /^Pay / }).click();
    await expect(page).toHaveURL(new RegExp(`^http://127.0.0.1:${PAY_PORT}/orders/[0-9a-f-]{36}\\?`));
    // The payment isn't known yet: the page says it waits, and polls.
    await expect(page.locator('#payment-panel')).toContainText(/Waiting/);
    await expect(page.locator('.ticket__place')).toHaveCount(0);
    // The webhook arrives; the page reloads itself with the tickets.
    await expect(page.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('.ticket__place', { hasText: 'Orchestra, row K, seat 7' })).toBeVisible();
  } finally {
    await request.post(`http://127.0.0.1:${STANDIN_PORT}/_standin/webhook-delay?ms=0`);
  }
});

// The offer paid online (issue 47): the matinee sells Adult and Child with
// a €1.50 booking fee, 19 % VAT included and the code SPRING20. Stripe is
// asked for each ticket after its discount and for the fees, adding up to
// the receipt's total; the receipt on the way back breaks it down.
test('staff make the matinee paid online', async ({ page }) => {
  await signInStaff(page, '/staff');
  await page.getByRole('link', { name: /Family Matinee/ }).first().click();
  await page.getByLabel('Online, by card (Stripe Checkout)').check();
  await page.getByRole('button', { name: 'Save payment' }).click();
  await expect(page.locator('main')).toContainText('Buyers now pay: online, by card');
});

test('a child ticket and a code, paid on the provider page for exactly the receipt', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: /Family Matinee/ }).click();
  await seat(page, 'Orchestra', 'P', 5).press('Enter');
  await seat(page, 'Orchestra', 'P', 6).press('Enter');
  const panel = page.locator('#hold-panel');
  const total = panel.locator('.hold-total');
  await expect(total).toHaveText('Total €113');
  await panel.getByLabel('Ticket type for Orchestra, row P, seat 6').selectOption('child');
  await expect(total).toHaveText('Total €83');
  await panel.getByLabel('Promo code (optional)').fill('spring20');
  await panel.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(total).toHaveText('Total €67');
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: /^Pay €67$/ }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127.0.0.1:${STANDIN_PORT}/c/pay/cs_test_`));
  // The provider's page lists what it was asked for: €44 + €20 + 2 × €1.50.
  const asked = page.locator('main, body').first();
  await expect(asked).toContainText('Orchestra P5 · Adult × 1: 44.00');
  await expect(asked).toContainText('Orchestra P6 · Child × 1: 20.00');
  await expect(asked).toContainText('Booking fees × 2: 1.50');
  await expect(asked).toContainText('67.00');
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page.getByRole('heading', { name: 'Payment received' })).toBeVisible();
  const receipt = page.locator('table.receipt');
  for (const part of ['Tickets', '€80', 'Discount SPRING20', '−€16', 'Booking fees', '€3', 'Including VAT 19 %', '€10.70']) {
    await expect(receipt).toContainText(part);
  }
  await expect(receipt.locator('.receipt__total')).toContainText('€67');
  await expect(page.locator('.ticket__place', { hasText: 'Orchestra, row P, seat 6' })).toBeVisible();
});

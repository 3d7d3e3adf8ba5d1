import { Browser, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { openDemoEvent, seat, signInStaff, waitLive } from './helpers';

// After the sale: the ticket with its QR code, the door, and a refund that
// puts the seat back on an open buyer map. Rows P, Q and R are this file's.

async function buySeat(page: Page, row: string, n: number) {
  await openDemoEvent(page);
  await seat(page, 'Orchestra', row, n).click();
  await expect(seat(page, 'Orchestra', row, n)).toHaveAttribute('aria-pressed', 'true');
  await page.getByLabel('Name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: /^Buy for/ }).click();
  await expect(page).toHaveURL(/\/orders\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Your tickets' })).toBeVisible();
}

/** The code printed under the ticket's QR, as typed at a door. */
async function ticketCode(page: Page) {
  const grouped = await page.locator('.ticket__code code').first().textContent();
  return grouped!.replace(/\s+/g, '');
}

async function staffPage(browser: Browser, next: string) {
  const context = await browser.newContext();
  const staff = await context.newPage();
  await signInStaff(staff, next);
  return { context, staff };
}

test('buy, open the ticket, see its QR code', async ({ page }) => {
  await buySeat(page, 'P', 5);
  const ticket = page.locator('.ticket').first();
  await expect(ticket.locator('.ticket__place')).toHaveText('Orchestra, row P, seat 5');
  await expect(ticket.getByRole('img', { name: 'QR code' })).toBeVisible();
  await expect(page.getByText(/queued to be e-mailed to ada@example\.com/)).toBeVisible();
  const code = await ticketCode(page);
  expect(code).toMatch(/^[A-Z2-7]{32}$/);

  await ticket.getByRole('link', { name: 'Open this ticket alone' }).click();
  await expect(page).toHaveURL(new RegExp(`/tickets/${code}$`));
  const qr = page.getByRole('img', { name: 'QR code' });
  await expect(qr).toBeVisible();
  const box = await qr.boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(180);
  await expect(page.getByText('Valid: show this code at the door')).toBeVisible();

  // "My orders" finds it again in this browser.
  await page.getByRole('link', { name: 'My orders' }).click();
  await expect(page.getByRole('link', { name: 'Demo Night' }).first()).toBeVisible();
});

test('the door admits a code once, then says when and where it was admitted', async ({ page, browser }) => {
  await buySeat(page, 'Q', 6);
  const code = await ticketCode(page);
  const { context, staff } = await staffPage(browser, '/staff/events/1/door');
  await staff.getByLabel('Gate').fill('Gate B');
  await staff.getByRole('button', { name: 'Set gate' }).click();
  await expect(staff).toHaveURL(/gate=Gate\+B/);

  await staff.getByLabel('Ticket code').fill(code.toLowerCase());
  await staff.getByRole('button', { name: 'Check ticket' }).click();
  const result = staff.locator('#door-result');
  await expect(result).toContainText('Admit — Orchestra Q6');
  await expect(result).toHaveClass(/door-result--admit/);
  await expect(staff.locator('#door-counts')).toContainText(/\d+ admitted of \d+ expected/);

  await staff.getByLabel('Ticket code').fill(code);
  await staff.getByRole('button', { name: 'Check ticket' }).click();
  await expect(result).toContainText(/Already admitted at \d\d:\d\d at Gate B/);
  await expect(result).toHaveClass(/door-result--refuse/);

  // The buyer's ticket says so too.
  await page.reload();
  await expect(page.locator('.ticket').first()).toContainText('Admitted');
  await context.close();
});

test('a refund at the box office puts the seat back on sale on an open buyer map', async ({ page, browser }) => {
  await buySeat(page, 'R', 7);
  const orderUrl = page.url();
  const orderId = orderUrl.split('/orders/')[1];

  // Someone else has the map open, and sees the seat sold.
  const watcherContext = await browser.newContext();
  const watcher = await watcherContext.newPage();
  await openDemoEvent(watcher);
  await waitLive(watcher);
  await expect(seat(watcher, 'Orchestra', 'R', 7)).toHaveAccessibleName(/sold$/);

  const { context, staff } = await staffPage(browser, `/staff/events/1/orders/${orderId}`);
  await expect(staff.getByRole('heading', { name: 'Order for Ada Lovelace' })).toBeVisible();
  staff.once('dialog', (dialog) => dialog.accept());
  await staff.getByRole('button', { name: 'Refund Orchestra, row R, seat 7' }).click();
  await expect(staff.getByText(/Refunded 1 ticket/)).toBeVisible();

  // Live, without a reload: the seat is on sale again.
  await expect(seat(watcher, 'Orchestra', 'R', 7)).toHaveAccessibleName(/available$/);
  // And the buyer's ticket is void.
  await page.reload();
  await expect(page.locator('.ticket').first()).toContainText('Refunded');
  await expect(page.getByRole('img', { name: 'QR code' })).toHaveCount(0);
  await Promise.all([context.close(), watcherContext.close()]);
});

test('the door reads a QR code from the camera and admits it', async ({ page, browser }) => {
  await buySeat(page, 'P', 12);
  const svg = await page.locator('.ticket__qr svg').first().evaluate((el) => el.outerHTML);
  const { context, staff } = await staffPage(browser, '/staff/events/1/door');
  // The camera is a canvas that shows the ticket's QR code, as a phone
  // held up to the ticket would: the page's own jsQR decodes it.
  await staff.addInitScript((qr: string) => {
    const camera = async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 480;
      canvas.height = 360;
      const context = canvas.getContext('2d')!;
      const image = new Image();
      image.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(qr);
      await image.decode();
      const draw = () => {
        context.fillStyle = '#fff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        context.drawImage(image, 110, 50, 260, 260);
      };
      draw();
      setInterval(draw, 100);
      return canvas.captureStream(10);
    };
    Object.defineProperty(navigator, 'mediaDevices', { value: { getUserMedia: camera }, configurable: true });
  }, svg);
  await staff.reload();
  await staff.getByRole('button', { name: 'Scan with the camera' }).click();
  await expect(staff.getByText('Camera on')).toBeVisible();
  await expect(staff.locator('#door-result')).toContainText('Admit — Orchestra P12');
  await expect(staff.locator('#door-counts')).toContainText(/[1-9]\d* admitted of/);
  await context.close();
});

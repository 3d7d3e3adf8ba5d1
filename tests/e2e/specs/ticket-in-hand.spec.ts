import { readFileSync } from 'fs';
import { test, expect } from './fixtures';
import { MAIL_PORT } from '../playwright.config';
import { mailTo } from './helpers';

// The ticket in the buyer's hand (issue 49), on the server that mails and
// has (throwaway) wallet keys: a buyer downloads the order's PDF and the
// ticket's Apple Wallet pass, sees "Add to Google Wallet", sends the
// ticket to a friend, and the friend's mail opens a working ticket while
// the buyer's old code page says where it went.

const BASE = `http://127.0.0.1:${MAIL_PORT}`;

test('a buyer takes the PDF and the pass, and sends a ticket to a friend whose mail opens it', async ({ page }) => {
  await page.goto(`${BASE}/`);
  await page.getByRole('link', { name: /Demo Night/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo Night');
  const seat = page.getByRole('button', { name: /^Orchestra, row K, seat 20, / });
  await seat.click();
  await expect(page.locator('#hold-panel')).toContainText('Orchestra, row K, seat 20');
  const buyer = `ada.wallet.${Date.now()}@example.com`;
  await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
  await page.getByLabel('Email', { exact: true }).fill(buyer);
  await page.getByRole('button', { name: /^Buy for / }).click();
  await expect(page.getByRole('heading', { name: 'Your tickets' })).toBeVisible();

  // The order's PDF downloads, and is a PDF.
  const [pdf] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download all as PDF' }).click(),
  ]);
  expect(pdf.suggestedFilename()).toMatch(/^tickets-[0-9a-f]{8}\.pdf$/);
  expect(readFileSync(await pdf.path()).subarray(0, 5).toString()).toBe('%PDF-');

  // The ticket's own page: the pass downloads (a zip), Google is a link.
  await page.getByRole('link', { name: 'Open this ticket alone' }).click();
  await expect(page.locator('.ticket__status')).toHaveText(/^Valid/);
  const [pass] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Add to Apple Wallet' }).click(),
  ]);
  expect(pass.suggestedFilename()).toMatch(/\.pkpass$/);
  expect(readFileSync(await pass.path()).subarray(0, 2).toString()).toBe('PK');
  await expect(page.getByRole('link', { name: 'Add to Google Wallet' })).toHaveAttribute(
    'href',
    /\/google-wallet$/,
  );
  const oldTicketUrl = page.url();

  // Send it to a friend, in French.
  const friend = `grace.wallet.${Date.now()}@example.com`;
  await page.getByLabel('Their name').fill('Grace Hopper');
  await page.getByLabel('Their e-mail address').fill(friend);
  await page.getByLabel('Their language').selectOption('fr');
  await page.getByRole('button', { name: 'Send the ticket' }).click();
  await expect(page.getByRole('heading', { name: 'This ticket was passed on' })).toBeVisible();
  await expect(page.locator('main')).toContainText('Grace Hopper');

  // The friend's mail, in French, opens a working ticket in their name.
  const mail = await mailTo(friend, /vous a envoyé un billet/);
  const link = mail.body.match(/https?:\/\/\S+\/tickets\/[A-Z2-7]{32}(?=\s)/);
  expect(link, mail.body).not.toBeNull();
  const oldCode = oldTicketUrl.split('/').pop();
  expect(link![0].endsWith(`/tickets/${oldCode}`)).toBe(false);
  await page.goto(link![0]);
  await expect(page.locator('.ticket__status')).toHaveText(/^Valid/);
  await expect(page.locator('.ticket__qr svg')).toBeVisible();
  await expect(page.locator('main')).toContainText('Grace Hopper');

  // The buyer's receipt names the friend.
  const receipt = await mailTo(buyer, /was sent on/);
  expect(receipt.body).toContain(friend);
});

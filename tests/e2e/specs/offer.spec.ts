import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { MAIL_PORT } from '../playwright.config';
import { mailTo } from './helpers';

// The offer (issue 47) on the demo matinee: Adult and Child tickets, a
// €1.50 booking fee, 19 % VAT included and the code SPRING20 (20 % off).
// A buyer chooses Child for one of two seats, applies the code, watches
// the total change, buys, and reads the breakdown on the receipt and in
// the e-mail; in English and in German. On the server that mails.

const BASE = `http://127.0.0.1:${MAIL_PORT}`;

async function openMatinee(page: Page) {
  await page.goto(`${BASE}/`);
  await page.getByRole('link', { name: /Family Matinee/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Family Matinee');
}

// Prices of the Standard rows: Adult €55, Child €25; fee €1.50 a ticket.
// With SPRING20: €44 + €20 + €3 = €67. VAT in it: 4400·19/119 = 702.52,
// 2000·19/119 = 319.33, 150·19/119 = 23.95 twice: €10.70.
const cases = [
  {
    lang: 'en', locale: 'en-GB', row: 'M',
    seat: (row: string, n: number) => new RegExp(`^Orchestra, row ${row}, seat ${n}, `),
    typeLabel: (row: string, n: number) => `Ticket type for Orchestra, row ${row}, seat ${n}`,
    code: 'Promo code (optional)', apply: 'Apply', name: 'Name', email: 'Email',
    total: (amount: string) => `Total ${amount}`, buy: /^Buy for €67$/, heading: 'Your tickets',
    before: '€113', afterChild: '€83', after: '€67',
    receipt: ['Tickets', '€80', 'Discount SPRING20', '−€16', 'Booking fees', '€3', 'Including VAT 19 %', '€10.70', '€67'],
    mail: ['Discount SPRING20: −€16', 'Booking fees: €3', 'Including VAT 19 %: €10.70', 'Total: €67'],
  },
  {
    lang: 'de', locale: 'de-DE', row: 'N',
    seat: (row: string, n: number) => new RegExp(`^Orchestra, Reihe ${row}, Platz ${n}, `),
    typeLabel: (row: string, n: number) => `Ticketart für Orchestra, Reihe ${row}, Platz ${n}`,
    code: 'Aktionscode (optional)', apply: 'Einlösen', name: 'Name', email: 'E-Mail',
    total: (amount: string) => `Gesamt ${amount}`, buy: /^Für 67\s€ kaufen$/, heading: 'Ihre Karten',
    before: '113\u00a0€', afterChild: '83\u00a0€', after: '67\u00a0€',
    receipt: ['Tickets', '80\u00a0€', 'Rabatt SPRING20', '−16\u00a0€', 'Buchungsgebühren', '3\u00a0€', 'Enthaltene MwSt. 19 %', '10,70\u00a0€', '67\u00a0€'],
    mail: ['Rabatt SPRING20: −16\u00a0€', 'Buchungsgebühren: 3\u00a0€', 'Enthaltene MwSt. 19 %: 10,70\u00a0€', 'Gesamt: 67\u00a0€'],
  },
];

for (const c of cases) {
  test.describe(`in ${c.lang}`, () => {
    test.use({ locale: c.locale });

    test('a child ticket and a code change the total, and the receipt and the mail break it down', async ({ page }) => {
      await openMatinee(page);
      await expect(page.locator('html')).toHaveAttribute('lang', c.lang);
      await page.getByRole('button', { name: c.seat(c.row, 5) }).click();
      const panel = page.locator('#hold-panel');
      await expect(panel.getByLabel(c.typeLabel(c.row, 5))).toBeVisible();
      await page.getByRole('button', { name: c.seat(c.row, 6) }).click();
      const total = panel.locator('.hold-total');
      await expect(total).toHaveText(c.total(c.before));

      // Child for the second seat: the total changes at once.
      await panel.getByLabel(c.typeLabel(c.row, 6)).selectOption('child');
      await expect(total).toHaveText(c.total(c.afterChild));

      // The code, applied in the panel: its discount shows before paying,
      // and the child ticket stays chosen.
      await panel.getByLabel(c.code).fill('spring20');
      await panel.getByRole('button', { name: c.apply, exact: true }).click();
      await expect(total).toHaveText(c.total(c.after));
      await expect(panel.getByLabel(c.typeLabel(c.row, 6))).toHaveValue('child');

      const address = `offer.${c.lang}.${Date.now()}@example.com`;
      await page.getByLabel(c.name, { exact: true }).fill('Ada Lovelace');
      await page.getByLabel(c.email, { exact: true }).fill(address);
      await page.getByRole('button', { name: c.buy }).click();
      await expect(page.getByRole('heading', { name: c.heading })).toBeVisible();

      const receipt = page.locator('table.receipt');
      for (const part of c.receipt) {
        await expect(receipt).toContainText(part);
      }
      await expect(receipt.locator('.receipt__total')).toContainText(c.after);

      const mail = (await mailTo(address)).body;
      for (const part of c.mail) {
        expect(mail).toContain(part);
      }
    });
  });
}

import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { MAIL_PORT } from '../playwright.config';
import { mailTo } from './helpers';

// A buyer buys a seat in German (their browser asks for it) and another in
// French (chosen with the switch on the page), on the server that mails
// its tickets; each reads the e-mail that arrived, in their language.

const BASE = `http://127.0.0.1:${MAIL_PORT}`;

async function openDemo(page: Page, heading: RegExp) {
  await page.goto(`${BASE}/`);
  await page.getByRole('link', { name: /Demo Night/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo Night');
  await expect(page.getByRole('heading', { level: 2, name: heading }).first()).toBeVisible();
}

test.describe('in German, from the browser', () => {
  test.use({ locale: 'de-DE' });

  test('a seat bought in German comes with a German e-mail', async ({ page }) => {
    await openDemo(page, /Ihre Plätze/);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    const seat = page.getByRole('button', { name: /^Orchestra, Reihe F, Platz 7, / });
    await seat.click();
    await expect(seat).toHaveAccessibleName(/von Ihnen reserviert$/);
    const panel = page.locator('#hold-panel');
    await expect(panel).toContainText('Orchestra, Reihe F, Platz 7');
    await expect(panel.locator('.countdown')).toContainText(/Reserviert für/);
    const address = `ada.de.${Date.now()}@example.com`;
    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('E-Mail', { exact: true }).fill(address);
    await page.getByRole('button', { name: /^Für .*€ kaufen$/ }).click();
    await expect(page.getByRole('heading', { name: 'Ihre Karten' })).toBeVisible();
    await expect(page.locator('.ticket__place')).toHaveText('Orchestra, Reihe F, Platz 7');

    const mail = await mailTo(address);
    expect(mail.subject).toBe('Ihre Karten für Seatmap Philharmonic: Demo Night');
    expect(mail.body).toContain('Hallo Ada Lovelace,');
    expect(mail.body).toContain('Orchestra, Reihe F, Platz 7');
    expect(mail.body).toContain('Kartencode:');
    expect(mail.body).toMatch(/Gesamt: \d+(,\d\d)?\u00a0€/);
  });
});

test('a buyer who switches to French buys and is mailed in French', async ({ page }) => {
  await openDemo(page, /Your seats/);
  await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'Français' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo Night');
  const seat = page.getByRole('button', { name: /^Orchestra, rang G, place 8, / });
  await seat.click();
  await expect(seat).toHaveAccessibleName(/réservée par vous$/);
  // The choice holds on the next page too; money is written the French way.
  await page.reload();
  await expect(page.locator('#hold-panel')).toContainText('Vos places');
  await expect(page.locator('#hold-panel .hold-total')).toHaveText(/^Total \d+(,\d\d)?\u00a0€$/);
  const address = `ada.fr.${Date.now()}@example.com`;
  await page.getByLabel('Nom', { exact: true }).fill('Ada Lovelace');
  await page.getByLabel('E-mail', { exact: true }).fill(address);
  await page.getByRole('button', { name: /^Acheter pour .*€$/ }).click();
  await expect(page.getByRole('heading', { name: 'Vos billets' })).toBeVisible();

  const mail = await mailTo(address);
  expect(mail.subject).toBe('Vos billets pour Seatmap Philharmonic: Demo Night');
  expect(mail.body).toContain('Bonjour Ada Lovelace,');
  expect(mail.body).toContain('Orchestra, rang G, place 8');
  expect(mail.body).toContain('Code du billet');
});

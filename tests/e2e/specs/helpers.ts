import { expect, Page, Locator } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { STAFF } from '../playwright.config';

export async function openDemoEvent(page: Page) {
  await page.goto('/');
  await page.getByRole('link', { name: /Demo Night/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Demo Night');
}

/** Waits until the page's live feed is connected. */
export async function waitLive(page: Page) {
  await expect(page.locator('html')).toHaveAttribute('data-live', 'open');
}

export function seat(page: Page, section: string, row: string, number: number): Locator {
  return page.getByRole('button', {
    name: new RegExp(`^${section}, row ${row}, seat ${number}, `),
  });
}

export async function signInStaff(page: Page, next = '/staff') {
  await page.goto(`/staff/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Name').fill(STAFF.name);
  await page.getByLabel('Password').fill(STAFF.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(next.replace(/[?]/g, '\\?') + '$'));
}

/** Fails on any serious or critical axe-core violation, listing them. */
export async function expectNoSeriousA11yViolations(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  expect(serious, `${what}: serious or critical axe violations`).toEqual([]);
}

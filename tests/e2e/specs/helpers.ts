import { expect, Page, Locator } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { MAILDIR, STAFF } from '../playwright.config';

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

/** A message's text with quoted-printable undone, and its decoded subject. */
function readable(raw: string): { subject: string; body: string } {
  const body = Buffer.from(
    raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
  const line = raw.split(/\r?\n/).find((l) => /^subject:/i.test(l)) ?? '';
  // Whitespace between two encoded words is not part of the text.
  const subject = line
    .replace(/^subject:\s*/i, '')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?b\?([^?]*)\?=/gi, (_, b64) => Buffer.from(b64, 'base64').toString('utf8'));
  return { subject, body };
}

/** The message sent to `address`, once it has arrived. */
export async function mailTo(
  address: string,
  subject?: RegExp,
): Promise<{ subject: string; body: string }> {
  let found: string | undefined;
  await expect
    .poll(() => {
      for (const folder of ['new', 'cur']) {
        let names: string[] = [];
        try {
          names = readdirSync(join(MAILDIR, folder));
        } catch {
          continue;
        }
        for (const name of names) {
          const raw = readFileSync(join(MAILDIR, folder, name), 'utf8');
          if (raw.includes(address) && (!subject || subject.test(readable(raw).subject))) {
            found = raw;
            return true;
          }
        }
      }
      return false;
    }, { timeout: 20_000, message: `a message to ${address} in ${MAILDIR}` })
    .toBe(true);
  return readable(found!);
}

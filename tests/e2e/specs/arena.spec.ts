import { test, expect } from './fixtures';
import { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectNoSeriousA11yViolations, signInStaff } from './helpers';

// The seeded demo arena: 20,000 seats in 38 sections. A venue that big
// opens on an overview of section shapes; a section shows its seats.

async function openArena(page: Page) {
  await page.goto('/');
  await page.getByRole('link', { name: /Arena: Demo Tour/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Arena: Demo Tour');
}

const sectionLink = (page: Page, name: string) =>
  page.getByRole('link', { name: new RegExp(`^Section ${name} (from|Sold)`) });

const seatIn = (page: Page, section: string, row: string, seat: number) =>
  page.getByRole('button', { name: new RegExp(`^${section}, row ${row}, seat ${seat}, `) });

async function buy(page: Page, name: string) {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(`${name.split(' ')[0].toLowerCase()}@example.com`);
  await page.getByRole('button', { name: /^Buy for \$/ }).click();
  await expect(page).toHaveURL(/\/orders\/[0-9a-f-]{36}$/);
}

test('the arena opens on its overview: choose a section, pick two seats, and buy', async ({ page }) => {
  await openArena(page);
  // The overview draws sections, not 20,000 seats, and prices them in dollars.
  await expect(page.locator('button.seat:not(.seat--legend)')).toHaveCount(0);
  await expect(page.locator('a.overview__section')).toHaveCount(38);
  await expect(sectionLink(page, '104')).toHaveAccessibleName(/^Section 104 from \$110, [\d,]+ of [\d,]+ seats left$/);
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(5000);
  await expectNoSeriousA11yViolations(page, 'the arena overview');

  await sectionLink(page, '104').click();
  await expect(page).toHaveURL(/section=\d+/);
  await expect(page.getByText('Section 104', { exact: true })).toBeVisible();
  // The overview stays in reach, this section marked.
  await expect(sectionLink(page, '104')).toHaveAttribute('aria-current', 'page');
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(5000);
  await expectNoSeriousA11yViolations(page, 'an arena section');

  await seatIn(page, '104', '5', 6).click();
  await expect(seatIn(page, '104', '5', 6)).toHaveAttribute('aria-pressed', 'true');
  await seatIn(page, '104', '5', 7).click();
  await expect(seatIn(page, '104', '5', 7)).toHaveAttribute('aria-pressed', 'true');
  const panel = page.locator('#hold-panel');
  await expect(panel).toContainText('104, row 5, seat 6');
  await expect(panel).toContainText('Total $220');
  await buy(page, 'Ada Lovelace');
  await expect(page.locator('.ticket__place', { hasText: '104, row 5, seat 7' })).toBeVisible();
});

test('the arena without JavaScript: overview links, seat buttons and the buy form all work', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await openArena(page);
  await sectionLink(page, '207').click();
  await expect(page).toHaveURL(/section=\d+/);
  await seatIn(page, '207', '3', 4).click();
  // Post, redirect, and back to the same section.
  await expect(page).toHaveURL(/section=\d+/);
  await expect(seatIn(page, '207', '3', 4)).toHaveAttribute('aria-pressed', 'true');
  await seatIn(page, '207', '3', 5).click();
  await expect(seatIn(page, '207', '3', 5)).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#hold-panel')).toContainText('207, row 3, seat 5');
  await buy(page, 'Grace Hopper');
  await expect(page.locator('.ticket__place', { hasText: '207, row 3, seat 4' })).toBeVisible();
  await context.close();
});

test('the arena by keyboard only: a section from the overview, two seats, and buy', async ({ page }) => {
  await openArena(page);
  const tabTo = async (matches: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press('Tab');
      if (await matches()) return;
    }
    throw new Error(`Tab never reached ${what}`);
  };
  const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '');
  await tabTo(async () => (await focusedName()).startsWith('Section 112 '), 'section 112');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/section=\d+/);
  await tabTo(async () => / seat \d+, .*available$/.test(await focusedName()), 'a seat');
  const first = await focusedName();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: first.replace(/available$/, 'held by you') })).toBeVisible();
  await page.keyboard.press('ArrowRight');
  const second = await focusedName();
  expect(second).not.toEqual(first);
  await page.keyboard.press('Enter');
  await expect(page.locator('#hold-panel .held-seats li')).toHaveCount(2);
  await tabTo(async () => (await page.evaluate(() => document.activeElement?.id)) === 'buyer-name', 'the name field');
  await page.keyboard.type('Katherine Johnson');
  await page.keyboard.press('Tab');
  await page.keyboard.type('katherine@example.com');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/orders\/[0-9a-f-]{36}$/);
});

test('a phone at 390×844: the map is on the first screen, zooms and pinches, and a pick brings the selection bar', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await openArena(page);
  const overview = page.locator('.overview__map');
  expect((await overview.boundingBox())!.y).toBeLessThan(844 / 2);
  await sectionLink(page, '109').click();
  const viewport = page.locator('[data-map-viewport]');
  const box = (await viewport.boundingBox())!;
  expect(box.y, 'the map starts in the first screen').toBeLessThan(844 / 2);
  expect(box.height, 'and fills most of it').toBeGreaterThan(844 / 2);
  // Seats are big enough to tap at the default zoom, and some are in view.
  const visibleSeat = page.locator('#seat-map button.seat--available').first();
  const seatBox = (await visibleSeat.boundingBox())!;
  expect(seatBox.width).toBeGreaterThanOrEqual(24);
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(async () => (await visibleSeat.boundingBox())!.width).toBeGreaterThan(seatBox.width * 1.2);
  await page.getByRole('button', { name: 'Fit to screen' }).click();
  await expect.poll(async () => (await visibleSeat.boundingBox())!.width).toBeLessThan(seatBox.width * 1.1);
  // Two fingers spread apart zoom in about their midpoint.
  const before = (await visibleSeat.boundingBox())!.width;
  await viewport.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const fire = (type: string, id: number, x: number) =>
      el.dispatchEvent(new PointerEvent(type, { pointerId: id, clientX: r.left + x, clientY: r.top + 200, bubbles: true, pointerType: 'touch' }));
    fire('pointerdown', 1, 150); fire('pointerdown', 2, 200);
    for (let step = 1; step <= 10; step++) fire('pointermove', 2, 200 + step * 10);
    fire('pointerup', 2, 300); fire('pointerup', 1, 150);
  });
  await expect.poll(async () => (await visibleSeat.boundingBox())!.width).toBeGreaterThan(before * 1.5);
  await page.getByRole('button', { name: 'Fit to screen' }).click();

  const bar = page.locator('.selection-bar');
  await expect(bar).toBeHidden();
  await page.locator('#seat-map button.seat--available').nth(3).tap();
  await expect(bar).toBeVisible();
  await expect(bar).toContainText(/1 seat · \$\d+/);
  await page.evaluate(() => window.scrollTo(0, 0));
  const barBox = (await bar.boundingBox())!;
  expect(barBox.y + barBox.height).toBeGreaterThan(844 - 4);
  await bar.locator('.selection-bar__go').click();
  await expect(page.getByRole('heading', { name: 'Buy now' })).toBeInViewport();
  await context.close();
});

test("the theatre's curved balcony: every row label sits beside its own row", async ({ page }) => {
  await signInStaff(page, '/staff/venues');
  const theatre = JSON.parse(readFileSync(join(__dirname, '../../../static/layouts/theatre-300.json'), 'utf8'));
  theatre.name = `E2E Theatre ${Date.now()}`;
  await page.getByLabel('Layout file').setInputFiles({ name: 'theatre.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(theatre)) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByLabel('Event name').fill('Curves');
  await page.getByLabel(/^Starts/).fill('2099-06-01T19:30');
  await page.getByLabel(/^Currency/).fill('GBP');
  const prices = page.getByRole('group', { name: 'Prices' }).getByRole('textbox');
  for (let i = 0; i < await prices.count(); i++) await prices.nth(i).fill('30');
  await page.getByRole('button', { name: 'Create event' }).click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+$/);
  const eventId = page.url().split('/').pop();
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.goto(`/events/${eventId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Curves');
  await expect(page.locator('.event-head')).toContainText('BST');

  const misplaced = await page.evaluate(() => {
    const centre = (el: Element) => { const r = el.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width }; };
    const seats = Array.from(document.querySelectorAll('#seat-map button.seat')).map((s) => ({
      row: (s.getAttribute('aria-label') ?? '').split(', row ')[1]?.split(',')[0],
      section: s.closest('section')?.getAttribute('data-section'),
      ...centre(s),
    }));
    const pitch = seats[0].w / 26 * 30;
    const problems: string[] = [];
    let checked = 0;
    for (const label of Array.from(document.querySelectorAll('.row-label'))) {
      const c = centre(label);
      let nearest = seats[0], best = Infinity;
      for (const s of seats) {
        const d = Math.hypot(s.x - c.x, s.y - c.y);
        if (d < best) { best = d; nearest = s; }
      }
      checked++;
      if (nearest.row !== label.textContent || best > 1.3 * pitch) {
        problems.push(`label ${label.textContent} is nearest ${nearest.section} row ${nearest.row}, ${best.toFixed(0)} px away`);
      }
    }
    return { checked, problems, balconyRows: new Set(seats.filter((s) => s.section === 'Balcony').map((s) => s.row)).size };
  });
  expect(misplaced.balconyRows).toBe(5);
  expect(misplaced.checked, 'two labels per row').toBe(2 * (8 + 5 + 2 + 2));
  expect(misplaced.problems).toEqual([]);
});

import { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { openDemoEvent, seat } from './helpers';

// How the map is framed: a desktop map opens on the whole house, and Fit
// goes back to it (every price the key lists is on screen), a focused
// seat's ring stays visible at any zoom,
// a section of the arena faces the stage, and the overview shows every
// price a section has. (The phone's first screen is in accessibility.spec.)

/** Whether every seat of the map is drawn inside the map's frame. */
async function wholeHouseInFrame(page: Page) {
  return page.evaluate(() => {
    const frame = document.querySelector('[data-map-viewport]')!.getBoundingClientRect();
    const seats = Array.from(document.querySelectorAll('.seat-canvas .seat'));
    const outside = seats.filter((s) => {
      const r = s.getBoundingClientRect();
      return r.left < frame.left - 1 || r.right > frame.right + 1 || r.top < frame.top - 1 || r.bottom > frame.bottom + 1;
    });
    return { seats: seats.length, outside: outside.slice(0, 3).map((s) => s.getAttribute('aria-label')) };
  });
}

test('at 1440 px the map opens on the whole house, Fit goes back to it, and the prices are above the fold', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDemoEvent(page);
  const first = await wholeHouseInFrame(page);
  expect(first.seats).toBeGreaterThan(100);
  expect(first.outside, 'the first view: the whole house, the back rows too').toEqual([]);
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
  expect((await wholeHouseInFrame(page)).outside.length, 'zoomed in').toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Fit to screen' }).click();
  expect((await wholeHouseInFrame(page)).outside, 'Fit').toEqual([]);
  for (const price of ['€85', '€55', '€30']) {
    await expect(page.locator('.price-key').getByText(price)).toBeInViewport();
  }
});

/** Tabs forward until a seat has the focus. */
async function tabToSeat(page: Page) {
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.classList.contains('seat'))) return;
  }
  throw new Error('Tab never reached a seat');
}

/** The focused seat's ring as drawn: its outline width times the map's scale. */
async function ringOnScreen(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    const scale = el.getBoundingClientRect().width / el.offsetWidth;
    return { seat: el.getAttribute('aria-label'), width: parseFloat(style.outlineWidth) * scale, style: style.outlineStyle, scale };
  });
}

test('a focused seat keeps a ring of 2 px or more on screen, zoomed out or in', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDemoEvent(page);
  // From the zoom buttons, Tab goes into the map, so the ring is the
  // keyboard's (:focus-visible) one.
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Zoom out' }).click();
  await tabToSeat(page);
  const out = await ringOnScreen(page);
  expect(out.seat).toMatch(/^Orchestra, row A/);
  expect(out.scale, 'zoomed out').toBeLessThan(0.6);
  expect(out.style).toBe('solid');
  expect(out.width, `zoomed out: ${JSON.stringify(out)}`).toBeGreaterThanOrEqual(2);
  for (let i = 0; i < 8; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
  await tabToSeat(page);
  const zoomedIn = await ringOnScreen(page);
  expect(zoomedIn.scale, 'zoomed in').toBeGreaterThan(1.5);
  expect(zoomedIn.width, `zoomed in: ${JSON.stringify(zoomedIn)}`).toBeGreaterThanOrEqual(2);
  expect(zoomedIn.width).toBeLessThan(8);
});

test('an arena section is turned so its rows run across, with the stage marked at the top', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await page.getByRole('link', { name: /Arena: Demo Tour/ }).click();
  // 102 sits at the stage's side, drawn tilted on the overview; 210 faces it from the far end.
  for (const name of ['102', '210', '216']) {
    await page.getByRole('link', { name: new RegExp(`^Section ${name} (from|Sold)`) }).first().click();
    await expect(page.locator('.map-toolbar__section')).toContainText(`Section ${name}`);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.getByRole('button', { name: 'Zoom out' }).click();
    const rows = await page.locator('#seat-map button.seat').evaluateAll((seats) =>
      seats.map((s) => {
        const r = s.getBoundingClientRect();
        return { row: (s as HTMLElement).dataset.row!, x: r.x + r.width / 2, y: r.y + r.height / 2 };
      }));
    const byRow = new Map<string, { x: number; y: number }[]>();
    for (const s of rows) byRow.set(s.row, [...(byRow.get(s.row) ?? []), s]);
    const ordered = [...byRow.entries()].sort((a, b) => Number(a[0]) - Number(b[0]));
    const [, front] = ordered[0];
    const [, back] = ordered[ordered.length - 1];
    const height = (r: { y: number }[]) => r.reduce((s, p) => s + p.y, 0) / r.length;
    // Straight rows run level across the screen (curved ones bow a little).
    const spread = Math.max(...front.map((p) => p.y)) - Math.min(...front.map((p) => p.y));
    const width = Math.max(...front.map((p) => p.x)) - Math.min(...front.map((p) => p.x));
    expect(spread / width, `${name}: the front row's rise over its width`).toBeLessThan(0.2);
    expect(height(front), `${name}: the front row is above the back one`).toBeLessThan(height(back));
    const stage = await page.locator('#seat-map .map-shapes__stage').boundingBox();
    expect(stage, `${name}: a stage marker`).not.toBeNull();
    expect(stage!.y + stage!.height, `${name}: the stage is above every seat`).toBeLessThan(Math.min(...rows.map((s) => s.y)));
    await page.getByRole('link', { name: 'All sections' }).first().click();
  }
});

test('the overview fills a section with a band of each price free in it', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await page.getByRole('link', { name: /Arena: Demo Tour/ }).click();
  // Upper sections sell Upper ($59) at the front and Upper rear ($39) behind.
  const upper = page.getByRole('link', { name: /^Section 210 from/ });
  const bands = await upper.locator('polygon.overview__band').evaluateAll((polygons) =>
    polygons.map((p) => (p as SVGElement).style.fill));
  expect(bands).toHaveLength(2);
  expect(new Set(bands).size).toBe(2);
  // The bands are Upper's fill, then Upper rear's (front first), the very
  // fills the legend gives those prices.
  const tierOf = async (price: string) =>
    page.locator('.price-key li', { hasText: price }).getAttribute('data-tier');
  const [upperTier, rearTier] = [await tierOf('$59'), await tierOf('$39')];
  expect(bands).toEqual([`url("#fill-${upperTier}")`, `url("#fill-${rearTier}")`]);
  // And each fill's base is the legend swatch's own colour (compared as
  // computed colours: both come from app.css's --tier-N).
  for (const tier of [upperTier, rearTier]) {
    const swatch = await page.locator(`.price-key li[data-tier="${tier}"] .seat`).evaluate((el) => {
      const probe = document.createElement('i');
      probe.style.color = getComputedStyle(el).getPropertyValue('--tier').trim();
      document.body.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    });
    const base = await page.locator(`#fill-${tier} rect`).first().evaluate((el) => getComputedStyle(el).fill);
    expect(swatch).toMatch(/^rgb\(/);
    expect(base).toBe(swatch);
  }
});

test('a hovered or focused seat is described in full above the map: section, row, seat, tier, price, state and flags', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDemoEvent(page);
  const info = page.locator('[data-seat-info]');
  await seat(page, 'Orchestra', 'A', 3).hover();
  await expect(info).toHaveText('Orchestra · row A · seat 3 · Premium €85 · available');
  // By keyboard: the focused seat, with its accessibility flag. (The
  // pointer leaves the map first: focus pans it under the pointer.)
  await page.mouse.move(5, 5);
  await seat(page, 'Orchestra', 'T', 1).focus();
  await expect(info).toHaveText(/^Orchestra · row T · seat 1 · .* · wheelchair space/);
  await expect(info).toBeInViewport();
});

test('a section page opens at its top: its heading, the way back and the zoom buttons in view', async ({ page }) => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(viewport);
    await page.goto('/');
    await page.getByRole('link', { name: /Arena: Demo Tour/ }).click();
    await page.getByRole('link', { name: /^Section 105 (from|Sold)/ }).first().click();
    await expect(page.locator('.map-toolbar__section')).toContainText('Section 105');
    expect(await page.evaluate(() => window.scrollY), `${viewport.width} px: not scrolled`).toBe(0);
    await expect(page.getByRole('heading', { level: 1 })).toBeInViewport();
    await expect(page.getByRole('link', { name: 'All sections' }).first()).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Fit to screen' })).toBeInViewport();
    if (viewport.width < 600) {
      // The way to the other sections comes before the forms under the map.
      const overview = (await page.locator('.side .overview--mini').boundingBox())!;
      const best = (await page.locator('.best-form').boundingBox())!;
      expect(overview.y).toBeLessThan(best.y);
    }
  }
});

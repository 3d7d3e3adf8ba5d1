import { Page, APIRequestContext } from '@playwright/test';
import { test, expect } from './fixtures';
import { signInStaff, expectNoSeriousA11yViolations } from './helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The seat-map designer (issue 29): a venue drawn with the mouse and saved,
// an event built on it, a seat bought on the buyer's map, and every seat of
// that map where the designer put it; the same by keyboard; two managers
// saving at once; every shipped layout saved back unchanged.

// The designer is a desktop tool first: drawn at the size its screenshots
// are read at (a phone previews; see the screens).
test.use({ viewport: { width: 1440, height: 900 } });

type Layout = {
  name: string;
  sections: { name: string; position: { x: number; y: number }; rotation?: number; rows: { label: string; seats: { label: string; tier: string; x: number; y: number; flags: string[] }[] }[] }[];
  tiers: { code: string; name: string }[];
};

function place(section: Layout['sections'][number], x: number, y: number): [number, number] {
  const turn = ((section.rotation || 0) * Math.PI) / 180;
  const c = Math.cos(turn), s = Math.sin(turn);
  return [section.position.x + x * c - y * s, section.position.y + x * s + y * c];
}

async function designerReady(page: Page) {
  await expect(page.locator('[data-designer]')).toBeVisible();
  await expect(page.locator('[data-status]')).not.toBeEmpty();
}

async function addSection(page: Page, fields: Record<string, string>) {
  const form = page.locator('[data-form="section"]');
  for (const [name, value] of Object.entries(fields)) {
    const field = form.locator(`[name="${name}"]`);
    if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
    else await field.fill(value);
  }
  await form.getByRole('button', { name: 'Add section' }).click();
}

async function addTier(page: Page, name: string) {
  const tierForm = page.locator('[data-form="tier"]');
  if (!(await tierForm.isVisible())) await page.locator('summary', { hasText: /^Tier$/ }).click();
  await tierForm.locator('[name="name"]').fill(name);
  await tierForm.getByRole('button', { name: 'Add tier' }).click();
}

async function layoutOf(request: APIRequestContext, venueId: string): Promise<Layout> {
  const response = await request.get(`/api/staff/venues/${venueId}/layout`);
  expect(response.status()).toBe(200);
  return response.json();
}

function seatCircle(page: Page, s: number, r: number, p: number) {
  return page.locator(`circle[data-s="${s}"][data-r="${r}"][data-p="${p}"]`);
}

test('a theatre drawn with the mouse is sold on the buyer map, every seat where the designer put it', async ({ page }) => {
  test.setTimeout(120_000);
  await signInStaff(page, '/staff/venues');
  await page.getByRole('link', { name: 'Draw a new venue' }).click();
  await designerReady(page);
  const venueName = `Drawn Theatre ${Date.now()}`;
  await page.locator('[data-field="venue-name"]').fill(venueName);
  await page.locator('[data-field="venue-name"]').press('Tab');
  await addTier(page, 'Premium');
  await addTier(page, 'Balcony');

  // Three curved sections, the Orchestra with an aisle after seat 4.
  await addSection(page, { name: 'Orchestra', rows: '4', seats: '8', curve: '600', aisles: '4' });
  await addSection(page, { name: 'Mezzanine', rows: '3', seats: '10', curve: '800' });
  await addSection(page, { name: 'Balcony', rows: '2', seats: '12', curve: '900', row_labels: 'letters_no_io' });
  await expect(page.locator('[data-section]')).toHaveCount(3);
  await page.getByRole('button', { name: 'Fit' }).click();

  // Drag the Balcony 60 px (screen) to the right, and turn the Mezzanine by its handle.
  await page.getByRole('button', { name: /^Balcony \d+ seats/ }).click();
  const balconyX = Number(await page.locator('[data-form="inspect-section"] [name="x"]').inputValue());
  const balcony = page.locator('[data-section="2"] .d-outline');
  const box = (await balcony.boundingBox())!;
  await page.mouse.move(box.x + 8, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 38, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + 68, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(page.locator('[data-status]')).toHaveText('Moved Balcony.');
  expect(Number(await page.locator('[data-form="inspect-section"] [name="x"]').inputValue())).toBeGreaterThan(balconyX);
  await page.locator('[data-section="1"] .d-outline').click({ position: { x: 6, y: 6 } });
  const handle = page.locator('[data-handle="1"]');
  const h = (await handle.boundingBox())!;
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  // A small turn: the section turns about its front centre, and a big one
  // would swing its ends into its neighbours.
  await page.mouse.move(h.x + h.width / 2 + 10, h.y + h.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect(page.locator('[data-status]')).toContainText('Turned Mezzanine');

  // Paint: the whole Orchestra Premium with a drag lasso, its back row
  // back to Standard with shift-click, the Balcony by alt-click.
  await page.getByRole('button', { name: 'Paint', exact: true }).click();
  await page.locator('[data-brush]').selectOption('tier:premium');
  const orchestra = (await page.locator('[data-section="0"]').boundingBox())!;
  await page.mouse.move(orchestra.x - 4, orchestra.y - 4);
  await page.mouse.down();
  await page.mouse.move(orchestra.x + orchestra.width / 2, orchestra.y + orchestra.height / 2, { steps: 3 });
  await page.mouse.move(orchestra.x + orchestra.width + 4, orchestra.y + orchestra.height + 4, { steps: 3 });
  await page.mouse.up();
  await expect(page.locator('[data-status]')).toHaveText('Painted the seats in the box.');
  await page.locator('[data-brush]').selectOption('tier:standard');
  await seatCircle(page, 0, 3, 2).click({ modifiers: ['Shift'] });
  await page.locator('[data-brush]').selectOption('tier:balcony');
  await seatCircle(page, 2, 0, 0).click({ modifiers: ['Alt'] });
  // A wheelchair space and its companion seat, at the end of row D.
  await page.locator('[data-brush]').selectOption('flag:companion');
  await seatCircle(page, 0, 3, 1).click();
  await expect(page.locator('[data-checks-summary]')).toHaveText(/^1 problem;/);
  await expect(page.locator('[data-problems]')).toContainText('companion seat Orchestra D 2 has no wheelchair space beside it');
  await page.locator('[data-brush]').selectOption('flag:wheelchair');
  await seatCircle(page, 0, 3, 0).click();
  await expect(page.locator('[data-checks-summary]')).toHaveText('No problems.');
  // The seat beside the aisle, marked so.
  await page.locator('[data-brush]').selectOption('flag:aisle');
  await seatCircle(page, 0, 0, 3).click();
  // A bar at the back, with its counter.
  await page.locator('summary', { hasText: /^Label$/ }).click();
  const labelForm = page.locator('[data-form="label"]');
  await labelForm.locator('[name="text"]').fill('Bar');
  await labelForm.locator('[name="width"]').fill('120');
  await labelForm.locator('[name="height"]').fill('40');
  await labelForm.getByRole('button', { name: 'Add label' }).click();
  await expect(page.locator('[data-label] text')).toHaveText('Bar');
  await expectNoSeriousA11yViolations(page, 'the designer');

  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/staff\/venues\/\d+\/edit\?saved=1$/);
  const venueId = page.url().match(/venues\/(\d+)\/edit/)![1];
  const layout = await layoutOf(page.request, venueId);
  expect(layout.tiers.map((t) => t.code)).toEqual(['standard', 'premium', 'balcony']);
  expect(layout.sections.map((s) => s.name)).toEqual(['Orchestra', 'Mezzanine', 'Balcony']);
  expect(layout.sections[1].rotation).not.toBe(0);
  const orchestraRows = layout.sections[0].rows;
  expect(orchestraRows[0].seats.every((s) => s.tier === 'premium')).toBe(true);
  expect(orchestraRows[3].seats.every((s) => s.tier === 'standard')).toBe(true);
  expect(orchestraRows[3].seats[0].flags).toEqual(['wheelchair']);
  expect(orchestraRows[3].seats[1].flags).toEqual(['companion']);
  expect(orchestraRows[0].seats[3].flags).toEqual(['aisle']);
  expect((layout as unknown as { labels: { text: string; outline: number[][] }[] }).labels.map((l) => [l.text, l.outline.length])).toEqual([['Bar', 4]]);
  expect(layout.sections[2].rows.flatMap((r) => r.seats).every((s) => s.tier === 'balcony')).toBe(true);
  // The aisle: a wider gap after seat 4 than between seats 3 and 4.
  const front = orchestraRows[0].seats;
  const gap = (a: number, b: number) => Math.hypot(front[b].x - front[a].x, front[b].y - front[a].y);
  expect(gap(3, 4)).toBeGreaterThan(1.5 * gap(2, 3));

  // The preview draws it with the buyer's renderer before any event.
  const drawnSeats = layout.sections.reduce((n, s) => n + s.rows.reduce((m, r) => m + r.seats.length, 0), 0);
  await page.goto(`/staff/venues/${venueId}/preview`);
  await expect(page.locator('.seat-canvas .seat')).toHaveCount(drawnSeats);
  await expect(page.getByRole('button', { name: /^Orchestra, row D, seat 1, .*wheelchair/i })).toBeVisible();

  // An event on it, and a seat bought on the buyer's map.
  await page.goto(`/staff/venues/${venueId}`);
  await page.locator('#event-name').fill(`${venueName} premiere`);
  await page.locator('#event-starts').fill('2031-05-01T19:30');
  await page.locator('#price-standard').fill('40');
  await page.locator('#price-premium').fill('80');
  await page.locator('#price-balcony').fill('25');
  await page.getByRole('button', { name: 'Create event' }).click();
  await expect(page).toHaveURL(/\/staff\/events\/\d+$/);
  const eventId = page.url().match(/events\/(\d+)$/)![1];
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByRole('status')).toContainText('Published');

  const buyer = await page.context().browser()!.newPage();
  await buyer.goto(`http://127.0.0.1:${new URL(page.url()).port}/events/${eventId}`);
  const seats = buyer.locator('.seat-canvas .seat');
  const total = layout.sections.reduce((n, s) => n + s.rows.reduce((m, r) => m + r.seats.length, 0), 0);
  await expect(seats).toHaveCount(total);
  const drawn = new Map<string, [number, number]>();
  for (const section of layout.sections) {
    for (const row of section.rows) for (const seat of row.seats) drawn.set(`${section.name}, row ${row.label}, seat ${seat.label},`, place(section, seat.x, seat.y));
  }
  const shown = await seats.evaluateAll((buttons) => buttons.map((b) => [b.getAttribute('aria-label') || '', parseFloat((b as HTMLElement).style.left), parseFloat((b as HTMLElement).style.top)] as [string, number, number]));
  const [label0, left0, top0] = shown[0];
  const key = (label: string) => [...drawn.keys()].find((k) => label.startsWith(k))!;
  const [x0, y0] = drawn.get(key(label0))!;
  for (const [label, left, top] of shown) {
    const k = key(label);
    expect(k, label).toBeTruthy();
    const [x, y] = drawn.get(k)!;
    expect(Math.abs(left - left0 - (x - x0)), label).toBeLessThan(1);
    expect(Math.abs(top - top0 - (y - y0)), label).toBeLessThan(1);
  }
  await expect(buyer.getByRole('button', { name: /^Orchestra, row A, seat 4, .*aisle seat/ })).toBeVisible();
  await expect(buyer.locator('.map-shapes__label')).toHaveText('Bar');
  const orchestraA1 = buyer.getByRole('button', { name: /^Orchestra, row A, seat 1, / });
  await orchestraA1.click();
  await expect(orchestraA1).toHaveAttribute('aria-pressed', 'true');
  await buyer.close();
});

test('a section drawn, moved, turned and painted by keyboard alone', async ({ page }) => {
  await signInStaff(page, '/staff/venues/new');
  await designerReady(page);
  const name = `Keyboard Hall ${Date.now()}`;
  await page.locator('[data-field="venue-name"]').fill(name);
  await page.locator('[data-field="venue-name"]').press('Tab');
  const form = page.locator('[data-form="section"]');
  await form.locator('[name="name"]').fill('Stalls');
  await form.locator('[name="rows"]').fill('3');
  await form.locator('[name="seats"]').fill('6');
  await form.locator('[name="seats"]').press('Enter');
  await expect(page.locator('[data-status]')).toHaveText('Added Stalls.');
  const pick = page.getByRole('button', { name: /^Stalls/ });
  await pick.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-canvas]')).toBeFocused();
  const before = await page.locator('[data-form="inspect-section"] [name="x"]').inputValue();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  await page.keyboard.press('Shift+]');
  const rotation = page.locator('[data-form="inspect-section"] [name="rotation"]');
  const x = page.locator('[data-form="inspect-section"] [name="x"]');
  await expect(rotation).toHaveValue('17');
  await page.keyboard.press('Control+z');
  await expect(rotation).toHaveValue('2');
  await page.keyboard.press('Control+Shift+z');
  await expect(rotation).toHaveValue('17');
  // Three turns back, then one step undoes the whole burst of arrows.
  for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
  await expect(rotation).toHaveValue('0');
  await expect(x).toHaveValue(String(Number(before) + 5));
  await page.keyboard.press('Control+z');
  await expect(x).toHaveValue(before);
  for (let i = 0; i < 4; i++) await page.keyboard.press('Control+Shift+z');
  await expect(rotation).toHaveValue('17');
  await expect(x).toHaveValue(String(Number(before) + 5));
  // Paint it with the brush: a new tier, chosen by keyboard.
  await page.locator('summary', { hasText: /^Tier$/ }).press('Enter');
  await page.locator('[data-form="tier"] [name="name"]').fill('Circle');
  await page.locator('[data-form="tier"] [name="name"]').press('Enter');
  await page.locator('[data-brush]').selectOption('tier:circle');
  await page.locator('[data-canvas]').focus();
  await page.keyboard.press('p');
  await expect(page.locator('[data-status]')).toHaveText('Painted the section.');
  await page.getByRole('button', { name: 'Save' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/staff\/venues\/\d+\/edit\?saved=1$/);
  const venueId = page.url().match(/venues\/(\d+)\/edit/)![1];
  const layout = await layoutOf(page.request, venueId);
  const stalls = layout.sections[0];
  expect(stalls.position.x).toBe(Number(before) + 5);
  expect(stalls.rotation).toBe(17);
  expect(stalls.rows.flatMap((r) => r.seats).every((s) => s.tier === 'circle')).toBe(true);
});

test('a section laid out again keeps what was painted where its rows and places stay', async ({ page }) => {
  await signInStaff(page, '/staff/venues/new');
  await designerReady(page);
  await page.locator('[data-field="venue-name"]').fill(`Relaid Hall ${Date.now()}`);
  await page.locator('[data-field="venue-name"]').press('Tab');
  await addTier(page, 'Premium');
  await addSection(page, { name: 'Stalls', rows: '3', seats: '6' });
  await page.locator('[data-brush]').selectOption('tier:premium');
  await page.locator('[data-row-pick]').selectOption({ label: 'A' });
  await page.getByRole('button', { name: 'Paint the row' }).click();
  await page.locator('summary', { hasText: 'Lay out again' }).click();
  const form = page.locator('[data-form="relayout"]');
  await form.locator('[name="rows"]').fill('4');
  await form.locator('[name="seats"]').fill('8');
  await form.locator('[name="curve"]').fill('500');
  await form.getByRole('button', { name: 'Lay out again' }).click();
  await expect(page.locator('[data-status]')).toHaveText('Laid out again.');
  await expect(page.locator('circle[data-s="0"]')).toHaveCount(32);
  const tiers = await page.locator('circle[data-s="0"][data-r="0"]').evaluateAll((seats) => seats.map((c) => c.getAttribute('fill')));
  expect(tiers.slice(0, 6).every((f) => f === tiers[0])).toBe(true);
  expect(tiers[6]).not.toBe(tiers[0]);
  // Ctrl-click removes a seat; undo puts it back.
  await page.getByRole('button', { name: 'Select and move' }).click();
  await page.locator('circle[data-s="0"][data-r="1"][data-p="2"]').click({ modifiers: ['Control'] });
  await expect(page.locator('circle[data-s="0"]')).toHaveCount(31);
  await page.keyboard.press('Control+z');
  await expect(page.locator('circle[data-s="0"]')).toHaveCount(32);
  await page.keyboard.press('Control+z');
  await expect(page.locator('circle[data-s="0"]')).toHaveCount(18);
  // Back past the section's adding: nothing is selected, and the designer goes on.
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+z');
  await expect(page.locator('[data-section]')).toHaveCount(0);
  await expect(page.locator('[data-nothing-selected]')).toBeVisible();
  await addSection(page, { name: 'Circle', rows: '1', seats: '4' });
  await expect(page.locator('[data-section]')).toHaveCount(1);
});

test('two managers save the same version: the second is told and keeps their work to save again', async ({ page, browser }) => {
  await signInStaff(page, '/staff/venues/new');
  await designerReady(page);
  const name = `Shared Hall ${Date.now()}`;
  await page.locator('[data-field="venue-name"]').fill(name);
  await page.locator('[data-field="venue-name"]').press('Tab');
  await addSection(page, { name: 'Stalls', rows: '2', seats: '4' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/staff\/venues\/\d+\/edit\?saved=1$/);
  const editPath = new URL(page.url()).pathname;

  const other = await browser.newContext({ baseURL: new URL(page.url()).origin });
  const second = await other.newPage();
  await signInStaff(second, editPath);
  for (const p of [page, second]) {
    await p.goto(editPath);
    await designerReady(p);
  }
  await page.locator('[data-field="venue-zone"]').fill('Europe/Paris');
  await page.locator('[data-field="venue-zone"]').press('Tab');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('[data-status]')).toHaveText('Saved as version 2.');

  await addSection(second, { name: 'Circle', rows: '1', seats: '5' });
  await second.getByRole('button', { name: 'Save' }).click();
  const conflict = second.locator('[data-conflict]');
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText('Version 2 was saved after the version you opened');
  await expect(second.locator('[data-section]')).toHaveCount(2);
  await conflict.getByRole('button', { name: 'Save yours as the next version' }).click();
  await expect(second.locator('[data-status]')).toHaveText('Saved as version 3.');
  const venueId = editPath.match(/venues\/(\d+)/)![1];
  const layout = await layoutOf(page.request, venueId);
  expect(layout.sections.map((s) => s.name)).toEqual(['Stalls', 'Circle']);
  await other.close();
});

test('every shipped layout opens in the designer and saves back to an equal layout', async ({ page }) => {
  test.setTimeout(120_000);
  await signInStaff(page, '/staff/venues');
  const dir = join(__dirname, '../../../static/layouts');
  for (const file of ['theatre-300.json', 'concert-hall-2000.json', 'arena-20000.json']) {
    const text = readFileSync(join(dir, file), 'utf8');
    const read = await page.request.post(`/api/staff/layouts/read?file_name=${file}`, { data: text, headers: { 'Content-Type': 'text/plain' } });
    expect(read.status(), file).toBe(200);
    const layout = await read.json();
    layout.name = `${layout.name} round trip ${Date.now()}`;
    const created = await page.request.post('/api/staff/venues', { data: layout });
    expect(created.status(), file).toBe(201);
    const { id } = await created.json();
    const before = await layoutOf(page.request, String(id));
    const started = Date.now();
    await page.goto(`/staff/venues/${id}/edit`);
    await designerReady(page);
    const opened = Date.now() - started;
    const savedAt = Date.now();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('[data-status]')).toHaveText('Saved as version 2.', { timeout: 20_000 });
    console.log(`${file}: opened in ${opened} ms (designer's own count ${await page.locator('[data-designer]').getAttribute('data-loaded-ms')} ms), saved in ${Date.now() - savedAt} ms`);
    const after = await layoutOf(page.request, String(id));
    expect(after, file).toEqual(before);
  }
});

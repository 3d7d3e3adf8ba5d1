import { test, expect } from './fixtures';

test('ask for 3 best available and see three adjacent seats become mine', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: /Demo Night/ }).click();

  const form = page.locator('.best-form');
  await form.getByLabel('Number of seats').selectOption('3');
  // The Balcony keeps this test clear of the other specs' Orchestra rows.
  await form.getByLabel('Section').selectOption('Balcony');
  await form.getByRole('button', { name: 'Find seats' }).click();

  const notice = page.getByRole('status');
  await expect(notice).toContainText(/Found 3 seats together in Balcony, row [A-Z]+, seats \d+–\d+\./);
  const text = (await notice.textContent()) ?? '';
  const [, row, first, last] = text.match(/row ([A-Z]+), seats (\d+)–(\d+)/)!;
  expect(Number(last) - Number(first)).toBe(2);

  for (let n = Number(first); n <= Number(last); n++) {
    const seat = page.getByRole('button', { name: new RegExp(`^Balcony, row ${row}, seat ${n}, `) });
    await expect(seat).toHaveAttribute('aria-pressed', 'true');
    await expect(seat).toHaveClass(/seat--fresh/);
  }
  await expect(page.locator('#hold-panel')).toContainText(`Balcony, row ${row}, seat ${first}`);
  await expect(page.locator('#hold-panel .held-seats li')).toHaveCount(3);
});

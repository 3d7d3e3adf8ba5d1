import { test, expect } from './fixtures';

// The API's docs page: Swagger UI vendored from npm, over the app's own
// OpenAPI document, under the app's CSP (the fixture fails on a violation).
test('the API docs page lists every operation of the OpenAPI document', async ({ page, request }) => {
  const document = await (await request.get('/api/openapi.json')).json();
  expect(document.openapi).toMatch(/^3\.1/);
  const operations = Object.values(document.paths as Record<string, object>)
    .map((item) => Object.keys(item).length)
    .reduce((a, b) => a + b, 0);
  expect(operations).toBeGreaterThanOrEqual(16);
  await page.goto('/api/docs');
  await expect(page.locator('.opblock')).toHaveCount(operations);
  await expect(page.getByText('/api/holds/{hold_id}/purchase')).toBeVisible();
});

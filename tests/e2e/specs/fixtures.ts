import { test as base, expect, Page } from '@playwright/test';

// Every test fails on a Content Security Policy violation in any page it
// opens: the fixture's own page, and pages of contexts the test makes
// itself (second browsers, phones, staff).
export const test = base.extend<{ cspGuard: void }>({
  cspGuard: [
    async ({ page, browser }, use) => {
      const violations: string[] = [];
      const watch = (p: Page) =>
        p.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) {
            violations.push(`${p.url()}: ${message.text()}`);
          }
        });
      watch(page);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (...args: Parameters<typeof newContext>) => {
        const context = await newContext(...args);
        context.on('page', watch);
        return context;
      };
      await use();
      browser.newContext = newContext;
      expect(violations, 'Content Security Policy violations').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

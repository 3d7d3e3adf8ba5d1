// The hold panel's ticket-type totals (static/app/price-types.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { chargedTotals, discountOff, formatMoney, taxOn } from "../../../static/app/price-types.js";

test("money is written in the currency's own minor units", () => {
  assert.equal(formatMoney(8000, "EUR", "en"), "€80", "whole amounts as the server writes them");
  assert.equal(formatMoney(8050, "EUR", "en"), "€80.50");
  // Yen have no minor unit: 8000 is ¥8,000, not ¥80.
  assert.equal(formatMoney(8000, "JPY", "en"), "¥8,000");
  assert.match(formatMoney(2550, "EUR", "de"), /^25,50\s€$/);
});

test("tax is rounded half up per amount, included or added, as the server stores it", () => {
  // 5500 × 19 / 119 = 878.15; 150 × 19 / 119 = 23.95; 119 × 19 / 119 = 19.
  assert.equal(taxOn(5500, 1900, true), 878);
  assert.equal(taxOn(150, 1900, true), 24);
  assert.equal(taxOn(119, 1900, true), 19);
  // Added: 150 × 19 % = 28.5 rounds up; 100 × 0.5 % = 0.5 rounds up.
  assert.equal(taxOn(150, 1900, false), 29);
  assert.equal(taxOn(100, 50, false), 1);
  assert.equal(taxOn(5500, 0, false), 0, "no tax line");
});

test("fees and tax are charged per ticket, the tax added to the total only when not included", () => {
  const tickets = [{ cents: 5500, discount: 0 }, { cents: 2500, discount: 0 }];
  const included = chargedTotals(tickets, { feeCents: 150, taxHundredths: 1900, taxIncluded: true });
  assert.deepEqual(included, { discount: 0, fees: 300, tax: 878 + 24 + 399 + 24, total: 8300 });
  const added = chargedTotals(tickets, { feeCents: 150, taxHundredths: 1900, taxIncluded: false });
  assert.deepEqual(added, { discount: 0, fees: 300, tax: 1045 + 29 + 475 + 29, total: 8300 + 1045 + 29 + 475 + 29 });
  const none = { feeCents: 0, taxHundredths: 0, taxIncluded: true };
  assert.deepEqual(chargedTotals(tickets, none), { discount: 0, fees: 0, tax: 0, total: 8000 });
  // A discount comes off before the tax is worked out.
  const discounted = chargedTotals([{ cents: 5500, discount: 1100 }], { feeCents: 0, taxHundredths: 1900, taxIncluded: true });
  assert.deepEqual(discounted, { discount: 1100, fees: 0, tax: 703, total: 4400 });
});

test("a code takes its percentage or amount off the types it names", () => {
  const spring = { percent: 20, cents: 0, types: [] };
  assert.equal(discountOff(5500, "adult", spring), 1100);
  // Half up: 2525 × 20 % = 505; 2523 × 20 % = 504.6 → 505.
  assert.equal(discountOff(2523, "child", spring), 505);
  const students = { percent: 10, cents: 0, types: ["student"] };
  assert.equal(discountOff(3000, "student", students), 300);
  assert.equal(discountOff(5500, "adult", students), 0, "not a student ticket");
  const fiver = { percent: 0, cents: 500, types: [] };
  assert.equal(discountOff(300, "child", fiver), 300, "never below zero");
  assert.equal(discountOff(5500, "adult", null), 0, "no code");
});

// The hold panel's ticket-type totals (static/app/price-types.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { formatMoney, totalCents } from "../../../static/app/price-types.js";

test("the total is the GA tickets plus each seat's chosen type", () => {
  assert.equal(totalCents(0, [5500, 2500]), 8000);
  assert.equal(totalCents(4000, [3000]), 7000);
  assert.equal(totalCents(1200, []), 1200);
});

test("money is written in the currency's own minor units", () => {
  assert.equal(formatMoney(8000, "EUR", "en"), "€80", "whole amounts as the server writes them");
  assert.equal(formatMoney(8050, "EUR", "en"), "€80.50");
  // Yen have no minor unit: 8000 is ¥8,000, not ¥80.
  assert.equal(formatMoney(8000, "JPY", "en"), "¥8,000");
  assert.match(formatMoney(2550, "EUR", "de"), /^25,50\s€$/);
});

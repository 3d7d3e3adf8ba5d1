// The waiting room's page logic (static/app/queue.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

import { countdownText, leadingZeroBits, nextStep, solvePuzzle } from "../../../static/app/queue.js";

const digest = async (text) => new Uint8Array(createHash("sha256").update(text).digest());

test("leading zero bits count across bytes as the server counts them", () => {
  assert.equal(leadingZeroBits([0, 0, 0x10]), 19);
  assert.equal(leadingZeroBits([0x80]), 0);
  assert.equal(leadingZeroBits([0, 1]), 15);
  assert.equal(leadingZeroBits([0, 0]), 16);
});

test("the puzzle's answer is the first nonce whose hash has the bits", async () => {
  const challenge = "4.0000000000000000000000000000abcd.10.1800000000.sig";
  const nonce = await solvePuzzle(challenge, 10, digest, 64);
  assert.ok(leadingZeroBits(await digest(challenge + ":" + nonce)) >= 10);
  for (let n = 0; n < Number(nonce); n += 1) {
    assert.ok(leadingZeroBits(await digest(challenge + ":" + n)) < 10, `nonce ${n} came first`);
  }
});

test("countdowns read as minutes and seconds, with hours when long", () => {
  assert.equal(countdownText(59.2), "01:00");
  assert.equal(countdownText(-3), "00:00");
  assert.equal(countdownText(3 * 3600 + 62), "3:01:02");
});

test("the server's answer says what the page does next", () => {
  assert.deepEqual(nextStep({ state: "admitted", until: "x" }), { go: "map" });
  assert.deepEqual(nextStep({ state: "expired" }), { go: "reload" });
  assert.deepEqual(nextStep({ state: "waiting", position: 5, ahead: 4, poll_after_secs: 2 }), {
    show: { position: 5, ahead: 4 }, pollAfterMs: 2000,
  });
  // A silly interval is held between 1 s and a minute.
  assert.equal(nextStep({ state: "waiting", poll_after_secs: 0 }).pollAfterMs, 1000);
  assert.equal(nextStep({ state: "waiting", poll_after_secs: 9999 }).pollAfterMs, 60000);
});

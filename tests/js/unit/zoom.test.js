// The seat map's zoom maths (static/app/zoom.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  MAX_SCALE, MIN_TAP_PX, SEAT_PX, centring, clampScale, defaultScale, fitScale, minScale, toCanvas, tooSmallToTap, zoomAbout,
} from "../../../static/app/zoom.js";

const close = (actual, expected, what) => {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} is not ${expected}`);
};

const frame = { width: 800, height: 600 };
const map = { width: 2000, height: 1200 };

test("the scale is clamped between a little under the fit and MAX_SCALE", () => {
  assert.equal(fitScale(frame, map), 0.4);
  close(minScale(frame, map), 0.3, "three quarters of the fit");
  close(clampScale(0.01, frame, map), 0.3, "no farther");
  assert.equal(clampScale(99, frame, map), MAX_SCALE);
  assert.equal(clampScale(1.2, frame, map), 1.2);
  close(minScale(frame, { width: 100, height: 100 }), 0.75, "a small map: three quarters of its own size");
});

test("a map smaller than its frame is centred in it", () => {
  assert.deepEqual(centring(frame, map, 0.2), { offsetX: 200, offsetY: 180 });
  assert.deepEqual(centring(frame, map, 1), { offsetX: 0, offsetY: 0 });
});

test("zooming about a point keeps the canvas point under it where it is", () => {
  const view = { scale: 0.5, offsetX: 0, offsetY: 0, left: 120, top: 40 };
  // The last zooms out until the map is narrower than its frame (set in).
  for (const [next, x, y] of [[1, 400, 300], [2.5, 10, 590], [0.45, 700, 20], [0.35, 400, 300]]) {
    const before = toCanvas(view, x, y);
    const after = zoomAbout(view, next, x, y, frame, map);
    assert.equal(after.scale, next);
    const still = toCanvas(after, x, y);
    close(still.x, before.x, `x at ${next}×`);
    close(still.y, before.y, `y at ${next}×`);
  }
});

test("zooming past the limits stops at them, the point still fixed", () => {
  const view = { scale: 3, offsetX: 0, offsetY: 0, left: 900, top: 700 };
  const closest = zoomAbout(view, 10, 200, 100, frame, map);
  assert.equal(closest.scale, MAX_SCALE);
  const p = toCanvas(view, 200, 100), q = toCanvas(closest, 200, 100);
  close(q.x, p.x, "x"); close(q.y, p.y, "y");
  const farthest = zoomAbout(view, 0.001, 400, 300, frame, map);
  close(farthest.scale, minScale(frame, map), "the farthest");
  assert.ok(farthest.offsetX > 0, "and centred once smaller than the frame");
});

test("the opening scale: the whole house, on a phone and with a mouse; a phone's section big enough to tap", () => {
  const house = { width: 4000, height: 3000 };
  close(defaultScale(frame, house, { coarse: true, whole: true }), 0.2, "a phone sees the whole house");
  close(defaultScale(frame, house, { coarse: true, whole: false }), MIN_TAP_PX / SEAT_PX + 0.01, "a phone's section, big enough to tap");
  close(defaultScale(frame, house, { coarse: false, whole: true }), 0.2, "a mouse sees the whole house");
  // A hall deeper than it is wide: its back rows (the cheap seats) are in
  // the first view too, not below it.
  const deep = { width: 4000, height: 6000 };
  close(defaultScale(frame, deep, { coarse: false, whole: true }), 0.1, "the whole depth, not the width");
  close(defaultScale(frame, { width: 400, height: 300 }, { coarse: false, whole: true }), 1.5, "never closer than 1.5×");
  assert.equal(tooSmallToTap(0.5, true), true);
  assert.equal(tooSmallToTap(0.5, false), false, "a mouse aims at anything");
  assert.equal(tooSmallToTap(1, true), false);
});

// The designer's geometry (static/designer/geometry.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  MAX_ZOOM, MIN_ZOOM, PITCH, boundsOf, designFrom, fitView, freeSpot, keepInside, layOut, numberList,
  outlineOf, place, rowLabel, tableSeats, toVenuePoint, uniqueName, unplace, zoomView,
} from "../../../static/designer/geometry.js";
import { emptyLayout } from "../../../static/designer/state.js";

const close = (actual, expected, what) => {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} is not ${expected}`);
};

test("a seat is placed by its section's position and turn, and unplaced back", () => {
  const section = { position: { x: 100, y: 50 }, rotation: 90 };
  const [x, y] = place(section, 10, 0);
  close(x, 100, "a quarter turn clockwise: +x becomes +y");
  close(y, 60, "y");
  const [bx, by] = place({ position: { x: 0, y: 0 }, rotation: 180 }, 3, 4);
  close(bx, -3, "half a turn"); close(by, -4, "half a turn");
  assert.deepEqual(place({ position: { x: 5, y: 7 } }, 1, 2), [6, 9], "no rotation: moved only");
  for (const rotation of [0, 17, -45, 270]) {
    const turned = { position: { x: -20, y: 300 }, rotation };
    const [ux, uy] = unplace(turned, ...place(turned, 12.5, -7));
    close(ux, 12.5, `x back at ${rotation}°`); close(uy, -7, `y back at ${rotation}°`);
  }
});

test("bounds hold every point; a section's outline clears its seats", () => {
  assert.deepEqual(boundsOf([[3, -1], [-2, 4], [0, 0]]), { minX: -2, minY: -1, maxX: 3, maxY: 4 });
  const section = { rows: [{ seats: [{ x: 0, y: 0 }, { x: 60, y: 30 }] }] };
  const b = boundsOf(outlineOf(section));
  const margin = PITCH / 2 + 4;
  assert.deepEqual(b, { minX: -margin, minY: -margin, maxX: 60 + margin, maxY: 30 + margin });
  const drawn = [[0, 0], [10, 0], [10, 10]];
  assert.equal(outlineOf({ outline: drawn, rows: [] }), drawn, "a drawn outline is kept");
});

test("rows are labelled A…Z, AA…, optionally without I and O, or numbered", () => {
  assert.deepEqual([0, 25, 26, 27].map((i) => rowLabel(i, "letters")), ["A", "Z", "AA", "AB"]);
  assert.deepEqual([7, 8, 13].map((i) => rowLabel(i, "letters_no_io")), ["H", "J", "P"]);
  assert.equal(rowLabel(4, "numbers"), "5");
});

test("a design lays out straight rows, centred, with an aisle and its numbering", () => {
  const design = designFrom({ rows: "2", seats: "4", seat_spacing: "30", row_spacing: "40", aisles: "2", numbering: "rtl", start: "1", row_labels: "letters" });
  const rows = layOut(design, "std");
  assert.deepEqual(rows.map((r) => r.label), ["A", "B"]);
  const front = rows[0].seats;
  assert.deepEqual(front.map((s) => s.x), [-60, -30, 30, 60], "a seat's width of aisle after seat 2, centred");
  assert.deepEqual(front.map((s) => s.label), ["4", "3", "2", "1"], "right to left");
  assert.ok(rows[1].seats.every((s) => s.y === 40 && s.tier === "std"));
  const odd = layOut(designFrom({ rows: "1", seats: "4", numbering: "odd_even", start: "1" }), "std")[0].seats;
  assert.deepEqual(odd.map((s) => s.label), ["4", "2", "1", "3"], "odd right, even left, from the centre");
});

test("a curved row bends toward the stage, its seats the spacing apart", () => {
  const [row] = layOut(designFrom({ rows: "1", seats: "5", curve: "300", seat_spacing: "30" }), "std");
  const ys = row.seats.map((s) => s.y);
  assert.equal(ys[2], 0, "the centre seat stays on the line");
  assert.ok(ys[0] < 0 && ys[4] < 0 && ys[0] === ys[4], "the ends come forward alike");
  const gap = Math.hypot(row.seats[3].x - row.seats[2].x, row.seats[3].y - row.seats[2].y);
  assert.ok(Math.abs(gap - 30) < 0.5, `neighbours ${gap} apart`);
});

test("form values are held to the designer's limits", () => {
  const design = designFrom({ rows: "0", seats: "9999", seat_spacing: "3", counts: "10, x, 12,0, 600", aisles: "" });
  assert.equal(design.rows, 1);
  assert.equal(design.seats, 500);
  assert.equal(design.seat_spacing, 16);
  assert.deepEqual(design.counts, [10, 12]);
  assert.deepEqual(numberList(Array.from({ length: 300 }, (_, i) => i + 1).join(",")).length, 200);
});

test("a table's chairs stand round it, one pitch from the centre at least", () => {
  const { rows, outline } = tableSeats({ shape: "round", chairs: 6 }, "std", "Table 1");
  assert.equal(rows[0].label, "Table1");
  assert.equal(rows[0].seats.length, 6);
  for (const seat of rows[0].seats) close(Math.round(Math.hypot(seat.x, seat.y)), PITCH, "on the circle");
  assert.equal(outline.length, 16);
  const rect = tableSeats({ shape: "rect", chairs: 5 }, "std", "Long");
  assert.deepEqual(rect.rows[0].seats.map((s) => s.y), [-PITCH, -PITCH, -PITCH, PITCH, PITCH], "three along one side, two the other");
});

test("a shape moved past 0 stops at the edge, keeping its size", () => {
  const points = [[-10, 5], [20, 5], [20, -3]];
  keepInside(points);
  assert.deepEqual(points, [[0, 8], [30, 8], [30, 0]]);
});

test("something new goes below everything drawn, under a name no other has", () => {
  const model = emptyLayout();
  assert.deepEqual(freeSpot({ ...model, stage: null }), [500, 200], "an empty venue");
  assert.deepEqual(freeSpot(model), [500, 120 + 4 * PITCH], "below the stage");
  model.sections.push({ name: "Stalls", position: { x: 0, y: 0 }, rows: [] });
  model.ga_areas.push({ name: "Stalls 2", outline: [[0, 0], [1, 0], [1, 1]] });
  assert.equal(uniqueName(model, "Circle"), "Circle");
  assert.equal(uniqueName(model, "Stalls"), "Stalls 3");
});

test("fit shows every point with a margin, never closer than 1.5×", () => {
  const view = fitView([[100, 100], [300, 200]], 800, 400, 50);
  assert.equal(view.scale, Math.min(800 / 300, 400 / 200, 1.5));
  const [left, top] = toVenuePoint(view, 0, 0);
  close(top, 50, "the margin above the top point");
  assert.ok(left <= 50, "the margin left of the left point, or more");
  const [right] = toVenuePoint(view, 800, 0);
  close((left + right) / 2, 200, "centred across");
  assert.equal(fitView([], 800, 400), null);
});

test("zooming about a point keeps the venue point under it, within the zoom's limits", () => {
  const view = { x: 40, y: -25, scale: 0.8 };
  const before = toVenuePoint(view, 320, 180);
  const zoomed = zoomView(view, 320, 180, 1.3);
  close(zoomed.scale, 1.04, "scale");
  const after = toVenuePoint(zoomed, 320, 180);
  close(after[0], before[0], "x stays"); close(after[1], before[1], "y stays");
  assert.equal(zoomView({ x: 0, y: 0, scale: 7 }, 0, 0, 10).scale, MAX_ZOOM);
  assert.equal(zoomView({ x: 0, y: 0, scale: 0.03 }, 0, 0, 0.1).scale, MIN_ZOOM);
});

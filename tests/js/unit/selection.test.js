import { test } from "node:test";
import assert from "node:assert/strict";

import { boxFrom, choose, countText, seatsBetween, seatsInBox } from "../../../static/app/selection.js";

test("shift-click takes every seat of the row between the two, either way", () => {
  const row = ["11", "12", "13", "14", "15"];
  assert.deepEqual(seatsBetween(row, "12", "14"), ["12", "13", "14"]);
  assert.deepEqual(seatsBetween(row, "15", "13"), ["13", "14", "15"]);
  assert.deepEqual(seatsBetween(row, "13", "13"), ["13"]);
  assert.deepEqual(seatsBetween(row, "12", "99"), [], "a seat of another row takes nothing");
});

test("a dragged box takes the seats whose centre is inside, dragged any way", () => {
  const seats = [
    { id: "1", x: 10, y: 10 },
    { id: "2", x: 40, y: 10 },
    { id: "3", x: 40, y: 40 },
    { id: "4", x: 100, y: 100 },
  ];
  const box = boxFrom(50, 50, 0, 0);
  assert.deepEqual(box, { left: 0, top: 0, right: 50, bottom: 50 });
  assert.deepEqual(seatsInBox(seats, box), ["1", "2", "3"]);
  assert.deepEqual(seatsInBox(seats, boxFrom(35, 0, 45, 20)), ["2"]);
  assert.deepEqual(seatsInBox(seats, boxFrom(200, 200, 300, 300)), []);
});

test("choosing adds and takes away without touching the set it was given", () => {
  const before = new Set(["1"]);
  const after = choose(before, ["2", "3"], true);
  assert.deepEqual([...after].sort(), ["1", "2", "3"]);
  assert.deepEqual([...before], ["1"]);
  assert.deepEqual([...choose(after, ["1", "3"], false)], ["2"]);
});

test("the count is said in words", () => {
  assert.equal(countText(0), "No seats chosen.");
  assert.equal(countText(1), "1 seat chosen.");
  assert.equal(countText(12), "12 seats chosen.");
});

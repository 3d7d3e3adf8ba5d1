// The designer's undo history (static/designer/history.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { HISTORY_LIMIT, editSection, emptyHistory, record, redo, snapshot, undo } from "../../../static/designer/history.js";
import { emptyLayout } from "../../../static/designer/state.js";

/** A layout with one section of one seat. */
function layout() {
  const model = emptyLayout();
  model.sections.push({ name: "Stalls", position: { x: 0, y: 0 }, rows: [{ label: "A", seats: [{ label: "1", tier: "standard", x: 0, y: 0 }] }] });
  return model;
}

/** Makes a change the way the designer does: the layout before it kept. */
function change(history, model, fn) {
  record(history, snapshot(model));
  fn(model);
}

test("undo after two edits goes back one at a time, to the first state", () => {
  const history = emptyHistory();
  let model = layout();
  const first = structuredClone(model);
  change(history, model, (m) => { m.name = "Renamed"; });
  change(history, model, (m) => { editSection(m, 0).position.x = 40; });
  assert.equal(model.sections[0].position.x, 40);

  model = undo(history, snapshot(model));
  assert.equal(model.name, "Renamed");
  assert.equal(model.sections[0].position.x, 0, "the section before its move");
  model = undo(history, snapshot(model));
  assert.deepEqual(model, first);
  assert.equal(undo(history, snapshot(model)), null, "nothing before the first state");
});

test("redo after undo makes the change again, and a new change ends the redo", () => {
  const history = emptyHistory();
  let model = layout();
  change(history, model, (m) => { editSection(m, 0).rows[0].seats[0].tier = "premium"; });
  model = undo(history, snapshot(model));
  assert.equal(model.sections[0].rows[0].seats[0].tier, "standard");
  model = redo(history, snapshot(model));
  assert.equal(model.sections[0].rows[0].seats[0].tier, "premium");
  assert.equal(redo(history, snapshot(model)), null, "nothing more to redo");

  model = undo(history, snapshot(model));
  change(history, model, (m) => { m.time_zone = "Europe/Paris"; });
  assert.deepEqual(history.future, [], "a new change forgets what was undone");
  assert.equal(redo(history, snapshot(model)), null);
});

test("an edited section is a copy: the state kept in history does not change with it", () => {
  const history = emptyHistory();
  const model = layout();
  const before = model.sections[0];
  change(history, model, (m) => { editSection(m, 0).rows[0].seats.push({ label: "2", tier: "standard", x: 30, y: 0 }); });
  assert.notEqual(model.sections[0], before);
  assert.equal(before.rows[0].seats.length, 1);
  assert.equal(history.past[0].sections[0], before, "history holds the section as it was");
  assert.throws(() => editSection(model, 5), /no section 5/);
});

test("the history keeps its last HISTORY_LIMIT steps: the oldest go first", () => {
  const history = emptyHistory();
  let model = layout();
  for (let i = 1; i <= HISTORY_LIMIT + 20; i++) change(history, model, (m) => { m.name = `Hall ${i}`; });
  assert.equal(history.past.length, HISTORY_LIMIT);
  let steps = 0;
  for (let before; (before = undo(history, snapshot(model))); steps++) model = before;
  assert.equal(steps, HISTORY_LIMIT);
  assert.equal(model.name, "Hall 20", "the 20 oldest steps were dropped");
  assert.equal(history.future.length, HISTORY_LIMIT);
});

test("a small limit is kept too", () => {
  const history = emptyHistory();
  for (let i = 0; i < 5; i++) record(history, { step: i }, 3);
  assert.deepEqual(history.past, [{ step: 2 }, { step: 3 }, { step: 4 }]);
});

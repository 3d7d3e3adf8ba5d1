// Changing the layout: each change is one step of history, made, marked
// unsaved and drawn; undo and redo; what is selected.

import { editSection as copySection, record, redo as redoStep, snapshot, undo as undoStep } from "./history.js";
import { redraw } from "./render.js";

/** The status line. */
export function say(d, text) {
  d.statusLine.textContent = text;
}

/** Records the layout before a change, makes it, redraws. */
export function change(d, what, fn) {
  record(d.state.history, snapshot(d.state.model));
  endBurst(d);
  fn();
  d.state.dirty = true;
  say(d, what);
  redraw(d);
}

/** A copy of section i for an edit (the old object stays in history). */
export function editSection(d, i) {
  return copySection(d.state.model, i);
}

export function undo(d) {
  const { state } = d;
  const before = undoStep(state.history, snapshot(state.model));
  if (!before) return;
  endBurst(d);
  state.model = before;
  afterStep(d, "Undone.");
}

export function redo(d) {
  const { state } = d;
  const after = redoStep(state.history, snapshot(state.model));
  if (!after) return;
  endBurst(d);
  state.model = after;
  afterStep(d, "Redone.");
}

function afterStep(d, what) {
  forgetGoneSelection(d);
  d.state.dirty = true;
  say(d, what);
  redraw(d);
}

/** After undo or redo the selected thing may not exist any more. */
function forgetGoneSelection(d) {
  const { model, selected } = d.state;
  if (!selected) return;
  const list = { section: model.sections, area: model.ga_areas, label: model.labels }[selected.kind];
  if (list ? !list[selected.index] : !(model.stage && model.stage.outline && model.stage.outline.length >= 3)) d.state.selected = null;
}

/** Selects `which` (or nothing); drawn at once unless `render` is false
 * (a drag about to start draws when it ends). */
export function select(d, which, render = true) {
  endBurst(d);
  d.state.selected = which;
  if (render) redraw(d);
  else {
    for (const el of d.viewport.querySelectorAll(".d-section--selected, .d-area--selected, .d-stage--selected")) {
      el.classList.remove("d-section--selected", "d-area--selected", "d-stage--selected");
    }
  }
}

/** Ends a burst of arrow presses: the next press is a step of its own. */
export function endBurst(d) {
  clearTimeout(d.state.nudgeTimer);
  d.state.nudgeTimer = null;
}

export function deleteSelected(d) {
  const { model, selected } = d.state;
  if (!selected || selected.kind === "stage") return;
  const { kind, index } = selected;
  const what = { section: `Deleted ${model.sections[index]?.name}.`, area: "Deleted the area.", label: "Deleted the label." }[kind];
  change(d, what, () => {
    if (kind === "section") model.sections.splice(index, 1);
    else if (kind === "label") model.labels.splice(index, 1);
    else model.ga_areas.splice(index, 1);
    d.state.selected = null;
  });
}

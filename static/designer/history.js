// The undo history: the layouts before each change (past) and those undone
// (future), kept in plain arrays on the designer's state. Pure: no DOM.
//
// Sections are never changed in place once the history holds them: an edit
// replaces the section object (see `editSection`), so a step of history is
// a shallow copy of the sections array (cheap for 20,000 seats); the small
// parts (stage, tiers, areas, labels) are copied whole.

/** Steps kept; the oldest goes first. */
export const HISTORY_LIMIT = 100;

export function emptyHistory() {
  return { past: [], future: [] };
}

/** A copy of the layout as it is, to go back to. */
export function snapshot(model) {
  return {
    name: model.name,
    time_zone: model.time_zone,
    stage: structuredClone(model.stage),
    tiers: structuredClone(model.tiers),
    sections: model.sections.slice(),
    ga_areas: structuredClone(model.ga_areas),
    labels: structuredClone(model.labels),
  };
}

/** Keeps `before` as the step to undo to; a new change ends any redo. */
export function record(history, before, limit = HISTORY_LIMIT) {
  history.past.push(before);
  if (history.past.length > limit) history.past.shift();
  history.future = [];
}

/** The layout to go back to from `current` (kept for redo), or null. */
export function undo(history, current) {
  if (!history.past.length) return null;
  history.future.push(current);
  return history.past.pop();
}

/** The layout undone last (`current` kept for undo), or null. */
export function redo(history, current) {
  if (!history.future.length) return null;
  history.past.push(current);
  return history.future.pop();
}

/** A copy of section i for an edit: the old object stays in history. */
export function editSection(model, i) {
  if (!model.sections[i]) throw new Error(`no section ${i}`);
  const copy = structuredClone(model.sections[i]);
  model.sections[i] = copy;
  return copy;
}

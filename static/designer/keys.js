// The keyboard: arrows move the selected thing (a burst of presses is one
// step of history), [ and ] turn a section, Delete removes, P paints;
// Ctrl+Z and Ctrl+Shift+Z (or Ctrl+Y) undo and redo.

import { change, deleteSelected, editSection, redo, say, undo } from "./editor.js";
import { forgetRanks, keepInside, round } from "./geometry.js";
import { redraw } from "./render.js";
import { paint } from "./tools.js";

function nudge(d, dx, dy) {
  const { state } = d;
  // Repeated arrow presses are one step of history: a burst within a
  // second is one move.
  const burst = state.nudgeTimer !== null;
  const apply = () => {
    const { model, selected } = state;
    if (selected.kind === "section") {
      const section = editSection(d, selected.index);
      section.position.x = round(section.position.x + dx);
      section.position.y = round(section.position.y + dy);
      forgetRanks(section);
    } else if (selected.kind === "label") {
      const label = model.labels[selected.index];
      for (const p of [...(label.outline || [])]) { p[0] = round(p[0] + dx); p[1] = round(p[1] + dy); }
      label.x = Math.max(0, round(label.x + dx));
      label.y = Math.max(0, round(label.y + dy));
    } else {
      const outline = selected.kind === "area" ? model.ga_areas[selected.index].outline : model.stage.outline;
      for (const p of outline) { p[0] = round(p[0] + dx); p[1] = round(p[1] + dy); }
      keepInside(outline);
      if (selected.kind === "stage") model.sections.forEach((_, i) => forgetRanks(editSection(d, i)));
    }
  };
  if (burst) { apply(); state.dirty = true; redraw(d); say(d, "Moved."); }
  else change(d, "Moved.", apply);
  clearTimeout(state.nudgeTimer);
  state.nudgeTimer = setTimeout(() => { state.nudgeTimer = null; }, 1000);
}

function turnBy(d, by) {
  change(d, `Turned by ${by}°.`, () => {
    const section = editSection(d, d.state.selected.index);
    section.rotation = round(((section.rotation || 0) + by) % 360);
    forgetRanks(section);
  });
}

function canvasKey(d, event) {
  const { selected } = d.state;
  if (!selected) return;
  const step = event.shiftKey ? 10 : 1;
  const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  if (moves[event.key]) {
    event.preventDefault();
    const [dx, dy] = moves[event.key];
    nudge(d, dx, dy);
  } else if (["[", "]", "{", "}"].includes(event.key)) {
    // Shift turns by 15°; on most layouts Shift+] arrives as "}".
    event.preventDefault();
    if (selected.kind !== "section") return;
    const big = event.shiftKey || event.key === "{" || event.key === "}";
    turnBy(d, (event.key === "]" || event.key === "}" ? 1 : -1) * (big ? 15 : 1));
  } else if (event.key === "Delete" || event.key === "Backspace") {
    event.preventDefault();
    deleteSelected(d);
  } else if (event.key === "p" || event.key === "P") {
    if (selected.kind === "section") paint(d, "Painted the section.", [selected.index], () => true);
  }
}

export function installKeys(d) {
  d.svg.addEventListener("keydown", (event) => canvasKey(d, event));
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    if (event.target.matches("input, select, textarea")) return;
    const key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) { event.preventDefault(); undo(d); }
    else if ((key === "z" && event.shiftKey) || key === "y") { event.preventDefault(); redo(d); }
  });
}

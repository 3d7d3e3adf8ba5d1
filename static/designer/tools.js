// The pointer on the canvas: select and move (sections, shapes, labels),
// turn a section by its handle, pan, zoom with the wheel; and the paint
// tool (a seat, its row, its section, or the seats in a dragged box).

import { change, editSection, say, select } from "./editor.js";
import { forgetRanks, keepInside, place, round } from "./geometry.js";
import { record, snapshot } from "./history.js";
import { applyView, redraw, redrawSection, toVenue, zoomAt } from "./render.js";

/** A press that wanders less than this (px) is a click, not a drag. */
const DEAD_ZONE = 4;

function paintSeat(d, seat, brush) {
  if (brush.startsWith("tier:")) seat.tier = brush.slice(5);
  else if (brush.startsWith("flag:")) {
    const flag = brush.slice(5);
    const flags = new Set(seat.flags || []);
    flags.add(flag);
    seat.flags = [...flags];
    // A restricted view may say why ("Pillar"): the field beside the brush.
    if (flag === "restricted_view") {
      const note = d.root.querySelector("[data-view-note]").value.trim();
      if (note) seat.view_note = note; else delete seat.view_note;
    }
  } else if (brush === "clear") { seat.flags = []; delete seat.view_note; }
}

/** Paints the seats `pick(section, r, p)` chooses in the sections given. */
export function paint(d, what, sectionIndexes, pick) {
  const brush = d.root.querySelector("[data-brush]").value;
  if (!brush) return;
  change(d, what, () => {
    for (const s of sectionIndexes) {
      const section = editSection(d, s);
      section.rows.forEach((row, r) => row.seats.forEach((seat, p) => {
        if (pick(section, r, p)) paintSeat(d, seat, brush);
      }));
    }
  });
}

function pointerDown(d, event) {
  const { state, svg, viewport } = d;
  if (event.button !== 0) return;
  const target = event.target;
  const [vx, vy] = toVenue(d, event.clientX, event.clientY);
  svg.focus({ preventScroll: true });
  if (state.tool === "select" && (event.ctrlKey || event.metaKey) && target.dataset.p !== undefined) {
    // Ctrl-click (Cmd-click) removes a seat from its row.
    const s = Number(target.dataset.s), r = Number(target.dataset.r), p = Number(target.dataset.p);
    change(d, "Deleted the seat.", () => {
      const section = editSection(d, s);
      section.rows[r].seats.splice(p, 1);
      if (!section.rows[r].seats.length) section.rows.splice(r, 1);
      if (section.design?.kind !== "table") delete section.outline;
      forgetRanks(section);
    });
    return;
  }
  const start = { before: snapshot(state.model), cx: event.clientX, cy: event.clientY };
  if (target.dataset.handle !== undefined) {
    const s = Number(target.dataset.handle);
    state.drag = { ...start, kind: "turn", s, section: editSection(d, s) };
    svg.setPointerCapture(event.pointerId);
    return;
  }
  if (state.tool === "paint") {
    if (target.dataset.p !== undefined) {
      const s = Number(target.dataset.s), r = Number(target.dataset.r), p = Number(target.dataset.p);
      if (event.altKey) paint(d, "Painted the section.", [s], () => true);
      else if (event.shiftKey) paint(d, "Painted the row.", [s], (_, rr) => rr === r);
      else paint(d, "Painted the seat.", [s], (_, rr, pp) => rr === r && pp === p);
      return;
    }
    state.drag = { kind: "lasso", x0: vx, y0: vy, x1: vx, y1: vy };
    svg.setPointerCapture(event.pointerId);
    return;
  }
  const sectionEl = target.closest("[data-section]");
  const areaEl = target.closest("[data-area]");
  const stageEl = target.closest("[data-stage]");
  const labelEl = target.closest("[data-label]");
  if (sectionEl) {
    const s = Number(sectionEl.dataset.section);
    select(d, { kind: "section", index: s }, false);
    const section = editSection(d, s);
    state.drag = { ...start, kind: "move", s, section, vx, vy, x: section.position.x, y: section.position.y, moved: false, el: viewport.querySelector(`[data-section="${s}"]`) };
  } else if (labelEl) {
    const index = Number(labelEl.dataset.label);
    select(d, { kind: "label", index }, false);
    const label = state.model.labels[index];
    const points = [[label.x, label.y], ...(label.outline || [])];
    state.drag = { ...start, kind: "move-label", label, start: points.map((p) => p.slice()), vx, vy, moved: false, el: labelEl };
  } else if (areaEl || stageEl) {
    const which = areaEl ? { kind: "area", index: Number(areaEl.dataset.area) } : { kind: "stage", index: 0 };
    select(d, which, false);
    const outline = which.kind === "area" ? state.model.ga_areas[which.index].outline : state.model.stage.outline;
    state.drag = { ...start, kind: "move-shape", which, outline, start: outline.map((p) => p.slice()), vx, vy, moved: false, el: areaEl || stageEl };
  } else {
    state.drag = { kind: "pan", cx: event.clientX, cy: event.clientY, x: state.view.x, y: state.view.y };
    if (state.selected) select(d, null);
  }
  svg.setPointerCapture(event.pointerId);
}

function pointerMove(d, event) {
  const { drag, view } = d.state;
  if (!drag) return;
  if (drag.kind !== "pan" && drag.kind !== "lasso" && !drag.moved && Math.hypot(event.clientX - drag.cx, event.clientY - drag.cy) < DEAD_ZONE) return;
  const [vx, vy] = toVenue(d, event.clientX, event.clientY);
  if (drag.kind === "pan") {
    view.x = drag.x + event.clientX - drag.cx;
    view.y = drag.y + event.clientY - drag.cy;
    applyView(d);
  } else if (drag.kind === "move") {
    drag.section.position.x = round(drag.x + vx - drag.vx);
    drag.section.position.y = round(drag.y + vy - drag.vy);
    drag.moved = true;
    drag.el.setAttribute("transform", `translate(${drag.section.position.x} ${drag.section.position.y}) rotate(${drag.section.rotation || 0})`);
  } else if (drag.kind === "move-shape") {
    const dx = vx - drag.vx, dy = vy - drag.vy;
    drag.outline.forEach((p, i) => { p[0] = round(drag.start[i][0] + dx); p[1] = round(drag.start[i][1] + dy); });
    drag.moved = true;
    drag.el.setAttribute("transform", `translate(${dx} ${dy})`);
  } else if (drag.kind === "move-label") {
    const dx = vx - drag.vx, dy = vy - drag.vy;
    drag.label.x = round(drag.start[0][0] + dx);
    drag.label.y = round(drag.start[0][1] + dy);
    (drag.label.outline || []).forEach((p, i) => { p[0] = round(drag.start[i + 1][0] + dx); p[1] = round(drag.start[i + 1][1] + dy); });
    drag.moved = true;
    drag.el.setAttribute("transform", `translate(${dx} ${dy})`);
  } else if (drag.kind === "turn") {
    const { section } = drag;
    const angle = (Math.atan2(vy - section.position.y, vx - section.position.x) * 180) / Math.PI + 90;
    // Steps of 5° (the handle is close to the centre, so a short drag is
    // a wide turn); with Shift, any whole degree.
    section.rotation = (event.shiftKey ? Math.round(angle) : Math.round(angle / 5) * 5) % 360;
    drag.moved = true;
    d.viewport.querySelector(`[data-section="${drag.s}"]`).setAttribute("transform", `translate(${section.position.x} ${section.position.y}) rotate(${section.rotation})`);
  } else if (drag.kind === "lasso") {
    drag.x1 = vx; drag.y1 = vy;
    const lasso = d.viewport.querySelector("[data-lasso]");
    lasso.hidden = false;
    lasso.setAttribute("x", Math.min(drag.x0, vx)); lasso.setAttribute("y", Math.min(drag.y0, vy));
    lasso.setAttribute("width", Math.abs(vx - drag.x0)); lasso.setAttribute("height", Math.abs(vy - drag.y0));
  }
}

function endDrag(d) {
  const { state } = d;
  if (!state.drag) return;
  const done = state.drag;
  state.drag = null;
  if (done.kind === "move" || done.kind === "turn") {
    if (done.moved) {
      record(state.history, done.before);
      forgetRanks(done.section);
      state.dirty = true;
      say(d, done.kind === "move" ? `Moved ${done.section.name}.` : `Turned ${done.section.name} to ${done.section.rotation}°.`);
      redrawSection(d, done.s);
    } else {
      // A click: the section is selected, and its turning handle shown.
      redraw(d);
    }
  } else if (done.kind === "move-label") {
    if (done.moved) {
      record(state.history, done.before);
      const points = [[done.label.x, done.label.y], ...(done.label.outline || [])];
      keepInside(points);
      [done.label.x, done.label.y] = points[0];
      (done.label.outline || []).forEach((p, i) => { p[0] = points[i + 1][0]; p[1] = points[i + 1][1]; });
      state.dirty = true;
      say(d, "Moved the label.");
    }
    redraw(d);
  } else if (done.kind === "move-shape") {
    if (done.moved) {
      record(state.history, done.before);
      keepInside(done.outline);
      if (done.which.kind === "stage") state.model.sections.forEach((_, i) => forgetRanks(editSection(d, i)));
      state.dirty = true;
      say(d, "Moved.");
    }
    redraw(d);
  } else if (done.kind === "lasso") {
    endLasso(d, done);
  }
}

/** Paints the seats inside the box dragged (a box too small is a click). */
function endLasso(d, done) {
  const lasso = d.viewport.querySelector("[data-lasso]");
  const minX = Math.min(done.x0, done.x1), maxX = Math.max(done.x0, done.x1);
  const minY = Math.min(done.y0, done.y1), maxY = Math.max(done.y0, done.y1);
  if (maxX - minX < 3 && maxY - minY < 3) { lasso.hidden = true; return; }
  const inside = (section, r, p) => {
    const seat = section.rows[r].seats[p];
    const [x, y] = place(section, seat.x, seat.y);
    return x >= minX && x <= maxX && y >= minY && y <= maxY;
  };
  const touched = d.state.model.sections
    .map((section, s) => (section.rows.some((row, r) => row.seats.some((_, p) => inside(section, r, p))) ? s : -1))
    .filter((s) => s >= 0);
  if (touched.length) paint(d, "Painted the seats in the box.", touched, inside);
  else lasso.hidden = true;
}

export function installPointer(d) {
  const { root, svg } = d;
  svg.addEventListener("pointerdown", (event) => pointerDown(d, event));
  svg.addEventListener("pointermove", (event) => pointerMove(d, event));
  svg.addEventListener("pointerup", () => endDrag(d));
  svg.addEventListener("pointercancel", () => endDrag(d));
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAt(d, event.clientX, event.clientY, event.deltaY < 0 ? 1.15 : 1 / 1.15);
  }, { passive: false });
  // The reason field shows only with the restricted-view brush.
  root.querySelector("[data-brush]").addEventListener("change", (event) => {
    root.querySelector("[data-view-note-field]").hidden = event.target.value !== "flag:restricted_view";
  });
}

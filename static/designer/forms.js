// The side panel's forms (add a section, table, area, label or tier; the
// inspector's changes) and the toolbar's and panel's buttons.

import { change, deleteSelected, editSection, redo, say, select, undo } from "./editor.js";
import { designFrom, forgetRanks, freeSpot, layOut, boundsOf, PITCH, place, round, rowLabel, tableSeats, uniqueName } from "./geometry.js";
import { exportJson, importFile, load, save } from "./files.js";
import { fit, showPoint, zoomCentre } from "./render.js";
import { paint } from "./tools.js";

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

/** Each form's change to the layout, from its values `v`. */
const SUBMITS = {
  section(d, v, form) {
    const { model } = d.state;
    const design = designFrom(v);
    const [x, y] = freeSpot(model);
    const name = uniqueName(model, v.name.trim() || "Section");
    change(d, `Added ${name}.`, () => {
      model.sections.push({ name, position: { x, y }, rotation: 0, design, rows: layOut(design, v.tier) });
      d.state.selected = { kind: "section", index: model.sections.length - 1 };
    });
    form.querySelector('[name="name"]').value = "";
  },
  table(d, v) {
    const { model } = d.state;
    const design = { kind: "table", shape: v.shape, chairs: Math.max(1, Math.min(40, Number(v.chairs) || 1)) };
    const name = uniqueName(model, v.name.trim() || "Table");
    const { rows, outline } = tableSeats(design, v.tier, name);
    const [x, y] = freeSpot(model);
    change(d, `Added ${name}.`, () => {
      model.sections.push({ name, position: { x, y }, rotation: 0, design, outline, rows });
      d.state.selected = { kind: "section", index: model.sections.length - 1 };
    });
  },
  area(d, v) {
    const { model } = d.state;
    const [x, y] = freeSpot(model);
    const w = Number(v.width) || 300, h = Number(v.height) || 150;
    const name = uniqueName(model, v.name.trim() || "Standing");
    change(d, `Added ${name}.`, () => {
      model.ga_areas.push({ name, tier: v.tier, capacity: Math.max(1, Number(v.capacity) || 1), outline: [[x - w / 2, y], [x + w / 2, y], [x + w / 2, y + h], [x - w / 2, y + h]] });
      d.state.selected = { kind: "area", index: model.ga_areas.length - 1 };
    });
  },
  label(d, v, form) {
    const { model } = d.state;
    const text = v.text.trim();
    if (!text) return;
    const [x, y] = freeSpot(model);
    const w = Number(v.width) || 0, h = Number(v.height) || 0;
    change(d, `Added the label ${text}.`, () => {
      const label = { text, x, y };
      if (w > 0 && h > 0) label.outline = [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]];
      model.labels.push(label);
      d.state.selected = { kind: "label", index: model.labels.length - 1 };
    });
    form.reset();
  },
  "inspect-label"(d, v) {
    const { model, selected } = d.state;
    change(d, "Changed the label.", () => { model.labels[selected.index].text = v.text.trim() || model.labels[selected.index].text; });
  },
  tier(d, v, form) {
    const { model } = d.state;
    const name = v.name.trim();
    const code = (v.code || name).toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^_|_$/g, "").slice(0, 32) || `tier${model.tiers.length + 1}`;
    if (model.tiers.some((t) => t.code === code)) { say(d, `There is already a tier ${code}.`); return; }
    change(d, `Added the tier ${name}.`, () => model.tiers.push({ code, name }));
    form.reset();
  },
  "inspect-section"(d, v) {
    change(d, "Changed the section.", () => {
      const section = editSection(d, d.state.selected.index);
      section.name = v.name.trim() || section.name;
      const moved = Number(v.x) !== section.position.x || Number(v.y) !== section.position.y || Number(v.rotation) !== (section.rotation || 0);
      section.position = { x: Number(v.x) || 0, y: Number(v.y) || 0 };
      section.rotation = Math.max(-360, Math.min(360, Number(v.rotation) || 0));
      if (moved) forgetRanks(section);
    });
  },
  relayout(d, v) {
    change(d, "Laid out again.", () => {
      const section = editSection(d, d.state.selected.index);
      const design = designFrom(v);
      const rows = layOut(design, v.tier);
      // What was painted stays where its row and place stay.
      rows.forEach((row, r) => row.seats.forEach((seat, p) => {
        const before = section.rows[r]?.seats[p];
        if (before) { seat.tier = before.tier; seat.flags = [...(before.flags || [])]; if (before.view_note) seat.view_note = before.view_note; }
      }));
      section.design = design;
      section.rows = rows;
      delete section.outline;
    });
  },
  "inspect-area"(d, v) {
    change(d, "Changed the area.", () => {
      const area = d.state.model.ga_areas[d.state.selected.index];
      area.name = v.name.trim() || area.name;
      area.capacity = Math.max(1, Number(v.capacity) || 1);
      area.tier = v.tier;
    });
  },
  "inspect-stage"(d, v) {
    change(d, "Changed the stage.", () => {
      const { model } = d.state;
      const b = boundsOf(model.stage.outline);
      const cx = (b.minX + b.maxX) / 2, w = Number(v.width) || 100, h = Number(v.height) || 60;
      model.stage.outline = [[cx - w / 2, b.minY], [cx + w / 2, b.minY], [cx + w / 2, b.minY + h], [cx - w / 2, b.minY + h]];
      model.sections.forEach((_, i) => forgetRanks(editSection(d, i)));
    });
  },
};

/** The selected section's row `r`: a seat added at its end, the row
 * deleted, or a row added behind the back one. */
const ROW_ACTIONS = {
  "delete-row"(d, s, r) {
    change(d, "Deleted the row.", () => {
      const section = editSection(d, s);
      section.rows.splice(r, 1);
      if (section.design?.kind !== "table") delete section.outline;
    });
  },
  "add-seat"(d, s, r) {
    change(d, "Added a seat.", () => {
      const section = editSection(d, s);
      const seats = section.rows[r].seats;
      const last = seats[seats.length - 1];
      const before = seats[seats.length - 2];
      const [dx, dy] = before ? [last.x - before.x, last.y - before.y] : [PITCH, 0];
      const numbers = seats.map((x) => Number(x.label)).filter(Number.isFinite);
      const label = numbers.length ? String(Math.max(...numbers) + 1) : `${seats.length + 1}`;
      seats.push({ label, tier: last.tier, x: round(last.x + dx), y: round(last.y + dy), flags: [] });
      delete section.outline;
    });
  },
  "add-row"(d, s) {
    change(d, "Added a row.", () => {
      const section = editSection(d, s);
      const back = section.rows[section.rows.length - 1];
      if (!back) return;
      const labels = new Set(section.rows.map((x) => x.label));
      let i = (section.design?.first_row || 1) - 1 + section.rows.length;
      let label = rowLabel(i, section.design?.row_labels);
      while (labels.has(label)) label = rowLabel(++i, section.design?.row_labels);
      section.rows.push({ label, seats: back.seats.map((seat) => ({ ...seat, flags: [], view_note: undefined, y: round(seat.y + (section.design?.row_spacing || PITCH)), rank: undefined })) });
      for (const seat of section.rows[section.rows.length - 1].seats) delete seat.rank;
      if (section.design?.kind !== "table") delete section.outline;
    });
  },
};

function pickTool(d, button) {
  const { root, svg } = d;
  d.state.tool = button.dataset.tool;
  for (const b of root.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b === button));
  svg.classList.toggle("designer__canvas--paint", d.state.tool === "paint");
  say(d, d.state.tool === "paint" ? "Paint: click a seat, shift-click a row, alt-click a section, or drag a box." : "Select and move.");
}

/** A problem's button: its section (or area) selected, its seat shown. */
function showProblem(d, index) {
  const { model, problems } = d.state;
  const problem = problems[index];
  if (problem && problem.s !== undefined) select(d, { kind: "section", index: problem.s });
  if (problem && problem.area !== undefined) select(d, { kind: "area", index: problem.area });
  const seat = problem && problem.p !== undefined && model.sections[problem.s]?.rows[problem.r]?.seats[problem.p];
  if (seat) showPoint(d, place(model.sections[problem.s], seat.x, seat.y));
}

function click(d, button) {
  const { root, svg } = d;
  if (button.dataset.tool) return pickTool(d, button);
  if (button.dataset.pick) {
    const [kind, index] = button.dataset.pick.split(":");
    select(d, { kind, index: Number(index || 0) });
    svg.focus({ preventScroll: true });
    return;
  }
  if (button.dataset.problem !== undefined) {
    showProblem(d, Number(button.dataset.problem));
    svg.focus({ preventScroll: true });
    return;
  }
  const action = button.dataset.action;
  const s = d.state.selected?.index;
  const row = () => Number(root.querySelector("[data-row-pick]")?.value || 0);
  if (action === "undo") undo(d);
  else if (action === "redo") redo(d);
  else if (action === "zoom-in") zoomCentre(d, 1.3);
  else if (action === "zoom-out") zoomCentre(d, 1 / 1.3);
  else if (action === "fit") fit(d);
  else if (action === "save") save(d, false);
  else if (action === "overwrite") save(d, true);
  else if (action === "load-latest") load(d);
  else if (action === "export") exportJson(d);
  else if (action === "paint-section") paint(d, "Painted the section.", [s], () => true);
  else if (action === "paint-row") { const r = row(); paint(d, "Painted the row.", [s], (_, rr) => rr === r); }
  else if (action === "delete-selected") deleteSelected(d);
  else if (ROW_ACTIONS[action]) ROW_ACTIONS[action](d, s, row());
}

export function installForms(d) {
  const { root } = d;
  root.addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    SUBMITS[form.dataset.form]?.(d, formValues(form), form);
  });
  root.addEventListener("change", (event) => {
    const target = event.target;
    const { model } = d.state;
    if (target.dataset.field === "venue-name") change(d, "Renamed the venue.", () => { model.name = target.value.trim(); });
    else if (target.dataset.field === "venue-zone") change(d, "Changed the time zone.", () => { model.time_zone = target.value.trim(); });
    else if (target.dataset.tierName !== undefined) change(d, "Renamed the tier.", () => { model.tiers[Number(target.dataset.tierName)].name = target.value.trim(); });
    else if (target.matches("[data-import]")) importFile(d, target);
  });
  root.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button) click(d, button);
  });
}

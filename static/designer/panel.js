// The side panel: the venue's fields, the brush, the tiers' legend, the
// list of what is drawn, and the inspector of the thing selected.

import { boundsOf, round, seatsOf } from "./geometry.js";
import { esc } from "./markup.js";

export const FLAGS = [
  ["wheelchair", "Wheelchair space"],
  ["companion", "Companion seat"],
  ["restricted_view", "Restricted view"],
  ["aisle", "Aisle seat"],
  ["step_free", "Step-free access"],
  ["hearing_loop", "Hearing loop"],
  ["lift_up_armrest", "Lift-up armrest"],
  ["extra_legroom", "Extra legroom"],
];

/** The fields a section of rows is drawn from, filled from `design`. */
function designFields(design) {
  // Every value is escaped: a design comes from a stored layout, which may
  // have been written by hand (the server checks its shape before saving,
  // but one stored before that check would otherwise be markup here).
  const v = (value) => esc(value ?? "");
  const sel = (name, options, value) => `<select name="${name}">${options.map(([o, label]) => `<option value="${o}"${o === value ? " selected" : ""}>${label}</option>`).join("")}</select>`;
  const list = (values) => esc(Array.isArray(values) ? values.join(", ") : "");
  return `<label>Rows <input name="rows" type="number" min="1" max="200" value="${v(design.rows)}"></label>
    <label>Seats per row <input name="seats" type="number" min="1" max="500" value="${v(design.seats)}"></label>
    <label>Or seats in each row, front first <input name="counts" value="${list(design.counts)}"></label>
    <label>Curve radius (0: straight) <input name="curve" type="number" min="0" max="100000" value="${v(design.curve || 0)}"></label>
    <label>Seat spacing <input name="seat_spacing" type="number" min="16" max="200" value="${v(design.seat_spacing)}"></label>
    <label>Row spacing <input name="row_spacing" type="number" min="16" max="200" value="${v(design.row_spacing)}"></label>
    <label>Stagger alternate rows (seats) <input name="stagger" type="number" min="0" max="1" step="0.5" value="${v(design.stagger || 0)}"></label>
    <label>Skew per row <input name="skew" type="number" min="-60" max="60" value="${v(design.skew || 0)}"></label>
    <label>Numbering ${sel("numbering", [["ltr", "Left to right"], ["rtl", "Right to left"], ["odd_even", "Odd right, even left, from the centre"]], design.numbering)}</label>
    <label>First seat number <input name="start" type="number" min="0" max="9999" value="${v(design.start ?? 1)}"></label>
    <label>Row labels ${sel("row_labels", [["letters", "A, B, … AA"], ["letters_no_io", "A, B, … skipping I and O"], ["numbers", "1, 2, 3"]], design.row_labels)}</label>
    <label>First row label number (1 = A or 1) <input name="first_row" type="number" min="1" max="500" value="${v(design.first_row || 1)}"></label>
    <label>Aisles after seats (counted from the left) <input name="aisles" value="${list(design.aisles)}"></label>`;
}

/** A selector for the focused control of the side panel, to give focus
 * back after the panel is drawn again. */
function focusKey(d) {
  const el = document.activeElement;
  if (!el || !d.root.contains(el) || el === d.svg) return null;
  for (const attr of ["data-action", "data-pick", "data-tier-name", "data-field", "data-problem"]) {
    if (el.hasAttribute(attr)) return `[${attr}="${CSS.escape(el.getAttribute(attr))}"]`;
  }
  const form = el.closest("[data-form]");
  if (form && el.name) return `[data-form="${form.dataset.form}"] [name="${CSS.escape(el.name)}"]`;
  return null;
}

export function renderSide(d) {
  const keep = focusKey(d);
  renderPanel(d);
  if (keep && document.activeElement === document.body) d.root.querySelector(keep)?.focus();
}

function renderPanel(d) {
  const { root } = d;
  const { model, selected, history } = d.state;
  root.querySelector('[data-field="venue-name"]').value = model.name;
  root.querySelector('[data-field="venue-zone"]').value = model.time_zone || "";
  document.querySelector("[data-designer-title]").textContent = model.name;
  root.querySelector('[data-action="undo"]').disabled = !history.past.length;
  root.querySelector('[data-action="redo"]').disabled = !history.future.length;

  const tierOptions = model.tiers.map((t) => `<option value="${esc(t.code)}">${esc(t.name)}</option>`).join("");
  for (const select of root.querySelectorAll("[data-tier-select]")) {
    const keep = select.value;
    select.innerHTML = tierOptions;
    if (keep && model.tiers.some((t) => t.code === keep)) select.value = keep;
  }
  const brush = root.querySelector("[data-brush]");
  const keepBrush = brush.value;
  brush.innerHTML = `<optgroup label="Tier">${model.tiers.map((t) => `<option value="tier:${esc(t.code)}">${esc(t.name)}</option>`).join("")}</optgroup>` +
    `<optgroup label="Access">${FLAGS.map(([f, name]) => `<option value="flag:${f}">${name}</option>`).join("")}<option value="clear">No access mark</option></optgroup>`;
  if (keepBrush && [...brush.options].some((o) => o.value === keepBrush)) brush.value = keepBrush;

  root.querySelector("[data-legend]").innerHTML = model.tiers.map((t, i) => {
    const count = model.sections.reduce((n, s) => n + seatsOf(s).filter(({ seat }) => seat.tier === t.code).length, 0);
    return `<li><span class="d-swatch" style="background:${esc(d.colours[i % d.colours.length])}"></span>
      <input aria-label="Name of tier ${esc(t.code)}" data-tier-name="${i}" value="${esc(t.name)}" maxlength="200"> <span class="hint">${esc(t.code)}, ${count} seats</span></li>`;
  }).join("");

  const items = [];
  if (model.stage && model.stage.outline) items.push(`<li><button type="button" data-pick="stage" aria-pressed="${selected?.kind === "stage"}">Stage</button></li>`);
  model.sections.forEach((s, i) => items.push(`<li><button type="button" data-pick="section:${i}" aria-pressed="${selected?.kind === "section" && selected.index === i}">${esc(s.name)} <span class="hint">${seatsOf(s).length} seats</span></button></li>`));
  model.ga_areas.forEach((a, i) => items.push(`<li><button type="button" data-pick="area:${i}" aria-pressed="${selected?.kind === "area" && selected.index === i}">${esc(a.name)} <span class="hint">standing, ${esc(a.capacity)}</span></button></li>`));
  model.labels.forEach((l, i) => items.push(`<li><button type="button" data-pick="label:${i}" aria-pressed="${selected?.kind === "label" && selected.index === i}">${esc(l.text)} <span class="hint">label</span></button></li>`));
  root.querySelector("[data-outline]").innerHTML = items.join("");

  const panel = root.querySelector("[data-selection]");
  root.querySelector("[data-nothing-selected]").hidden = !!selected;
  panel.hidden = !selected;
  if (!selected) { panel.innerHTML = ""; return; }
  panel.innerHTML = inspector(model, selected, tierOptions);
  if (selected.kind === "area") panel.querySelector('[name="tier"]').value = model.ga_areas[selected.index].tier;
}

/** The inspector's forms for the thing selected. */
function inspector(model, selected, tierOptions) {
  if (selected.kind === "section") {
    const s = model.sections[selected.index];
    const rows = s.rows.map((r, i) => `<option value="${i}">${esc(r.label)}</option>`).join("");
    return `<form data-form="inspect-section" class="designer__form">
      <label>Name <input name="name" value="${esc(s.name)}" maxlength="200"></label>
      <label>X <input name="x" type="number" step="any" value="${round(s.position.x)}"></label>
      <label>Y <input name="y" type="number" step="any" value="${round(s.position.y)}"></label>
      <label>Turn (degrees) <input name="rotation" type="number" step="any" min="-360" max="360" value="${round(s.rotation || 0)}"></label>
      <button type="submit">Apply</button>
    </form>
    <p><button type="button" data-action="paint-section">Paint the section with the brush</button></p>
    <p><label>Row <select data-row-pick>${rows}</select></label>
      <button type="button" data-action="paint-row">Paint the row</button>
      <button type="button" data-action="add-seat">Add a seat at its end</button>
      <button type="button" data-action="delete-row">Delete the row</button></p>
    <p><button type="button" data-action="add-row">Add a row behind</button>
      <button type="button" data-action="delete-selected">Delete the section</button></p>
    ${s.design?.kind === "rows" ? `<details><summary>Lay out again</summary>
      <form data-form="relayout" class="designer__form">${designFields(s.design)}
        <label>Tier of new seats <select name="tier">${tierOptions}</select></label>
        <button type="submit">Lay out again</button>
        <p class="hint">Seats keep their tier and access marks where their row and place stay.</p>
      </form></details>` : ""}`;
  }
  if (selected.kind === "area") {
    const a = model.ga_areas[selected.index];
    return `<form data-form="inspect-area" class="designer__form">
      <label>Name <input name="name" value="${esc(a.name)}" maxlength="200"></label>
      <label>Capacity <input name="capacity" type="number" min="1" value="${esc(a.capacity)}"></label>
      <label>Tier <select name="tier">${tierOptions}</select></label>
      <button type="submit">Apply</button></form>
      <p><button type="button" data-action="delete-selected">Delete the area</button></p>`;
  }
  if (selected.kind === "label") {
    const l = model.labels[selected.index];
    return `<form data-form="inspect-label" class="designer__form">
      <label>Text <input name="text" value="${esc(l.text)}" maxlength="60"></label>
      <button type="submit">Apply</button></form>
      <p><button type="button" data-action="delete-selected">Delete the label</button></p>`;
  }
  const b = boundsOf(model.stage.outline);
  return `<form data-form="inspect-stage" class="designer__form">
    <label>Width <input name="width" type="number" step="any" min="30" value="${round(b.maxX - b.minX)}"></label>
    <label>Depth <input name="height" type="number" step="any" min="20" value="${round(b.maxY - b.minY)}"></label>
    <button type="submit">Apply</button></form>`;
}

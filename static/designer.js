// The seat-map designer: a venue layout drawn in SVG, saved through the
// staff API (GET/PUT /api/staff/venues/{id}/layout with If-Match, POST
// /api/staff/venues). No build step: one ES module.
//
// The model is the canonical layout JSON (static/venue-layout.schema.json),
// the same the server stores. Sections are never changed in place once the
// undo history holds them: an edit replaces the section object, so a step
// of history is a shallow copy of the arrays (cheap for 20,000 seats).

const SVG = "http://www.w3.org/2000/svg";
const PITCH = 30;
const TIER_COLOURS = ["#a3127f", "#0b6e4f", "#8f5300", "#6b4c9a", "#a4262c", "#00677f", "#5c5c00", "#7a3e6e"];
const FLAGS = [
  ["wheelchair", "Wheelchair space"],
  ["companion", "Companion seat"],
  ["restricted_view", "Restricted view"],
  ["aisle", "Aisle seat"],
  ["step_free", "Step-free access"],
  ["hearing_loop", "Hearing loop"],
  ["lift_up_armrest", "Lift-up armrest"],
  ["extra_legroom", "Extra legroom"],
];
const HISTORY_LIMIT = 100;

const root = document.querySelector("[data-designer]");
const svg = root.querySelector("[data-canvas]");
const viewport = root.querySelector("[data-viewport]");
const statusLine = root.querySelector("[data-status]");
const venueId = root.dataset.venueId || null;

let model = emptyLayout();
let etag = null;
let past = [];
let future = [];
let selected = null; // {kind: "section"|"area"|"stage", index}
let tool = "select";
let view = { x: 0, y: 0, scale: 1 };
let problems = [];
let dirty = false;

function emptyLayout() {
  return {
    name: "New venue",
    time_zone: "Europe/London",
    stage: { outline: [[300, 40], [700, 40], [700, 120], [300, 120]] },
    tiers: [{ code: "standard", name: "Standard" }],
    sections: [],
    ga_areas: [],
    labels: [],
  };
}

// ---- history -------------------------------------------------------------

function snapshot() {
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

/** Records the state before a change, makes it, redraws. */
function change(what, fn) {
  record(snapshot());
  endBurst();
  fn();
  dirty = true;
  say(what);
  redraw();
}

/** Keeps `before` as the step to undo to; a new change ends any redo. */
function record(before) {
  past.push(before);
  if (past.length > HISTORY_LIMIT) past.shift();
  future = [];
}

function undo() {
  if (!past.length) return;
  endBurst();
  future.push(snapshot());
  model = past.pop();
  forgetGoneSelection();
  dirty = true;
  say("Undone.");
  redraw();
}

function redo() {
  if (!future.length) return;
  endBurst();
  past.push(snapshot());
  model = future.pop();
  forgetGoneSelection();
  dirty = true;
  say("Redone.");
  redraw();
}

/** After undo or redo the selected thing may not exist any more. */
function forgetGoneSelection() {
  if (!selected) return;
  const list = { section: model.sections, area: model.ga_areas, label: model.labels }[selected.kind];
  if (list ? !list[selected.index] : !(model.stage && model.stage.outline && model.stage.outline.length >= 3)) selected = null;
}

/** A copy of section i for an edit (the old object stays in history). */
function editSection(i) {
  if (!model.sections[i]) throw new Error(`no section ${i}`);
  const copy = structuredClone(model.sections[i]);
  model.sections[i] = copy;
  return copy;
}

// ---- geometry ------------------------------------------------------------

function place(section, x, y) {
  const turn = ((section.rotation || 0) * Math.PI) / 180;
  const c = Math.cos(turn), s = Math.sin(turn);
  return [section.position.x + x * c - y * s, section.position.y + x * s + y * c];
}

/** Venue point to a section's own coordinates. */
function unplace(section, vx, vy) {
  const turn = (-(section.rotation || 0) * Math.PI) / 180;
  const dx = vx - section.position.x, dy = vy - section.position.y;
  const c = Math.cos(turn), s = Math.sin(turn);
  return [dx * c - dy * s, dx * s + dy * c];
}

function seatsOf(section) {
  return section.rows.flatMap((row, r) => row.seats.map((seat, p) => ({ row, seat, r, p })));
}

function boundsOf(points) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x); minY = Math.min(minY, y);
    maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  return { minX, minY, maxX, maxY };
}

/** The drawn outline: the file's, or a box around the seats. */
function outlineOf(section) {
  if (section.outline && section.outline.length >= 3) return section.outline;
  const pts = seatsOf(section).map(({ seat }) => [seat.x, seat.y]);
  if (!pts.length) return [[-20, -20], [20, -20], [20, 20], [-20, 20]];
  const b = boundsOf(pts);
  const m = PITCH / 2 + 4;
  return [[b.minX - m, b.minY - m], [b.maxX + m, b.minY - m], [b.maxX + m, b.maxY + m], [b.minX - m, b.maxY + m]];
}

/** Row labels: A…Z, AA…; optionally never I or O (they read as 1 and 0). */
function rowLabel(index, style) {
  if (style === "numbers") return String(index + 1);
  const letters = style === "letters_no_io" ? "ABCDEFGHJKLMNPQRSTUVWXYZ" : "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let n = index + 1, label = "";
  while (n > 0) {
    const rem = (n - 1) % letters.length;
    label = letters[rem] + label;
    n = Math.floor((n - 1) / letters.length);
  }
  return label;
}

/** "10, 12, 14" → [10, 12, 14]: whole numbers from 1, at most 200 (a
 * section's design is kept, and the server keeps at most 4 KB of it). */
function numberList(text) {
  return String(text || "").split(/[ ,;]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 500).slice(0, 200);
}

/** Lays out a section's seats from its design (rows, spacing, numbering). */
function layOut(design, tier) {
  const counts = design.counts && design.counts.length ? design.counts : Array(design.rows).fill(design.seats);
  const aisles = new Set(design.aisles || []);
  const rows = counts.map((count, r) => {
    const gaps = [...aisles].filter((a) => a < count).length;
    const width = (count - 1 + gaps) * design.seat_spacing;
    const stagger = r % 2 ? (design.stagger || 0) * design.seat_spacing : 0;
    let gap = 0;
    const seats = [];
    for (let p = 0; p < count; p++) {
      let x = p * design.seat_spacing + gap - width / 2 + stagger + (design.skew || 0) * r;
      let y = r * design.row_spacing;
      if (design.curve > 0) {
        const radius = design.curve + y;
        const angle = x / radius;
        x = radius * Math.sin(angle);
        y = radius * Math.cos(angle) - design.curve;
      }
      seats.push({ label: seatNumber(design, p, count), tier, x: round(x), y: round(y), flags: [] });
      if (aisles.has(p + 1)) gap += design.seat_spacing;
    }
    return { label: rowLabel((design.first_row || 1) - 1 + r, design.row_labels), seats };
  });
  return rows;
}

function seatNumber(design, p, count) {
  const start = design.start ?? 1;
  if (design.numbering === "rtl") return String(start + (count - 1 - p));
  if (design.numbering === "odd_even") {
    // From the centre out: odd numbers to the right, even to the left.
    const centre = Math.floor(count / 2);
    if (p >= centre) return String(start + 2 * (p - centre));
    return String(start + 1 + 2 * (centre - 1 - p));
  }
  return String(start + p);
}

function round(v) {
  return Math.round(v * 100) / 100;
}

/** Shapes and labels live at 0 and up (the server refuses less): a move
 * past the edge stops at it. */
function keepInside(points) {
  const minX = Math.min(...points.map((p) => p[0])), minY = Math.min(...points.map((p) => p[1]));
  for (const p of points) {
    if (minX < 0) p[0] = round(p[0] - minX);
    if (minY < 0) p[1] = round(p[1] - minY);
  }
}

function tableSeats(design, tier, name) {
  const seats = [];
  const n = design.chairs;
  if (design.shape === "rect") {
    const perSide = Math.ceil(n / 2);
    const width = perSide * PITCH;
    for (let i = 0; i < n; i++) {
      const top = i < perSide;
      const k = top ? i : n - 1 - i;
      seats.push({ label: String(i + 1), tier, x: round(-width / 2 + PITCH / 2 + k * PITCH), y: top ? -PITCH : PITCH, flags: [] });
    }
    const outline = [[-width / 2, -PITCH / 2 + 6], [width / 2, -PITCH / 2 + 6], [width / 2, PITCH / 2 - 6], [-width / 2, PITCH / 2 - 6]];
    return { rows: [{ label: name.replace(/\s+/g, "").slice(0, 16) || "T", seats }], outline };
  }
  const radius = Math.max(PITCH, (n * PITCH) / (2 * Math.PI));
  for (let i = 0; i < n; i++) {
    const a = (i / n) * 2 * Math.PI - Math.PI / 2;
    seats.push({ label: String(i + 1), tier, x: round(Math.cos(a) * radius), y: round(Math.sin(a) * radius), flags: [] });
  }
  const top = radius - PITCH / 2 - 2;
  const outline = Array.from({ length: 16 }, (_, i) => {
    const a = (i / 16) * 2 * Math.PI;
    return [round(Math.cos(a) * top), round(Math.sin(a) * top)];
  });
  return { rows: [{ label: name.replace(/\s+/g, "").slice(0, 16) || "T", seats }], outline };
}

/** Ranks the server computed from the old place no longer hold once a
 * section moves: dropped, the server ranks by distance to the stage. */
function forgetRanks(section) {
  for (const row of section.rows) for (const seat of row.seats) delete seat.rank;
}

// ---- drawing -------------------------------------------------------------

function tierIndex(code) {
  return model.tiers.findIndex((t) => t.code === code);
}

function colourOf(code) {
  const i = tierIndex(code);
  return i < 0 ? "#ffffff" : TIER_COLOURS[i % TIER_COLOURS.length];
}

function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function pointsAttr(points) {
  return points.map(([x, y]) => `${x},${y}`).join(" ");
}

function sectionMarkup(section, s) {
  const seats = [];
  section.rows.forEach((row, r) => {
    row.seats.forEach((seat, p) => {
      const flags = seat.flags || [];
      const cls = esc(["d-seat", ...flags.map((f) => `d-seat--${f}`), tierIndex(seat.tier) < 0 ? "d-seat--unpainted" : ""].join(" "));
      seats.push(`<circle class="${cls}" cx="${seat.x}" cy="${seat.y}" r="11" fill="${colourOf(seat.tier)}" data-s="${s}" data-r="${r}" data-p="${p}"><title>${esc(section.name)} ${esc(row.label)} ${esc(seat.label)}</title></circle>`);
    });
    const first = row.seats[0];
    if (first) seats.push(`<text class="d-row-label" x="${first.x - 22}" y="${first.y + 4}">${esc(row.label)}</text>`);
  });
  const outline = outlineOf(section);
  const b = boundsOf(outline);
  const isSelected = selected && selected.kind === "section" && selected.index === s;
  return `<g class="d-section${isSelected ? " d-section--selected" : ""}" data-section="${s}" transform="translate(${section.position.x} ${section.position.y}) rotate(${section.rotation || 0})">
    <polygon class="d-outline" points="${pointsAttr(outline)}" data-s="${s}"></polygon>
    <text class="d-section-name" x="${(b.minX + b.maxX) / 2}" y="${b.minY - 8}">${esc(section.name)}</text>
    ${seats.join("")}
    ${isSelected ? `<line class="d-handle-line" x1="${(b.minX + b.maxX) / 2}" y1="${b.minY}" x2="${(b.minX + b.maxX) / 2}" y2="${b.minY - 40}"></line><circle class="d-handle" data-handle="${s}" cx="${(b.minX + b.maxX) / 2}" cy="${b.minY - 40}" r="9"><title>Drag to turn</title></circle>` : ""}
  </g>`;
}

function redraw() {
  const parts = [];
  const stage = model.stage && model.stage.outline;
  if (stage && stage.length >= 3) {
    const b = boundsOf(stage);
    const sel = selected && selected.kind === "stage";
    parts.push(`<g class="d-stage${sel ? " d-stage--selected" : ""}" data-stage><polygon points="${pointsAttr(stage)}"></polygon><text x="${(b.minX + b.maxX) / 2}" y="${(b.minY + b.maxY) / 2 + 5}">Stage</text></g>`);
  }
  model.ga_areas.forEach((area, a) => {
    if (!area.outline) return;
    const b = boundsOf(area.outline);
    const sel = selected && selected.kind === "area" && selected.index === a;
    parts.push(`<g class="d-area${sel ? " d-area--selected" : ""}" data-area="${a}"><polygon points="${pointsAttr(area.outline)}" fill="${colourOf(area.tier)}"></polygon><text x="${(b.minX + b.maxX) / 2}" y="${(b.minY + b.maxY) / 2 + 5}">${esc(area.name)} (${esc(area.capacity)})</text></g>`);
  });
  model.labels.forEach((label, l) => {
    const sel = selected && selected.kind === "label" && selected.index === l;
    const shape = label.outline ? `<polygon points="${pointsAttr(label.outline)}"></polygon>` : "";
    parts.push(`<g class="d-label${sel ? " d-label--selected" : ""}" data-label="${l}">${shape}<text x="${label.x}" y="${label.y}">${esc(label.text)}</text></g>`);
  });
  model.sections.forEach((section, s) => parts.push(sectionMarkup(section, s)));
  parts.push(`<g class="d-markers" data-markers></g><rect class="d-lasso" data-lasso width="0" height="0" hidden></rect>`);
  viewport.innerHTML = parts.join("");
  applyView();
  renderSide();
  scheduleChecks();
}

/** Draws one section again (after it moved or turned): the arena's other
 * 19,000 seats stay as they are. */
function redrawSection(s) {
  const old = viewport.querySelector(`[data-section="${s}"]`);
  if (!old) return redraw();
  old.insertAdjacentHTML("afterend", sectionMarkup(model.sections[s], s));
  old.remove();
  renderSide();
  scheduleChecks();
}

function applyView() {
  viewport.setAttribute("transform", `translate(${view.x} ${view.y}) scale(${view.scale})`);
}

function fit() {
  const pts = [];
  for (const section of model.sections) for (const p of outlineOf(section)) pts.push(place(section, p[0], p[1]));
  for (const area of model.ga_areas) if (area.outline) pts.push(...area.outline);
  for (const label of model.labels) pts.push([label.x, label.y], ...(label.outline || []));
  if (model.stage && model.stage.outline) pts.push(...model.stage.outline);
  const box = svg.getBoundingClientRect();
  if (!pts.length || !box.width) return;
  const b = boundsOf(pts);
  const margin = 60;
  const scale = Math.min(box.width / (b.maxX - b.minX + 2 * margin), box.height / (b.maxY - b.minY + 2 * margin), 1.5);
  view = { scale, x: -(b.minX - margin) * scale + (box.width - (b.maxX - b.minX + 2 * margin) * scale) / 2, y: -(b.minY - margin) * scale };
  applyView();
}

/** Centres the view on a venue point, close enough to see its seat. */
function showPoint([x, y]) {
  const box = svg.getBoundingClientRect();
  view.scale = Math.max(view.scale, 1.5);
  view.x = box.width / 2 - x * view.scale;
  view.y = box.height / 2 - y * view.scale;
  applyView();
}

/** Screen (client) point to venue coordinates. */
function toVenue(clientX, clientY) {
  const box = svg.getBoundingClientRect();
  return [(clientX - box.left - view.x) / view.scale, (clientY - box.top - view.y) / view.scale];
}

// ---- the side panel ------------------------------------------------------

/** The fields a section of rows is drawn from, filled from `design`. */
function designFields(d) {
  // Every value is escaped: a design comes from a stored layout, which may
  // have been written by hand (the server checks its shape before saving,
  // but one stored before that check would otherwise be markup here).
  const v = (value) => esc(value ?? "");
  const sel = (name, options, value) => `<select name="${name}">${options.map(([o, label]) => `<option value="${o}"${o === value ? " selected" : ""}>${label}</option>`).join("")}</select>`;
  const list = (values) => esc(Array.isArray(values) ? values.join(", ") : "");
  return `<label>Rows <input name="rows" type="number" min="1" max="200" value="${v(d.rows)}"></label>
    <label>Seats per row <input name="seats" type="number" min="1" max="500" value="${v(d.seats)}"></label>
    <label>Or seats in each row, front first <input name="counts" value="${list(d.counts)}"></label>
    <label>Curve radius (0: straight) <input name="curve" type="number" min="0" max="100000" value="${v(d.curve || 0)}"></label>
    <label>Seat spacing <input name="seat_spacing" type="number" min="16" max="200" value="${v(d.seat_spacing)}"></label>
    <label>Row spacing <input name="row_spacing" type="number" min="16" max="200" value="${v(d.row_spacing)}"></label>
    <label>Stagger alternate rows (seats) <input name="stagger" type="number" min="0" max="1" step="0.5" value="${v(d.stagger || 0)}"></label>
    <label>Skew per row <input name="skew" type="number" min="-60" max="60" value="${v(d.skew || 0)}"></label>
    <label>Numbering ${sel("numbering", [["ltr", "Left to right"], ["rtl", "Right to left"], ["odd_even", "Odd right, even left, from the centre"]], d.numbering)}</label>
    <label>First seat number <input name="start" type="number" min="0" max="9999" value="${v(d.start ?? 1)}"></label>
    <label>Row labels ${sel("row_labels", [["letters", "A, B, … AA"], ["letters_no_io", "A, B, … skipping I and O"], ["numbers", "1, 2, 3"]], d.row_labels)}</label>
    <label>First row label number (1 = A or 1) <input name="first_row" type="number" min="1" max="500" value="${v(d.first_row || 1)}"></label>
    <label>Aisles after seats (counted from the left) <input name="aisles" value="${list(d.aisles)}"></label>`;
}

/** A design from a form's values (the add form, or the inspector's). */
function designFrom(v) {
  return {
    kind: "rows",
    rows: Math.max(1, Math.min(200, Number(v.rows) || 1)),
    seats: Math.max(1, Math.min(500, Number(v.seats) || 1)),
    counts: numberList(v.counts),
    curve: Math.max(0, Number(v.curve) || 0),
    seat_spacing: Math.max(16, Number(v.seat_spacing) || PITCH),
    row_spacing: Math.max(16, Number(v.row_spacing) || PITCH),
    stagger: Number(v.stagger) || 0,
    skew: Number(v.skew) || 0,
    numbering: v.numbering,
    start: Number(v.start) || 0,
    row_labels: v.row_labels,
    first_row: Math.max(1, Number(v.first_row) || 1),
    aisles: numberList(v.aisles),
  };
}

/** A selector for the focused control of the side panel, to give focus
 * back after the panel is drawn again. */
function focusKey() {
  const el = document.activeElement;
  if (!el || !root.contains(el) || el === svg) return null;
  for (const attr of ["data-action", "data-pick", "data-tier-name", "data-field", "data-problem"]) {
    if (el.hasAttribute(attr)) return `[${attr}="${CSS.escape(el.getAttribute(attr))}"]`;
  }
  const form = el.closest("[data-form]");
  if (form && el.name) return `[data-form="${form.dataset.form}"] [name="${CSS.escape(el.name)}"]`;
  return null;
}

function renderSide() {
  const keep = focusKey();
  renderPanel();
  if (keep && document.activeElement === document.body) root.querySelector(keep)?.focus();
}

function renderPanel() {
  root.querySelector('[data-field="venue-name"]').value = model.name;
  root.querySelector('[data-field="venue-zone"]').value = model.time_zone || "";
  document.querySelector("[data-designer-title]").textContent = model.name;
  root.querySelector('[data-action="undo"]').disabled = !past.length;
  root.querySelector('[data-action="redo"]').disabled = !future.length;

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
    return `<li><span class="d-swatch" style="background:${TIER_COLOURS[i % TIER_COLOURS.length]}"></span>
      <input aria-label="Name of tier ${esc(t.code)}" data-tier-name="${i}" value="${esc(t.name)}" maxlength="200"> <span class="hint">${esc(t.code)}, ${count} seats</span></li>`;
  }).join("");

  const outline = root.querySelector("[data-outline]");
  const items = [];
  if (model.stage && model.stage.outline) items.push(`<li><button type="button" data-pick="stage" aria-pressed="${selected?.kind === "stage"}">Stage</button></li>`);
  model.sections.forEach((s, i) => items.push(`<li><button type="button" data-pick="section:${i}" aria-pressed="${selected?.kind === "section" && selected.index === i}">${esc(s.name)} <span class="hint">${seatsOf(s).length} seats</span></button></li>`));
  model.ga_areas.forEach((a, i) => items.push(`<li><button type="button" data-pick="area:${i}" aria-pressed="${selected?.kind === "area" && selected.index === i}">${esc(a.name)} <span class="hint">standing, ${esc(a.capacity)}</span></button></li>`));
  model.labels.forEach((l, i) => items.push(`<li><button type="button" data-pick="label:${i}" aria-pressed="${selected?.kind === "label" && selected.index === i}">${esc(l.text)} <span class="hint">label</span></button></li>`));
  outline.innerHTML = items.join("");

  const panel = root.querySelector("[data-selection]");
  root.querySelector("[data-nothing-selected]").hidden = !!selected;
  panel.hidden = !selected;
  if (!selected) { panel.innerHTML = ""; return; }
  if (selected.kind === "section") {
    const s = model.sections[selected.index];
    const rows = s.rows.map((r, i) => `<option value="${i}">${esc(r.label)}</option>`).join("");
    panel.innerHTML = `<form data-form="inspect-section" class="designer__form">
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
  } else if (selected.kind === "area") {
    const a = model.ga_areas[selected.index];
    panel.innerHTML = `<form data-form="inspect-area" class="designer__form">
      <label>Name <input name="name" value="${esc(a.name)}" maxlength="200"></label>
      <label>Capacity <input name="capacity" type="number" min="1" value="${esc(a.capacity)}"></label>
      <label>Tier <select name="tier">${tierOptions}</select></label>
      <button type="submit">Apply</button></form>
      <p><button type="button" data-action="delete-selected">Delete the area</button></p>`;
    panel.querySelector('[name="tier"]').value = a.tier;
  } else if (selected.kind === "label") {
    const l = model.labels[selected.index];
    panel.innerHTML = `<form data-form="inspect-label" class="designer__form">
      <label>Text <input name="text" value="${esc(l.text)}" maxlength="60"></label>
      <button type="submit">Apply</button></form>
      <p><button type="button" data-action="delete-selected">Delete the label</button></p>`;
  } else {
    const b = boundsOf(model.stage.outline);
    panel.innerHTML = `<form data-form="inspect-stage" class="designer__form">
      <label>Width <input name="width" type="number" step="any" min="30" value="${round(b.maxX - b.minX)}"></label>
      <label>Depth <input name="height" type="number" step="any" min="20" value="${round(b.maxY - b.minY)}"></label>
      <button type="submit">Apply</button></form>`;
  }
}

// ---- checks --------------------------------------------------------------

let checkTimer = null;
function scheduleChecks() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(runChecks, 120);
}

function runChecks() {
  const found = [];
  const codes = new Set(model.tiers.map((t) => t.code));
  const names = new Set();
  const cells = new Map();
  const MIN = PITCH / 2;
  model.sections.forEach((section, s) => {
    if (names.has(section.name)) found.push({ kind: "duplicate_label", s, message: `Two sections are named ${section.name}` });
    names.add(section.name);
    const rowLabels = new Set();
    section.rows.forEach((row, r) => {
      if (rowLabels.has(row.label)) found.push({ kind: "duplicate_label", s, r, message: `${section.name}: row ${row.label} twice` });
      rowLabels.add(row.label);
      const seatLabels = new Set();
      const wheelchair = new Set(row.seats.map((seat, p) => ((seat.flags || []).includes("wheelchair") ? p : -9)));
      row.seats.forEach((seat, p) => {
        const where = `${section.name} ${row.label} ${seat.label}`;
        if (seatLabels.has(seat.label)) found.push({ kind: "duplicate_label", s, r, p, message: `${where}: the label is used twice in the row` });
        seatLabels.add(seat.label);
        if (!codes.has(seat.tier)) found.push({ kind: "unpainted", s, r, p, message: `${where} has no tier` });
        const flags = seat.flags || [];
        if (flags.includes("companion") && !flags.includes("wheelchair") && !wheelchair.has(p - 1) && !wheelchair.has(p + 1)) {
          found.push({ kind: "companion_alone", s, r, p, message: `${where}: a companion seat with no wheelchair space beside it` });
        }
        const [vx, vy] = place(section, seat.x, seat.y);
        const cx = Math.floor(vx / MIN), cy = Math.floor(vy / MIN);
        let clash = null;
        for (let dx = -1; dx <= 1 && !clash; dx++) for (let dy = -1; dy <= 1 && !clash; dy++) {
          for (const other of cells.get(`${cx + dx},${cy + dy}`) || []) {
            if ((other.vx - vx) ** 2 + (other.vy - vy) ** 2 < MIN * MIN) { clash = other; break; }
          }
        }
        if (clash) found.push({ kind: "overlap", s, r, p, message: `${where} overlaps ${clash.where}` });
        const key = `${cx},${cy}`;
        if (!cells.has(key)) cells.set(key, []);
        cells.get(key).push({ vx, vy, where });
      });
    });
  });
  model.ga_areas.forEach((area, a) => {
    if (names.has(area.name)) found.push({ kind: "duplicate_label", area: a, message: `${area.name} is already a section or area` });
    names.add(area.name);
    if (!codes.has(area.tier)) found.push({ kind: "unpainted", area: a, message: `${area.name} has no tier` });
  });
  problems = found;
  showProblems(found);
}

function showProblems(list) {
  const shown = list.slice(0, 200);
  root.querySelector("[data-checks-summary]").textContent = list.length
    ? `${list.length} problem${list.length === 1 ? "" : "s"}; the server refuses to save until they are fixed.`
    : "No problems.";
  root.querySelector("[data-problems]").innerHTML = shown
    .map((p, i) => `<li class="d-problem d-problem--${p.kind}"><button type="button" class="link-button" data-problem="${i}">${esc(p.message)}</button></li>`)
    .join("");
  const markers = viewport.querySelector("[data-markers]");
  if (!markers) return;
  markers.innerHTML = shown
    .filter((p) => p.p !== undefined)
    .map((p) => {
      const section = model.sections[p.s];
      const seat = section?.rows[p.r]?.seats[p.p];
      if (!seat) return "";
      const [x, y] = place(section, seat.x, seat.y);
      return `<circle class="d-marker" cx="${x}" cy="${y}" r="16"></circle>`;
    })
    .join("");
}

/** Problems the server found (422), placed by name. */
function showServerProblems(list) {
  const mapped = list.map((p) => {
    const s = model.sections.findIndex((x) => x.name === p.section);
    const r = s >= 0 && p.row !== undefined ? model.sections[s].rows.findIndex((x) => x.label === p.row) : -1;
    const seatIndex = r >= 0 && p.seat !== undefined ? model.sections[s].rows[r].seats.findIndex((x) => x.label === p.seat) : -1;
    const found = { kind: p.kind, message: p.message };
    if (s >= 0) found.s = s;
    if (r >= 0) found.r = r;
    if (seatIndex >= 0) found.p = seatIndex;
    return found;
  });
  problems = mapped;
  showProblems(mapped);
}

// ---- painting ------------------------------------------------------------

function brushValue() {
  return root.querySelector("[data-brush]").value;
}

function paintSeat(seat, brush) {
  if (brush.startsWith("tier:")) seat.tier = brush.slice(5);
  else if (brush.startsWith("flag:")) {
    const flag = brush.slice(5);
    const flags = new Set(seat.flags || []);
    flags.add(flag);
    seat.flags = [...flags];
    // A restricted view may say why ("Pillar"): the field beside the brush.
    if (flag === "restricted_view") {
      const note = root.querySelector("[data-view-note]").value.trim();
      if (note) seat.view_note = note; else delete seat.view_note;
    }
  } else if (brush === "clear") { seat.flags = []; delete seat.view_note; }
}

// The reason field shows only with the restricted-view brush.
root.querySelector("[data-brush]").addEventListener("change", (event) => {
  root.querySelector("[data-view-note-field]").hidden = event.target.value !== "flag:restricted_view";
});

/** Paints seats chosen by `pick(section, s, r, p)` in the sections given. */
function paint(what, sectionIndexes, pick) {
  const brush = brushValue();
  if (!brush) return;
  change(what, () => {
    for (const s of sectionIndexes) {
      const section = editSection(s);
      section.rows.forEach((row, r) => row.seats.forEach((seat, p) => {
        if (pick(section, r, p)) paintSeat(seat, brush);
      }));
    }
  });
}

// ---- pointer -------------------------------------------------------------

let drag = null;

svg.addEventListener("pointerdown", (event) => {
  if (event.button !== 0) return;
  const target = event.target;
  const [vx, vy] = toVenue(event.clientX, event.clientY);
  svg.focus({ preventScroll: true });
  if (tool === "select" && (event.ctrlKey || event.metaKey) && target.dataset.p !== undefined) {
    // Ctrl-click (Cmd-click) removes a seat from its row.
    const s = Number(target.dataset.s), r = Number(target.dataset.r), p = Number(target.dataset.p);
    change("Deleted the seat.", () => {
      const section = editSection(s);
      section.rows[r].seats.splice(p, 1);
      if (!section.rows[r].seats.length) section.rows.splice(r, 1);
      if (section.design?.kind !== "table") delete section.outline;
      forgetRanks(section);
    });
    return;
  }
  const start = { before: snapshot(), cx: event.clientX, cy: event.clientY };
  if (target.dataset.handle !== undefined) {
    const s = Number(target.dataset.handle);
    const section = editSection(s);
    drag = { ...start, kind: "turn", s, section };
    svg.setPointerCapture(event.pointerId);
    return;
  }
  if (tool === "paint") {
    if (target.dataset.p !== undefined) {
      const s = Number(target.dataset.s), r = Number(target.dataset.r), p = Number(target.dataset.p);
      if (event.altKey) paint("Painted the section.", [s], () => true);
      else if (event.shiftKey) paint("Painted the row.", [s], (_, rr) => rr === r);
      else paint("Painted the seat.", [s], (_, rr, pp) => rr === r && pp === p);
      return;
    }
    drag = { kind: "lasso", x0: vx, y0: vy, x1: vx, y1: vy };
    svg.setPointerCapture(event.pointerId);
    return;
  }
  const sectionEl = target.closest("[data-section]");
  const areaEl = target.closest("[data-area]");
  const stageEl = target.closest("[data-stage]");
  const labelEl = target.closest("[data-label]");
  if (sectionEl) {
    const s = Number(sectionEl.dataset.section);
    select({ kind: "section", index: s }, false);
    const section = editSection(s);
    drag = { ...start, kind: "move", s, section, vx, vy, x: section.position.x, y: section.position.y, moved: false, el: viewport.querySelector(`[data-section="${s}"]`) };
  } else if (labelEl) {
    const index = Number(labelEl.dataset.label);
    select({ kind: "label", index }, false);
    const label = model.labels[index];
    const points = [[label.x, label.y], ...(label.outline || [])];
    drag = { ...start, kind: "move-label", label, start: points.map((p) => p.slice()), vx, vy, moved: false, el: labelEl };
  } else if (areaEl || stageEl) {
    const which = areaEl ? { kind: "area", index: Number(areaEl.dataset.area) } : { kind: "stage", index: 0 };
    select(which, false);
    const outline = which.kind === "area" ? model.ga_areas[which.index].outline : model.stage.outline;
    drag = { ...start, kind: "move-shape", which, outline, start: outline.map((p) => p.slice()), vx, vy, moved: false, el: areaEl || stageEl };
  } else {
    drag = { kind: "pan", cx: event.clientX, cy: event.clientY, x: view.x, y: view.y };
    if (selected) select(null);
  }
  svg.setPointerCapture(event.pointerId);
});

/** A press that wanders less than this (px) is a click, not a drag. */
const DEAD_ZONE = 4;

svg.addEventListener("pointermove", (event) => {
  if (!drag) return;
  if (drag.kind !== "pan" && drag.kind !== "lasso" && !drag.moved && Math.hypot(event.clientX - drag.cx, event.clientY - drag.cy) < DEAD_ZONE) return;
  const [vx, vy] = toVenue(event.clientX, event.clientY);
  if (drag.kind === "pan") {
    view.x = drag.x + event.clientX - drag.cx;
    view.y = drag.y + event.clientY - drag.cy;
    applyView();
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
    // Whole degrees; with Shift, steps of 15°.
    section.rotation = (event.shiftKey ? Math.round(angle / 15) * 15 : Math.round(angle)) % 360;
    drag.moved = true;
    viewport.querySelector(`[data-section="${drag.s}"]`).setAttribute("transform", `translate(${section.position.x} ${section.position.y}) rotate(${section.rotation})`);
  } else if (drag.kind === "lasso") {
    drag.x1 = vx; drag.y1 = vy;
    const lasso = viewport.querySelector("[data-lasso]");
    lasso.hidden = false;
    lasso.setAttribute("x", Math.min(drag.x0, vx)); lasso.setAttribute("y", Math.min(drag.y0, vy));
    lasso.setAttribute("width", Math.abs(vx - drag.x0)); lasso.setAttribute("height", Math.abs(vy - drag.y0));
  }
});

function endDrag() {
  if (!drag) return;
  const done = drag;
  drag = null;
  if (done.kind === "move" || done.kind === "turn") {
    if (done.moved) {
      record(done.before);
      forgetRanks(done.section);
      dirty = true;
      say(done.kind === "move" ? `Moved ${done.section.name}.` : `Turned ${done.section.name} to ${done.section.rotation}°.`);
      redrawSection(done.s);
    } else {
      // A click: the section is selected, and its turning handle shown.
      redraw();
    }
  } else if (done.kind === "move-label") {
    if (done.moved) {
      record(done.before);
      const points = [[done.label.x, done.label.y], ...(done.label.outline || [])];
      keepInside(points);
      [done.label.x, done.label.y] = points[0];
      (done.label.outline || []).forEach((p, i) => { p[0] = points[i + 1][0]; p[1] = points[i + 1][1]; });
      dirty = true;
      say("Moved the label.");
    }
    redraw();
  } else if (done.kind === "move-shape") {
    if (done.moved) {
      record(done.before);
      keepInside(done.outline);
      if (done.which.kind === "stage") model.sections.forEach((_, i) => forgetRanks(editSection(i)));
      dirty = true;
      say("Moved.");
    }
    redraw();
  } else if (done.kind === "lasso") {
    const minX = Math.min(done.x0, done.x1), maxX = Math.max(done.x0, done.x1);
    const minY = Math.min(done.y0, done.y1), maxY = Math.max(done.y0, done.y1);
    if (maxX - minX < 3 && maxY - minY < 3) { viewport.querySelector("[data-lasso]").hidden = true; return; }
    const inside = (section, r, p) => {
      const seat = section.rows[r].seats[p];
      const [x, y] = place(section, seat.x, seat.y);
      return x >= minX && x <= maxX && y >= minY && y <= maxY;
    };
    const touched = model.sections.map((section, s) => (section.rows.some((row, r) => row.seats.some((_, p) => inside(section, r, p))) ? s : -1)).filter((s) => s >= 0);
    if (touched.length) paint("Painted the seats in the box.", touched, inside);
    else viewport.querySelector("[data-lasso]").hidden = true;
  }
}
svg.addEventListener("pointerup", endDrag);
svg.addEventListener("pointercancel", endDrag);

svg.addEventListener("wheel", (event) => {
  event.preventDefault();
  zoomAt(event.clientX, event.clientY, event.deltaY < 0 ? 1.15 : 1 / 1.15);
}, { passive: false });

function zoomAt(clientX, clientY, factor) {
  const box = svg.getBoundingClientRect();
  const px = clientX - box.left, py = clientY - box.top;
  const scale = Math.min(8, Math.max(0.02, view.scale * factor));
  view.x = px - ((px - view.x) * scale) / view.scale;
  view.y = py - ((py - view.y) * scale) / view.scale;
  view.scale = scale;
  applyView();
}

function select(which, render = true) {
  endBurst();
  selected = which;
  if (render) redraw();
  else {
    for (const el of viewport.querySelectorAll(".d-section--selected, .d-area--selected, .d-stage--selected")) {
      el.classList.remove("d-section--selected", "d-area--selected", "d-stage--selected");
    }
  }
}

// ---- keyboard ------------------------------------------------------------

svg.addEventListener("keydown", (event) => {
  if (!selected) return;
  const step = event.shiftKey ? 10 : 1;
  const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  if (moves[event.key]) {
    event.preventDefault();
    const [dx, dy] = moves[event.key];
    nudge(dx, dy);
  } else if (["[", "]", "{", "}"].includes(event.key)) {
    // Shift turns by 15°; on most layouts Shift+] arrives as "}".
    event.preventDefault();
    if (selected.kind !== "section") return;
    const big = event.shiftKey || event.key === "{" || event.key === "}";
    const by = (event.key === "]" || event.key === "}" ? 1 : -1) * (big ? 15 : 1);
    turnBy(by);
  } else if (event.key === "Delete" || event.key === "Backspace") {
    event.preventDefault();
    deleteSelected();
  } else if (event.key === "p" || event.key === "P") {
    if (selected.kind === "section") paint("Painted the section.", [selected.index], () => true);
  }
});

document.addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey)) return;
  if (event.target.matches("input, select, textarea")) return;
  const key = event.key.toLowerCase();
  if (key === "z" && !event.shiftKey) { event.preventDefault(); undo(); }
  else if ((key === "z" && event.shiftKey) || key === "y") { event.preventDefault(); redo(); }
});

let nudgeTimer = null;
/** Ends a burst of arrow presses: the next press is a step of its own. */
function endBurst() {
  clearTimeout(nudgeTimer);
  nudgeTimer = null;
}

function nudge(dx, dy) {
  // Repeated arrow presses are one step of history: a burst within a
  // second is one move.
  const burst = nudgeTimer !== null;
  const apply = () => {
    if (selected.kind === "section") {
      const section = editSection(selected.index);
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
      if (selected.kind === "stage") model.sections.forEach((_, i) => forgetRanks(editSection(i)));
    }
  };
  if (burst) { apply(); dirty = true; redraw(); say("Moved."); }
  else change("Moved.", apply);
  clearTimeout(nudgeTimer);
  nudgeTimer = setTimeout(() => { nudgeTimer = null; }, 1000);
}

function turnBy(by) {
  change(`Turned by ${by}°.`, () => {
    const section = editSection(selected.index);
    section.rotation = round(((section.rotation || 0) + by) % 360);
    forgetRanks(section);
  });
}

function deleteSelected() {
  if (!selected || selected.kind === "stage") return;
  const { kind, index } = selected;
  const what = { section: `Deleted ${model.sections[index]?.name}.`, area: "Deleted the area.", label: "Deleted the label." }[kind];
  change(what, () => {
    if (kind === "section") model.sections.splice(index, 1);
    else if (kind === "label") model.labels.splice(index, 1);
    else model.ga_areas.splice(index, 1);
    selected = null;
  });
}

// ---- forms and buttons ---------------------------------------------------

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

/** Somewhere free to put a new thing: below everything drawn. */
function freeSpot() {
  const pts = [];
  for (const section of model.sections) for (const p of outlineOf(section)) pts.push(place(section, p[0], p[1]));
  for (const area of model.ga_areas) if (area.outline) pts.push(...area.outline);
  if (model.stage && model.stage.outline) pts.push(...model.stage.outline);
  if (!pts.length) return [500, 200];
  const b = boundsOf(pts);
  return [round((b.minX + b.maxX) / 2), round(b.maxY + 4 * PITCH)];
}

function uniqueName(name) {
  const taken = new Set([...model.sections.map((s) => s.name), ...model.ga_areas.map((a) => a.name)]);
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name} ${i}`)) return `${name} ${i}`;
}

root.addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const v = formValues(form);
  const kind = form.dataset.form;
  if (kind === "section") {
    const design = designFrom(v);
    const [x, y] = freeSpot();
    const name = uniqueName(v.name.trim() || "Section");
    change(`Added ${name}.`, () => {
      model.sections.push({ name, position: { x, y }, rotation: 0, design, rows: layOut(design, v.tier) });
      selected = { kind: "section", index: model.sections.length - 1 };
    });
    form.querySelector('[name="name"]').value = "";
  } else if (kind === "table") {
    const design = { kind: "table", shape: v.shape, chairs: Math.max(1, Math.min(40, Number(v.chairs) || 1)) };
    const name = uniqueName(v.name.trim() || "Table");
    const { rows, outline } = tableSeats(design, v.tier, name);
    const [x, y] = freeSpot();
    change(`Added ${name}.`, () => {
      model.sections.push({ name, position: { x, y }, rotation: 0, design, outline, rows });
      selected = { kind: "section", index: model.sections.length - 1 };
    });
  } else if (kind === "area") {
    const [x, y] = freeSpot();
    const w = Number(v.width) || 300, h = Number(v.height) || 150;
    const name = uniqueName(v.name.trim() || "Standing");
    change(`Added ${name}.`, () => {
      model.ga_areas.push({ name, tier: v.tier, capacity: Math.max(1, Number(v.capacity) || 1), outline: [[x - w / 2, y], [x + w / 2, y], [x + w / 2, y + h], [x - w / 2, y + h]] });
      selected = { kind: "area", index: model.ga_areas.length - 1 };
    });
  } else if (kind === "label") {
    const text = v.text.trim();
    if (!text) return;
    const [x, y] = freeSpot();
    const w = Number(v.width) || 0, h = Number(v.height) || 0;
    change(`Added the label ${text}.`, () => {
      const label = { text, x, y };
      if (w > 0 && h > 0) label.outline = [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]];
      model.labels.push(label);
      selected = { kind: "label", index: model.labels.length - 1 };
    });
    form.reset();
  } else if (kind === "inspect-label") {
    change("Changed the label.", () => { model.labels[selected.index].text = v.text.trim() || model.labels[selected.index].text; });
  } else if (kind === "tier") {
    const name = v.name.trim();
    const code = (v.code || name).toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^_|_$/g, "").slice(0, 32) || `tier${model.tiers.length + 1}`;
    if (model.tiers.some((t) => t.code === code)) { say(`There is already a tier ${code}.`); return; }
    change(`Added the tier ${name}.`, () => model.tiers.push({ code, name }));
    form.reset();
  } else if (kind === "inspect-section") {
    change("Changed the section.", () => {
      const section = editSection(selected.index);
      section.name = v.name.trim() || section.name;
      const moved = Number(v.x) !== section.position.x || Number(v.y) !== section.position.y || Number(v.rotation) !== (section.rotation || 0);
      section.position = { x: Number(v.x) || 0, y: Number(v.y) || 0 };
      section.rotation = Math.max(-360, Math.min(360, Number(v.rotation) || 0));
      if (moved) forgetRanks(section);
    });
  } else if (kind === "relayout") {
    change("Laid out again.", () => {
      const section = editSection(selected.index);
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
  } else if (kind === "inspect-area") {
    change("Changed the area.", () => {
      const area = model.ga_areas[selected.index];
      area.name = v.name.trim() || area.name;
      area.capacity = Math.max(1, Number(v.capacity) || 1);
      area.tier = v.tier;
    });
  } else if (kind === "inspect-stage") {
    change("Changed the stage.", () => {
      const b = boundsOf(model.stage.outline);
      const cx = (b.minX + b.maxX) / 2, w = Number(v.width) || 100, h = Number(v.height) || 60;
      model.stage.outline = [[cx - w / 2, b.minY], [cx + w / 2, b.minY], [cx + w / 2, b.minY + h], [cx - w / 2, b.minY + h]];
      model.sections.forEach((_, i) => forgetRanks(editSection(i)));
    });
  }
});

root.addEventListener("change", (event) => {
  const target = event.target;
  if (target.dataset.field === "venue-name") change("Renamed the venue.", () => { model.name = target.value.trim(); });
  else if (target.dataset.field === "venue-zone") change("Changed the time zone.", () => { model.time_zone = target.value.trim(); });
  else if (target.dataset.tierName !== undefined) change("Renamed the tier.", () => { model.tiers[Number(target.dataset.tierName)].name = target.value.trim(); });
  else if (target.matches("[data-import]")) importFile(target);
});

root.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  if (button.dataset.tool) {
    tool = button.dataset.tool;
    for (const b of root.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b === button));
    svg.classList.toggle("designer__canvas--paint", tool === "paint");
    say(tool === "paint" ? "Paint: click a seat, shift-click a row, alt-click a section, or drag a box." : "Select and move.");
    return;
  }
  if (button.dataset.pick) {
    const [kind, index] = button.dataset.pick.split(":");
    select({ kind, index: Number(index || 0) });
    svg.focus({ preventScroll: true });
    return;
  }
  if (button.dataset.problem !== undefined) {
    const problem = problems[Number(button.dataset.problem)];
    if (problem && problem.s !== undefined) select({ kind: "section", index: problem.s });
    if (problem && problem.area !== undefined) select({ kind: "area", index: problem.area });
    const seat = problem && problem.p !== undefined && model.sections[problem.s]?.rows[problem.r]?.seats[problem.p];
    if (seat) showPoint(place(model.sections[problem.s], seat.x, seat.y));
    svg.focus({ preventScroll: true });
    return;
  }
  const action = button.dataset.action;
  const s = selected?.index;
  const row = () => Number(root.querySelector("[data-row-pick]")?.value || 0);
  if (action === "undo") undo();
  else if (action === "redo") redo();
  else if (action === "zoom-in") { const b = svg.getBoundingClientRect(); zoomAt(b.left + b.width / 2, b.top + b.height / 2, 1.3); }
  else if (action === "zoom-out") { const b = svg.getBoundingClientRect(); zoomAt(b.left + b.width / 2, b.top + b.height / 2, 1 / 1.3); }
  else if (action === "fit") fit();
  else if (action === "save") save(false);
  else if (action === "overwrite") save(true);
  else if (action === "load-latest") load();
  else if (action === "export") exportJson();
  else if (action === "paint-section") paint("Painted the section.", [s], () => true);
  else if (action === "paint-row") { const r = row(); paint("Painted the row.", [s], (_, rr) => rr === r); }
  else if (action === "delete-selected") deleteSelected();
  else if (action === "delete-row") {
    const r = row();
    change("Deleted the row.", () => {
      const section = editSection(s);
      section.rows.splice(r, 1);
      if (section.design?.kind !== "table") delete section.outline;
    });
  } else if (action === "add-seat") {
    const r = row();
    change("Added a seat.", () => {
      const section = editSection(s);
      const seats = section.rows[r].seats;
      const last = seats[seats.length - 1];
      const before = seats[seats.length - 2];
      const [dx, dy] = before ? [last.x - before.x, last.y - before.y] : [PITCH, 0];
      const numbers = seats.map((x) => Number(x.label)).filter(Number.isFinite);
      const label = numbers.length ? String(Math.max(...numbers) + 1) : `${seats.length + 1}`;
      seats.push({ label, tier: last.tier, x: round(last.x + dx), y: round(last.y + dy), flags: [] });
      delete section.outline;
    });
  } else if (action === "add-row") {
    change("Added a row.", () => {
      const section = editSection(s);
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
  }
});

// ---- files and the server ------------------------------------------------

function say(text) {
  statusLine.textContent = text;
}

/** The layout to send: drawn outlines of sections whose seats changed are
 * left for the server to draw; nothing else is added or dropped. */
function layoutToSend() {
  return {
    name: model.name,
    time_zone: model.time_zone,
    ...(model.stage && model.stage.outline && model.stage.outline.length >= 3 ? { stage: model.stage } : {}),
    tiers: model.tiers,
    sections: model.sections,
    ga_areas: model.ga_areas,
    labels: model.labels,
  };
}

function exportJson() {
  const blob = new Blob([JSON.stringify(layoutToSend(), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${(model.name || "venue").replace(/[^A-Za-z0-9_-]+/g, "-")}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function importFile(input) {
  const file = input.files[0];
  if (!file) return;
  const text = await file.text();
  const response = await fetch(`/api/staff/layouts/read?file_name=${encodeURIComponent(file.name)}`, {
    method: "POST", headers: { "Content-Type": "text/plain" }, body: text,
  });
  const body = await response.json().catch(() => ({}));
  input.value = "";
  if (!response.ok) {
    say(`${file.name} was not read: ${body.message || response.status}`);
    if (body.problems) showServerProblems(body.problems);
    return;
  }
  change(`Imported ${file.name}.`, () => { model = body; model.labels ||= []; selected = null; });
  fit();
}

async function load() {
  const started = performance.now();
  if (!venueId) {
    model = emptyLayout();
  } else {
    const response = await fetch(`/api/staff/venues/${venueId}/layout`);
    if (!response.ok) { say(`The venue could not be loaded (${response.status}).`); return; }
    etag = response.headers.get("ETag");
    model = await response.json();
  }
  model.labels ||= [];
  past = []; future = []; selected = null; dirty = false;
  root.querySelector("[data-conflict]").hidden = true;
  redraw();
  fit();
  // Once the side panel has laid out, the canvas has its final size.
  requestAnimationFrame(fit);
  const ms = Math.round(performance.now() - started);
  root.dataset.loadedMs = String(ms);
  say(venueId ? `Opened version ${(etag || "").replace(/\D/g, "")} (${seatCount()} seats).` : "A new venue: add sections, tiers and areas, then save.");
}

function seatCount() {
  return model.sections.reduce((n, s) => n + seatsOf(s).length, 0);
}

async function save(overwrite) {
  runChecks();
  const button = root.querySelector('[data-action="save"]');
  button.disabled = true;
  say("Saving…");
  try {
    let response;
    if (!venueId) {
      response = await fetch("/api/staff/venues", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(layoutToSend()) });
    } else {
      let tag = etag;
      if (overwrite) {
        // Saving over theirs on purpose: over the version there now, by name.
        const latest = await fetch(`/api/staff/venues/${venueId}/layout`, { method: "HEAD" });
        tag = latest.headers.get("ETag") || tag;
      }
      if (!tag) { say("Not saved: the venue never loaded. Reload the page."); return; }
      response = await fetch(`/api/staff/venues/${venueId}/layout`, {
        method: "PUT", headers: { "Content-Type": "application/json", "If-Match": tag }, body: JSON.stringify(layoutToSend()),
      });
    }
    const body = await response.json().catch(() => ({}));
    if (response.ok) {
      dirty = false;
      root.querySelector("[data-conflict]").hidden = true;
      if (!venueId) {
        window.location.assign(`/staff/venues/${body.id}/edit?saved=1`);
        return;
      }
      etag = response.headers.get("ETag");
      say(`Saved as version ${body.version}.`);
      root.dataset.savedVersion = String(body.version);
    } else if (response.status === 412) {
      const conflict = root.querySelector("[data-conflict]");
      conflict.hidden = false;
      conflict.querySelector("[data-conflict-text]").textContent = `Version ${body.version} was saved after the version you opened. Nothing of yours was saved, and nothing of theirs was changed.`;
      say(body.message || "Someone saved since you opened this venue.");
    } else if (response.status === 422 && body.problems) {
      showServerProblems(body.problems);
      say(body.message);
    } else {
      say(body.message || `Not saved (${response.status}).`);
    }
  } catch (err) {
    say(`Not saved: ${err.message}. Your drawing is still here.`);
  } finally {
    button.disabled = false;
  }
}

window.addEventListener("beforeunload", (event) => {
  if (dirty) event.preventDefault();
});

root.hidden = false;
load().then(() => {
  if (new URLSearchParams(location.search).has("saved")) say("Saved as version 1.");
});

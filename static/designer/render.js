// Drawing the layout in the SVG canvas, and the view onto it (pan, zoom,
// fit). Every redraw also redraws the side panel, re-places the problems
// last reported, and asks the server to check the layout again.

import { boundsOf, fitView, drawnPoints, outlineOf, toVenuePoint, zoomView } from "./geometry.js";
import { esc, pointsAttr } from "./markup.js";
import { renderSide } from "./panel.js";
import { scheduleChecks, showProblems } from "./problems.js";

export function tierIndex(model, code) {
  return model.tiers.findIndex((t) => t.code === code);
}

/** A tier's colour; white for a code that is no tier (unpainted). */
export function colourOf(d, code) {
  const i = tierIndex(d.state.model, code);
  return i < 0 ? "#ffffff" : d.colours[i % d.colours.length];
}

function sectionMarkup(d, section, s) {
  const { model, selected } = d.state;
  const seats = [];
  section.rows.forEach((row, r) => {
    row.seats.forEach((seat, p) => {
      const flags = seat.flags || [];
      const cls = esc(["d-seat", ...flags.map((f) => `d-seat--${f}`), tierIndex(model, seat.tier) < 0 ? "d-seat--unpainted" : ""].join(" "));
      seats.push(`<circle class="${cls}" cx="${seat.x}" cy="${seat.y}" r="11" fill="${esc(colourOf(d, seat.tier))}" data-s="${s}" data-r="${r}" data-p="${p}"><title>${esc(section.name)} ${esc(row.label)} ${esc(seat.label)}</title></circle>`);
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

/** Draws everything again, then the side panel and the problems. */
export function redraw(d) {
  const { model, selected } = d.state;
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
    parts.push(`<g class="d-area${sel ? " d-area--selected" : ""}" data-area="${a}"><polygon points="${pointsAttr(area.outline)}" fill="${esc(colourOf(d, area.tier))}"></polygon><text x="${(b.minX + b.maxX) / 2}" y="${(b.minY + b.maxY) / 2 + 5}">${esc(area.name)} (${esc(area.capacity)})</text></g>`);
  });
  model.labels.forEach((label, l) => {
    const sel = selected && selected.kind === "label" && selected.index === l;
    const shape = label.outline ? `<polygon points="${pointsAttr(label.outline)}"></polygon>` : "";
    parts.push(`<g class="d-label${sel ? " d-label--selected" : ""}" data-label="${l}">${shape}<text x="${label.x}" y="${label.y}">${esc(label.text)}</text></g>`);
  });
  model.sections.forEach((section, s) => parts.push(sectionMarkup(d, section, s)));
  parts.push(`<g class="d-markers" data-markers></g><rect class="d-lasso" data-lasso width="0" height="0" hidden></rect>`);
  d.viewport.innerHTML = parts.join("");
  applyView(d);
  afterDraw(d);
}

/** Draws one section again (after it moved or turned): the arena's other
 * 19,000 seats stay as they are. */
export function redrawSection(d, s) {
  const old = d.viewport.querySelector(`[data-section="${s}"]`);
  if (!old) return redraw(d);
  old.insertAdjacentHTML("afterend", sectionMarkup(d, d.state.model.sections[s], s));
  old.remove();
  afterDraw(d);
}

function afterDraw(d) {
  renderSide(d);
  showProblems(d);
  scheduleChecks(d);
}

export function applyView(d) {
  const { view } = d.state;
  d.viewport.setAttribute("transform", `translate(${view.x} ${view.y}) scale(${view.scale})`);
}

/** Shows the whole layout. */
export function fit(d) {
  const box = d.svg.getBoundingClientRect();
  const view = fitView(drawnPoints(d.state.model, { labels: true }), box.width, box.height);
  if (!view) return;
  d.state.view = view;
  applyView(d);
}

/** Centres the view on a venue point, close enough to see its seat. */
export function showPoint(d, [x, y]) {
  const box = d.svg.getBoundingClientRect();
  const { view } = d.state;
  view.scale = Math.max(view.scale, 1.5);
  view.x = box.width / 2 - x * view.scale;
  view.y = box.height / 2 - y * view.scale;
  applyView(d);
}

/** Screen (client) point to venue coordinates. */
export function toVenue(d, clientX, clientY) {
  const box = d.svg.getBoundingClientRect();
  return toVenuePoint(d.state.view, clientX - box.left, clientY - box.top);
}

/** Zooms by `factor` about a screen (client) point. */
export function zoomAt(d, clientX, clientY, factor) {
  const box = d.svg.getBoundingClientRect();
  d.state.view = zoomView(d.state.view, clientX - box.left, clientY - box.top, factor);
  applyView(d);
}

/** Zooms by `factor` about the canvas's centre. */
export function zoomCentre(d, factor) {
  const b = d.svg.getBoundingClientRect();
  zoomAt(d, b.left + b.width / 2, b.top + b.height / 2, factor);
}

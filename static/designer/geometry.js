// The designer's geometry: where a section's seats stand in the venue,
// how a section of rows or a table is laid out from its design, and the
// view's zoom. Pure functions of plain data (no DOM), unit-tested in
// tests/js.

/** A seat's pitch: the spacing a section is drawn at unless it says. */
export const PITCH = 30;

/** The closest and farthest the view zooms. */
export const MIN_ZOOM = 0.02;
export const MAX_ZOOM = 8;

/** A point of a section's own coordinates, in the venue's. */
export function place(section, x, y) {
  const turn = ((section.rotation || 0) * Math.PI) / 180;
  const c = Math.cos(turn), s = Math.sin(turn);
  return [section.position.x + x * c - y * s, section.position.y + x * s + y * c];
}

/** A venue point, in a section's own coordinates. */
export function unplace(section, vx, vy) {
  const turn = (-(section.rotation || 0) * Math.PI) / 180;
  const dx = vx - section.position.x, dy = vy - section.position.y;
  const c = Math.cos(turn), s = Math.sin(turn);
  return [dx * c - dy * s, dx * s + dy * c];
}

/** Every seat of a section, with its row and its place: r and p. */
export function seatsOf(section) {
  return section.rows.flatMap((row, r) => row.seats.map((seat, p) => ({ row, seat, r, p })));
}

export function seatCount(model) {
  return model.sections.reduce((n, s) => n + seatsOf(s).length, 0);
}

export function boundsOf(points) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x); minY = Math.min(minY, y);
    maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  return { minX, minY, maxX, maxY };
}

/** The drawn outline: the file's, or a box around the seats. */
export function outlineOf(section) {
  if (section.outline && section.outline.length >= 3) return section.outline;
  const pts = seatsOf(section).map(({ seat }) => [seat.x, seat.y]);
  if (!pts.length) return [[-20, -20], [20, -20], [20, 20], [-20, 20]];
  const b = boundsOf(pts);
  const m = PITCH / 2 + 4;
  return [[b.minX - m, b.minY - m], [b.maxX + m, b.minY - m], [b.maxX + m, b.maxY + m], [b.minX - m, b.maxY + m]];
}

/** Row labels: A…Z, AA…; optionally never I or O (they read as 1 and 0). */
export function rowLabel(index, style) {
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
export function numberList(text) {
  return String(text || "").split(/[ ,;]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 500).slice(0, 200);
}

export function round(v) {
  return Math.round(v * 100) / 100;
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

/** Lays out a section's seats from its design (rows, spacing, numbering). */
export function layOut(design, tier) {
  const counts = design.counts && design.counts.length ? design.counts : Array(design.rows).fill(design.seats);
  const aisles = new Set(design.aisles || []);
  return counts.map((count, r) => {
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
}

/** A design from a form's values (the add form, or the inspector's). */
export function designFrom(v) {
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

/** A table's chairs round it (or along its two long sides), and its top. */
export function tableSeats(design, tier, name) {
  const seats = [];
  const n = design.chairs;
  const row = name.replace(/\s+/g, "").slice(0, 16) || "T";
  if (design.shape === "rect") {
    const perSide = Math.ceil(n / 2);
    const width = perSide * PITCH;
    for (let i = 0; i < n; i++) {
      const top = i < perSide;
      const k = top ? i : n - 1 - i;
      seats.push({ label: String(i + 1), tier, x: round(-width / 2 + PITCH / 2 + k * PITCH), y: top ? -PITCH : PITCH, flags: [] });
    }
    const outline = [[-width / 2, -PITCH / 2 + 6], [width / 2, -PITCH / 2 + 6], [width / 2, PITCH / 2 - 6], [-width / 2, PITCH / 2 - 6]];
    return { rows: [{ label: row, seats }], outline };
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
  return { rows: [{ label: row, seats }], outline };
}

/** Shapes and labels live at 0 and up (the server refuses less): a move
 * past the edge stops at it. Changes the points in place. */
export function keepInside(points) {
  const minX = Math.min(...points.map((p) => p[0])), minY = Math.min(...points.map((p) => p[1]));
  for (const p of points) {
    if (minX < 0) p[0] = round(p[0] - minX);
    if (minY < 0) p[1] = round(p[1] - minY);
  }
}

/** Ranks the server computed from the old place no longer hold once a
 * section moves: dropped, the server ranks by distance to the stage. */
export function forgetRanks(section) {
  for (const row of section.rows) for (const seat of row.seats) delete seat.rank;
}

/** Every point drawn (sections' outlines placed, areas, the stage, and
 * with `labels` the labels too), in venue coordinates. */
export function drawnPoints(model, { labels = false } = {}) {
  const pts = [];
  for (const section of model.sections) for (const p of outlineOf(section)) pts.push(place(section, p[0], p[1]));
  for (const area of model.ga_areas) if (area.outline) pts.push(...area.outline);
  if (labels) for (const label of model.labels) pts.push([label.x, label.y], ...(label.outline || []));
  if (model.stage && model.stage.outline) pts.push(...model.stage.outline);
  return pts;
}

/** Somewhere free to put a new thing: below everything drawn. */
export function freeSpot(model) {
  const pts = drawnPoints(model);
  if (!pts.length) return [500, 200];
  const b = boundsOf(pts);
  return [round((b.minX + b.maxX) / 2), round(b.maxY + 4 * PITCH)];
}

/** `name`, or "name 2", "name 3"…: the first no section or area has. */
export function uniqueName(model, name) {
  const taken = new Set([...model.sections.map((s) => s.name), ...model.ga_areas.map((a) => a.name)]);
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name} ${i}`)) return `${name} ${i}`;
}

// ---- the view: venue coordinates to the canvas's pixels ------------------

/** The view that shows every point within a box `width` × `height`, with
 * a margin, no closer than 1.5×; null when there is nothing to show. */
export function fitView(points, width, height, margin = 60) {
  if (!points.length || !width) return null;
  const b = boundsOf(points);
  const w = b.maxX - b.minX + 2 * margin, h = b.maxY - b.minY + 2 * margin;
  const scale = Math.min(width / w, height / h, 1.5);
  return { scale, x: -(b.minX - margin) * scale + (width - w * scale) / 2, y: -(b.minY - margin) * scale };
}

/** The view zoomed by `factor` about canvas pixel (px, py): the venue
 * point under it stays under it (unless the zoom stops at its limits). */
export function zoomView(view, px, py, factor) {
  const scale = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, view.scale * factor));
  return {
    scale,
    x: px - ((px - view.x) * scale) / view.scale,
    y: py - ((py - view.y) * scale) / view.scale,
  };
}

/** Canvas pixel to venue coordinates. */
export function toVenuePoint(view, px, py) {
  return [(px - view.x) / view.scale, (py - view.y) / view.scale];
}

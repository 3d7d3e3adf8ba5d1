// Zoom and pan. The canvas is scaled with a transform and panned by the
// viewport's own scroll position (which the page sets; the viewport shows
// no scroll bars). Anything that scrolls an element into view (focus, find
// in page, a test's click) therefore pans the map to it, and the browser
// keeps the pan within the map. Drag (mouse or one finger) pans, the wheel
// or two fingers zoom about the pointer, and the buttons zoom about the
// centre or fit the map. A drag never becomes a click on a seat. Without
// this script the viewport scrolls as any box does. The sums are in
// ./zoom.js.

import { MIN_TAP_PX, SEAT_PX, centring, defaultScale, toCanvas, tooSmallToTap, zoomAbout } from "./zoom.js";

export function initMap() {
  const viewport = document.querySelector("[data-map-viewport]");
  const canvas = viewport && viewport.querySelector(".seat-canvas");
  if (!canvas) { return; }
  const controls = document.querySelector(".zoom-controls");
  const here = document.querySelector("[data-map-here]");
  viewport.classList.add("map-viewport--js");
  if (controls) { controls.hidden = false; }
  const map = { width: canvas.offsetWidth, height: canvas.offsetHeight };
  const coarse = window.matchMedia("(pointer: coarse)").matches;
  const view = { scale: 1, offsetX: 0, offsetY: 0 };
  const frame = function () { return { width: viewport.clientWidth, height: viewport.clientHeight }; };
  const scrolled = function () {
    return { scale: view.scale, offsetX: view.offsetX, offsetY: view.offsetY, left: viewport.scrollLeft, top: viewport.scrollTop };
  };

  // Sections' boxes in canvas units, for "which section am I looking
  // at": measured on first use, not while the page is still loading.
  let boxes = null;
  function sectionBoxes() {
    if (boxes) { return boxes; }
    const layer = canvas.querySelector(".map-layer");
    const layerX = layer ? layer.offsetLeft : 0, layerY = layer ? layer.offsetTop : 0;
    boxes = Array.prototype.map.call(canvas.querySelectorAll(".section"), function (section) {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      section.querySelectorAll("button.seat").forEach(function (seat) {
        x0 = Math.min(x0, seat.offsetLeft); y0 = Math.min(y0, seat.offsetTop);
        x1 = Math.max(x1, seat.offsetLeft + SEAT_PX); y1 = Math.max(y1, seat.offsetTop + SEAT_PX);
      });
      return { name: section.dataset.section, x0: x0 + layerX, y0: y0 + layerY, x1: x1 + layerX, y1: y1 + layerY };
    });
    return boxes;
  }

  // On a touch screen the whole house opens in a frame that hugs it, so
  // the price legend under it is on the first screen too; one section of
  // a big venue opens with its seats big enough to tap.
  const whole = viewport.hasAttribute("data-map-whole");
  if (coarse && whole) {
    viewport.style.height = Math.min(map.height * viewport.clientWidth / map.width, window.innerHeight * 0.55) + "px";
  }

  // On a touch screen with seats drawn too small to tap, the first tap
  // zooms: the page says so rather than leave it a surprise.
  const hint = document.querySelector("[data-map-hint]");

  // Scale, and centre the map where it is smaller than the viewport.
  function setScale(next) {
    if (hint) { hint.hidden = !tooSmallToTap(next, coarse); }
    const offset = centring(frame(), map, next);
    view.scale = next;
    view.offsetX = offset.offsetX;
    view.offsetY = offset.offsetY;
    canvas.style.transform = "scale(" + next + ")";
    ringFor(document.activeElement);
    canvas.style.left = view.offsetX + "px";
    canvas.style.top = view.offsetY + "px";
  }

  // A focused seat's ring is drawn in the canvas, so it is scaled with
  // it: the seat is told the zoom (only that seat: a property set on the
  // canvas would restyle every seat at each zoom step).
  function ringFor(seat) {
    if (seat && seat.classList && seat.classList.contains("seat") && canvas.contains(seat)) {
      seat.style.setProperty("--ring", (1 / view.scale).toFixed(3));
    }
  }
  viewport.addEventListener("focusin", function (event) { ringFor(event.target); });

  function zoomAt(next, x, y) {
    const to = zoomAbout(scrolled(), next, x, y, frame(), map);
    setScale(to.scale);
    viewport.scrollLeft = to.left;
    viewport.scrollTop = to.top;
    sayWhere();
  }

  // The seat under the pointer or the focus, said in full in one place
  // above the map (a tap focuses the seat it picks). Screen readers hear
  // the seat's own label; this line is for the eye.
  const info = document.querySelector("[data-seat-info]");
  function showSeat(event) {
    const seat = info && event.target.closest && event.target.closest("button.seat");
    if (seat) { info.textContent = seat.getAttribute("aria-label").split(", ").join(" \u00b7 "); }
  }
  viewport.addEventListener("pointerover", showSeat);
  viewport.addEventListener("focusin", showSeat);

  const updateRail = rowRail(viewport, canvas, view);

  function sayWhere() {
    updateRail();
    if (!here || canvas.querySelectorAll(".section").length < 2) { return; }
    const c = toCanvas(scrolled(), viewport.clientWidth / 2, viewport.clientHeight / 2);
    let best = null, bestDistance = Infinity;
    sectionBoxes().forEach(function (b) {
      const dx = Math.max(b.x0 - c.x, 0, c.x - b.x1), dy = Math.max(b.y0 - c.y, 0, c.y - b.y1);
      const d = dx * dx + dy * dy;
      if (d < bestDistance) { bestDistance = d; best = b; }
    });
    here.textContent = best ? best.name : "";
  }

  function home() {
    setScale(defaultScale(frame(), map, { coarse: coarse, whole: whole }));
    // Centred across; from the front (the stage end) down.
    viewport.scrollLeft = (map.width * view.scale - viewport.clientWidth) / 2;
    viewport.scrollTop = 0;
    setTimeout(sayWhere, 0);
  }

  if (controls) {
    controls.addEventListener("click", function (event) {
      const button = event.target.closest("[data-zoom]");
      if (!button) { return; }
      const cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
      if (button.dataset.zoom === "in") { zoomAt(view.scale * 1.4, cx, cy); }
      else if (button.dataset.zoom === "out") { zoomAt(view.scale / 1.4, cx, cy); }
      else { home(); }
    });
  }

  viewport.addEventListener("wheel", function (event) {
    event.preventDefault();
    const rect = viewport.getBoundingClientRect();
    const step = event.deltaMode === 1 ? event.deltaY * 20 : event.deltaY;
    zoomAt(view.scale * Math.exp(-step * (event.ctrlKey ? 0.01 : 0.002)), event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  const pointers = new Map();
  let drag = null, pinch = null, dragged = false;
  function point(event) {
    const rect = viewport.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }
  viewport.addEventListener("pointerdown", function (event) {
    pointers.set(event.pointerId, point(event));
    if (pointers.size === 1) {
      drag = { start: point(event), left: viewport.scrollLeft, top: viewport.scrollTop };
      dragged = false;
    } else if (pointers.size === 2) {
      const [a, b] = Array.from(pointers.values());
      pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, scale: view.scale };
      drag = null;
      dragged = true;
    }
  });
  viewport.addEventListener("pointermove", function (event) {
    if (!pointers.has(event.pointerId)) { return; }
    pointers.set(event.pointerId, point(event));
    if (pinch && pointers.size >= 2) {
      const [a, b] = Array.from(pointers.values());
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      zoomAt(pinch.scale * distance / pinch.distance, (a.x + b.x) / 2, (a.y + b.y) / 2);
    } else if (drag) {
      const p = point(event);
      const dx = p.x - drag.start.x, dy = p.y - drag.start.y;
      if (!dragged && Math.hypot(dx, dy) > 6) {
        dragged = true;
        viewport.classList.add("map-viewport--dragging");
        if (viewport.setPointerCapture && event.isTrusted) { viewport.setPointerCapture(event.pointerId); }
      }
      if (dragged) { viewport.scrollLeft = drag.left - dx; viewport.scrollTop = drag.top - dy; }
    }
  });
  function lift(event) {
    pointers.delete(event.pointerId);
    if (pointers.size < 2) { pinch = null; }
    if (pointers.size === 0) { drag = null; viewport.classList.remove("map-viewport--dragging"); }
  }
  viewport.addEventListener("pointerup", lift);
  viewport.addEventListener("pointercancel", lift);
  // The click that ends a drag or a pinch is not a pick, nor is a tap
  // on seats drawn too small to tap: that zooms in where it landed. (A
  // key's click, detail 0, always picks.)
  viewport.addEventListener("click", function (event) {
    if (dragged) { event.preventDefault(); event.stopPropagation(); dragged = false; return; }
    if (event.detail > 0 && tooSmallToTap(view.scale, coarse)) {
      event.preventDefault();
      event.stopPropagation();
      const p = point(event);
      zoomAt((MIN_TAP_PX + 6) / SEAT_PX, p.x, p.y);
    }
  }, true);

  let framePending = false;
  viewport.addEventListener("scroll", function () {
    if (framePending) { return; }
    framePending = true;
    requestAnimationFrame(function () { framePending = false; sayWhere(); });
  });
  window.addEventListener("resize", function () { zoomAt(view.scale, viewport.clientWidth / 2, viewport.clientHeight / 2); });
  home();
}

/** Row letters at the frame's left edge for the rows that run out of it
 * to the left, each level with its leftmost seat in view: the rail, and
 * its update. A row is known by its seats (their section and row), so a
 * curved row is named where it is, not where another row's end sits; a
 * row whose first seat is in view needs no letter over it. */
function rowRail(viewport, canvas, view) {
  const rail = document.createElement("div");
  rail.className = "row-rail";
  rail.setAttribute("aria-hidden", "true");
  viewport.parentNode.insertBefore(rail, viewport.nextSibling);
  const letters = new Map();
  canvas.querySelectorAll(".row-label[data-of]").forEach(function (label) { letters.set(label.dataset.of, label.textContent); });
  return function updateRail() {
    const frame = viewport.getBoundingClientRect();
    let shown = [];
    if (view.scale * SEAT_PX >= 14) {
      const rows = new Map();
      canvas.querySelectorAll(".section").forEach(function (section) {
        section.querySelectorAll("button.seat").forEach(function (seat) {
          const key = section.dataset.section + "|" + seat.dataset.row;
          const r = seat.getBoundingClientRect();
          let row = rows.get(key);
          if (!row) { row = { cut: false, left: Infinity, y: 0 }; rows.set(key, row); }
          if (r.right < frame.left + 2) { row.cut = true; return; }
          const y = (r.top + r.bottom) / 2 - frame.top;
          if (r.left > frame.right || y < 8 || y > frame.height - 8) { return; }
          if (r.left < row.left) { row.left = r.left; row.y = y; }
        });
      });
      rows.forEach(function (row, key) {
        if (row.cut && row.left !== Infinity && letters.has(key)) { shown.push({ text: letters.get(key), y: row.y, left: row.left }); }
      });
      // Two rows at one height (the ends of a curved block): the one
      // nearest the edge.
      shown.sort(function (a, b) { return a.y - b.y; });
      const gap = view.scale * SEAT_PX * 0.8;
      shown = shown.filter(function (s, i) {
        const next = shown[i + 1], prev = shown[i - 1];
        return !(next && next.y - s.y < gap && next.left < s.left) && !(prev && s.y - prev.y < gap && prev.left <= s.left);
      });
    }
    rail.style.top = viewport.offsetTop + "px";
    rail.style.left = viewport.offsetLeft + "px";
    rail.replaceChildren.apply(rail, shown.map(function (s) {
      const tag = document.createElement("span");
      tag.textContent = s.text;
      tag.style.top = s.y + "px";
      return tag;
    }));
  };
}

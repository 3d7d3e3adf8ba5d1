// Choosing many seats on the console's map at once, for the "Several seats
// at once" form: click seats, shift-click a second seat of a row for every
// seat between, or drag a box. The server still decides: the form posts
// the ids and the block or release is all or nothing. Without this script
// the form offers a whole section instead.

/** Ids of the seats of `row` (in map order) from `from` to `to`, both in. */
export function seatsBetween(row, from, to) {
  const a = row.indexOf(from);
  const b = row.indexOf(to);
  if (a < 0 || b < 0) { return []; }
  return row.slice(Math.min(a, b), Math.max(a, b) + 1);
}

/** The box two corners make, whichever way it was dragged. */
export function boxFrom(x1, y1, x2, y2) {
  return { left: Math.min(x1, x2), top: Math.min(y1, y2), right: Math.max(x1, x2), bottom: Math.max(y1, y2) };
}

/** Ids of the seats whose centre is inside the box. */
export function seatsInBox(seats, box) {
  return seats
    .filter(function (s) { return s.x >= box.left && s.x <= box.right && s.y >= box.top && s.y <= box.bottom; })
    .map(function (s) { return s.id; });
}

/** The chosen ids with `ids` added (`on`) or taken away. */
export function choose(chosen, ids, on) {
  const next = new Set(chosen);
  ids.forEach(function (id) { if (on) { next.add(id); } else { next.delete(id); } });
  return next;
}

/** "No seats chosen.", "1 seat chosen.", "12 seats chosen." */
export function countText(n) {
  if (n === 0) { return "No seats chosen."; }
  return n === 1 ? "1 seat chosen." : n + " seats chosen.";
}

// A drag shorter than this is a click, not a box.
const MIN_DRAG = 6;

export function initSelection() {
  const form = document.querySelector("[data-bulk-form]");
  const map = document.querySelector("form.seat-map");
  if (!form || !map) { return; }
  const panel = form.querySelector("[data-bulk-map]");
  const toggle = form.querySelector("[data-bulk-toggle]");
  const ids = form.querySelector("[data-bulk-ids]");
  const count = form.querySelector("[data-bulk-count]");
  panel.hidden = false;
  let on = false;
  let chosen = new Set();
  let last = null;
  // The click that ends a dragged box is not a seat's.
  let ignoreClicksUntil = 0;

  function show() {
    ids.value = Array.from(chosen).join(",");
    count.textContent = countText(chosen.size);
    map.querySelectorAll("button.seat").forEach(function (seat) {
      const picked = chosen.has(seat.value);
      seat.classList.toggle("seat--chosen", picked);
      if (on) { seat.setAttribute("aria-pressed", picked ? "true" : "false"); } else { seat.removeAttribute("aria-pressed"); }
    });
  }

  toggle.addEventListener("click", function () {
    on = !on;
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
    toggle.textContent = on ? "Done choosing" : "Choose seats on the map";
    map.classList.toggle("seat-map--choosing", on);
    show();
  });

  // In capture: a seat clicked while choosing is chosen, not opened.
  map.addEventListener("click", function (event) {
    if (!on) { return; }
    const seat = event.target.closest("button.seat");
    if (!seat && Date.now() >= ignoreClicksUntil) { return; }
    event.preventDefault();
    event.stopPropagation();
    if (!seat || Date.now() < ignoreClicksUntil) { return; }
    if (event.shiftKey && last && last.parentElement === seat.parentElement) {
      const row = Array.from(seat.parentElement.querySelectorAll("button.seat"))
        .filter(function (s) { return s.dataset.row === seat.dataset.row; })
        .map(function (s) { return s.value; });
      chosen = choose(chosen, seatsBetween(row, last.value, seat.value), true);
    } else {
      chosen = choose(chosen, [seat.value], !chosen.has(seat.value));
    }
    last = seat;
    show();
  }, true);

  // Dragging a box: ahead of the map's own pan, which it replaces while
  // choosing.
  let drag = null;
  const band = document.createElement("div");
  band.className = "bulk-band";
  band.hidden = true;
  document.body.appendChild(band);
  map.addEventListener("pointerdown", function (event) {
    if (!on || event.button !== 0) { return; }
    event.stopPropagation();
    drag = { x: event.clientX, y: event.clientY, moved: false };
  }, true);
  document.addEventListener("pointermove", function (event) {
    if (!drag) { return; }
    const box = boxFrom(drag.x, drag.y, event.clientX, event.clientY);
    drag.moved = drag.moved || box.right - box.left > MIN_DRAG || box.bottom - box.top > MIN_DRAG;
    if (!drag.moved) { return; }
    band.hidden = false;
    band.style.left = box.left + "px";
    band.style.top = box.top + "px";
    band.style.width = box.right - box.left + "px";
    band.style.height = box.bottom - box.top + "px";
  });
  document.addEventListener("pointerup", function (event) {
    if (!drag) { return; }
    const moved = drag.moved;
    const box = boxFrom(drag.x, drag.y, event.clientX, event.clientY);
    drag = null;
    band.hidden = true;
    if (!moved) { return; }
    const seats = Array.from(map.querySelectorAll("button.seat")).map(function (seat) {
      const r = seat.getBoundingClientRect();
      return { id: seat.value, x: r.left + r.width / 2, y: r.top + r.height / 2 };
    });
    chosen = choose(chosen, seatsInBox(seats, box), true);
    ignoreClicksUntil = Date.now() + 300;
    show();
  });

  // Seats the live feed swaps in come without their chosen look.
  document.addEventListener("htmx:oobAfterSwap", function () { if (chosen.size) { show(); } });
}

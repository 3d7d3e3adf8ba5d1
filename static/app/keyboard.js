// The map from the keyboard: one tab stop per section, and the arrows
// (Home, End) move between its seats as they are drawn.

function seatsOf(section) {
  return Array.prototype.slice.call(section.querySelectorAll("button.seat"));
}

function makeCurrent(section, seat) {
  section.dataset.rovingCurrent = seat.id;
  seatsOf(section).forEach(function (s) { s.tabIndex = s === seat ? 0 : -1; });
}

/** Gives each section its one tab stop (again, after seats were swapped
 * in: they arrive without tabindex). */
export function initRoving() {
  document.querySelectorAll(".section__seats").forEach(function (section) {
    const seats = seatsOf(section);
    if (!seats.length) { return; }
    const current = document.getElementById(section.dataset.rovingCurrent || "");
    makeCurrent(section, current && section.contains(current) ? current : seats[0]);
  });
}

const MOVES = new Set(["ArrowLeft", "ArrowRight", "Home", "End", "ArrowUp", "ArrowDown"]);

/** The seat an arrow key (or Home, End) moves to from `seat`; undefined
 * for a key that moves nowhere, null at an edge. */
function nextSeat(key, seat, seats) {
  if (!MOVES.has(key)) { return undefined; }
  // Left and right as drawn: a section turned to face the stage may run
  // its numbers the other way.
  const across = function (s) { return s.getBoundingClientRect().left; };
  const row = seats.filter(function (s) { return s.dataset.row === seat.dataset.row; })
    .sort(function (a, b) { return across(a) - across(b); });
  if (key === "ArrowLeft") { return row[row.indexOf(seat) - 1] || null; }
  if (key === "ArrowRight") { return row[row.indexOf(seat) + 1] || null; }
  if (key === "Home") { return row[0] || null; }
  if (key === "End") { return row[row.length - 1] || null; }
  const rows = Array.from(new Set(seats.map(function (s) { return Number(s.dataset.row); })))
    .sort(function (a, b) { return a - b; });
  const target = rows[rows.indexOf(Number(seat.dataset.row)) + (key === "ArrowUp" ? -1 : 1)];
  let next = null;
  if (target !== undefined) {
    const x = across(seat);
    seats.filter(function (s) { return Number(s.dataset.row) === target; }).forEach(function (s) {
      if (!next || Math.abs(across(s) - x) < Math.abs(across(next) - x)) { next = s; }
    });
  }
  return next;
}

export function initKeyboard() {
  document.addEventListener("focusin", function (event) {
    const seat = event.target.closest && event.target.closest(".section__seats button.seat");
    if (seat) { makeCurrent(seat.closest(".section__seats"), seat); }
  });

  document.addEventListener("keydown", function (event) {
    const seat = event.target.closest && event.target.closest(".section__seats button.seat");
    if (!seat) { return; }
    const section = seat.closest(".section__seats");
    const next = nextSeat(event.key, seat, seatsOf(section));
    if (next === undefined) { return; }
    event.preventDefault();
    if (next) { makeCurrent(section, next); next.focus(); }
  });
}

// The walk-up sale (staff/walk_up.html only): seats picked on the box
// office's map go into the sale's form. The map holds nothing: a free (or
// blocked) seat selected there is added to the Seats field as "Section
// Row+Seat", and taken out again when selected again. The sale itself
// claims them.

function tokenOf(seat) {
  // "Stalls, row C, seat 12" in any language: the last word of each part.
  const parts = (seat.getAttribute("aria-label") || "").split(", ");
  const last = function (part) { return (part || "").split(" ").pop(); };
  return parts[0] + " " + last(parts[1]) + last(parts[2]);
}

function keyOf(text) {
  return text.replace(/\s+/g, "").toUpperCase();
}

function listOf(input) {
  return input.value.split(",").map(function (t) { return t.trim(); }).filter(Boolean);
}

function mark(seat, picked) {
  seat.classList.toggle("seat--picked", picked);
  seat.setAttribute("aria-pressed", picked ? "true" : "false");
}

// A review shows one sale: once anything in it changes, it goes, and the
// sale must be checked again (the server refuses a sale that no longer
// matches its review anyway).
function staleReview() {
  const review = document.querySelector(".walk-up-review");
  if (!review) { return; }
  review.remove();
  const again = document.querySelector('#walk-up-form button[value="review"]:not(.visually-hidden)');
  if (again) { again.className = "primary"; again.textContent = "Review the sale"; }
}

document.addEventListener("click", function (event) {
  const seat = event.target.closest && event.target.closest("[data-walkup-map] button.seat");
  const input = document.getElementById("walkup-seats");
  if (!seat || !input) { return; }
  event.preventDefault();
  if (!/seat--(available|blocked)/.test(seat.className)) { return; }
  const token = tokenOf(seat);
  const list = listOf(input);
  const at = list.findIndex(function (t) { return keyOf(t) === keyOf(token); });
  if (at >= 0) { list.splice(at, 1); } else { list.push(token); }
  mark(seat, at < 0);
  input.value = list.join(", ");
  staleReview();
});

document.addEventListener("input", function (event) {
  const form = event.target.closest && event.target.closest("#walk-up-form");
  if (form && !event.target.closest(".walk-up-best")) { staleReview(); }
});

// Seats already in the field (a review, a refusal) show as picked.
const input = document.getElementById("walkup-seats");
if (input) {
  const wanted = new Set(listOf(input).map(keyOf));
  document.querySelectorAll("[data-walkup-map] button.seat").forEach(function (seat) {
    if (wanted.has(keyOf(tokenOf(seat)))) { mark(seat, true); }
  });
}

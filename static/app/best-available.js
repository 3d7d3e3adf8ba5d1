// Best available's seats keep their ring: live updates re-render seats
// without knowing which ones best available just found (and may land
// before or after the answer that says so), so remember them, and keep the
// ring on while they are still yours. This runs as each seat is swapped
// in, not later: a later check could run after the next update had
// already replaced it.

export function initBestAvailable() {
  const freshSeats = new Set();
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const next = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!next || !next.classList.contains("seat")) { return; }
    if (next.classList.contains("seat--fresh")) {
      freshSeats.add(next.id);
    } else if (freshSeats.has(next.id)) {
      if (next.dataset.state === "mine") { next.classList.add("seat--fresh"); } else { freshSeats.delete(next.id); }
    }
  });
}

// Picking a seat: one kept for wheelchair users asks first, and only the
// pressed seat dims while its request runs.

export function initPicks() {
  // Best available never gives seats kept for wheelchair users to a party
  // that didn't ask; a buyer may still pick one by hand, after saying it
  // is for its purpose. (In capture, so a "no" stops the pick before
  // anything else sees it.)
  document.addEventListener("click", function (event) {
    const seat = event.target.closest && event.target.closest("button[name=hold][data-confirm-pick]");
    if (seat && !window.confirm(seat.dataset.confirmPick)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  // A pick in flight: dimming the whole map (a class on the form)
  // repainted every seat, a 100 ms cost per click on a 1,000-seat map.
  document.addEventListener("click", function (event) {
    const seat = event.target.closest && event.target.closest("#seat-map button.seat");
    if (seat && !event.defaultPrevented) { seat.classList.add("seat--pending"); }
  });
  document.addEventListener("htmx:afterRequest", function () {
    document.querySelectorAll(".seat--pending").forEach(function (s) { s.classList.remove("seat--pending"); });
  });
}

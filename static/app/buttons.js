// Buttons any page may have: confirming an irreversible staff action,
// printing tickets, and Checkout on a phone's selection bar.

export function initButtons() {
  // Without JavaScript a confirmed form posts straight away; the console
  // says what happened.
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  // Print buttons (tickets): the page's print styles show only the tickets.
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-print]");
    if (button) { window.print(); }
  });

  // "Checkout" on a phone's selection bar: to the buy form, with the
  // cursor in Name (a plain link to the heading left focus on the page).
  document.addEventListener("click", function (event) {
    const go = event.target.closest && event.target.closest(".selection-bar__go");
    const name = document.getElementById("buyer-name");
    if (!go || !name) { return; }
    event.preventDefault();
    const heading = document.getElementById("buy-heading");
    (heading || name).scrollIntoView({ block: "start" });
    name.focus({ preventScroll: true });
  });
}

// seatmap's only script: the hold countdown, and a notice when an htmx
// request fails. Everything works without it; it only keeps the page honest
// between requests.
(function () {
  "use strict";

  // Remaining time comes from the server's expiry, corrected for this
  // device's clock by the server's "now" at render time; never from page load.
  function remainingMs(el) {
    if (!el.dataset.clockOffset) {
      const serverNow = Date.parse(el.dataset.serverNow);
      el.dataset.clockOffset = String(isNaN(serverNow) ? 0 : serverNow - Date.now());
    }
    const expiresAt = Date.parse(el.dataset.expiresAt);
    return expiresAt - (Date.now() + Number(el.dataset.clockOffset));
  }

  function pad(n) { return String(n).padStart(2, "0"); }

  function tick() {
    document.querySelectorAll(".countdown[data-expires-at]").forEach(function (el) {
      const ms = remainingMs(el);
      const time = el.querySelector(".countdown__time");
      if (ms <= 0) {
        if (!el.classList.contains("countdown--expired")) {
          el.classList.add("countdown--expired");
          el.textContent = el.dataset.expiredText || "Your hold has expired. Its seats are back on sale.";
          const panel = el.closest(".hold-panel");
          if (panel) {
            panel.querySelectorAll(".buy-form button").forEach(function (b) { b.disabled = true; });
          }
        }
        return;
      }
      const secs = Math.ceil(ms / 1000);
      if (time) { time.textContent = pad(Math.floor(secs / 60)) + ":" + pad(secs % 60); }
    });
  }

  tick();
  setInterval(tick, 1000);

  document.addEventListener("htmx:responseError", function (event) {
    const area = document.getElementById("notice");
    if (!area) { return; }
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    const p = document.createElement("p");
    p.className = "notice notice--error";
    p.textContent = status === 404
      ? "That seat or hold no longer exists. Reload the page to see the map as it is now."
      : "Something went wrong (" + status + "). Nothing you held was lost; please try again.";
    area.replaceChildren(p);
  });
})();

// Notices: a new one is brought into view on a wide screen; on a phone a
// success note steps aside after a while; a request that failed says so.

export function initNotices() {
  // A new notice on a wide screen is brought into view: the side column
  // scrolls on its own, and the buyer's last click (Find seats, say) may
  // have scrolled it past the notice at its top.
  let shownNotice = null;
  new MutationObserver(function () {
    const current = document.querySelector(".side #notice .notice");
    if (current && current !== shownNotice && window.matchMedia("(min-width: 901px)").matches) {
      current.scrollIntoView({ block: "nearest" });
    }
    shownNotice = current;
  }).observe(document.body, { childList: true, subtree: true });

  // On a phone the notice floats over the foot of the screen: a success
  // note steps aside after a while (errors stay until the next action).
  new MutationObserver(function () {
    const note = document.querySelector(".side #notice .notice--success");
    if (note && window.matchMedia("(max-width: 900px)").matches && !note.dataset.fading) {
      note.dataset.fading = "1";
      setTimeout(function () { note.remove(); }, 6000);
    }
  }).observe(document.body, { childList: true, subtree: true });

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
}

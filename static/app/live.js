// The live seat map: the feed (htmx's SSE extension) swaps seats in as
// they change; the page asks for held seats again when their holds are due
// to run out (nothing announces a hold that merely expires).

import { serverNow } from "./clock.js";

/** Listens to the feed; `afterUpdate` runs after each change it applies. */
export function initLive(afterUpdate) {
  // The SSE extension reopens the stream from its sse-connect URL, so that
  // URL always carries the last change this page has applied.
  document.addEventListener("htmx:sseMessage", function (event) {
    const feed = document.getElementById("live-feed");
    const id = event.detail && event.detail.lastEventId;
    if (feed && id) {
      feed.setAttribute("sse-connect", feed.dataset.liveBase + "since=" + encodeURIComponent(id));
    }
    afterUpdate();
  });

  // The first hold made this visitor a buyer (looking at the map makes
  // none): the feed opened before that can't tell their seats from others',
  // so reopen it, from the last change it applied.
  document.addEventListener("seatmap:buyer-started", function () {
    const feed = document.getElementById("live-feed");
    if (feed && window.htmx) {
      window.htmx.swap(feed, feed.outerHTML, { swapStyle: "outerHTML" });
    }
  });

  // Lets people (and tests) know the map is live.
  document.addEventListener("htmx:sseOpen", function () {
    document.documentElement.dataset.live = "open";
  });
  document.addEventListener("htmx:sseError", function () {
    document.documentElement.dataset.live = "reconnecting";
  });
}

// Expiry is lazy: nothing announces a hold that merely runs out. At the
// earliest expiry a held seat on this page shows, ask for those seats as
// they are now (a buy or an extension would have come over the feed).
let refreshTimer = null;

export function scheduleExpiryRefresh() {
  const feed = document.getElementById("live-feed");
  if (!feed || !window.htmx) { return; }
  clearTimeout(refreshTimer);
  let earliest = Infinity;
  document.querySelectorAll(".seat[data-held-until]").forEach(function (seat) {
    earliest = Math.min(earliest, Date.parse(seat.dataset.heldUntil));
  });
  if (earliest === Infinity) { return; }
  const delay = Math.min(Math.max(earliest - serverNow() + 300, 1000), 2147483647);
  refreshTimer = setTimeout(function () {
    const now = serverNow();
    const due = [];
    document.querySelectorAll(".seat[data-held-until]").forEach(function (seat) {
      if (Date.parse(seat.dataset.heldUntil) <= now) { due.push(seat.value); }
    });
    if (due.length) {
      window.htmx.ajax("GET", "/events/" + feed.dataset.event + "/seat-fragments?ids=" + due.join(","),
        { target: feed, swap: "none" });
    } else {
      scheduleExpiryRefresh();
    }
  }, delay);
}

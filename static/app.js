// seatmap's script. Everything works without it (forms post and redirect);
// it keeps the page live and honest between requests, and makes the map
// usable from the keyboard. No inline script anywhere: the CSP forbids it.
(function () {
  "use strict";

  // ---- Clocks -----------------------------------------------------------
  // Times come from the server; this device's clock is corrected by the
  // server's "now" at render time, never trusted on its own.
  function offsetFor(el) {
    if (!el.dataset.clockOffset) {
      const serverNow = Date.parse(el.dataset.serverNow);
      el.dataset.clockOffset = String(isNaN(serverNow) ? 0 : serverNow - Date.now());
    }
    return Number(el.dataset.clockOffset);
  }

  function serverNow() {
    const feed = document.getElementById("live-feed");
    return Date.now() + (feed ? offsetFor(feed) : 0);
  }

  function pad(n) { return String(n).padStart(2, "0"); }

  // ---- Hold countdown, announcements and the extension offer ------------
  const announced = new Set();

  function announce(key, text) {
    if (announced.has(key)) { return; }
    announced.add(key);
    const region = document.getElementById("hold-announcer");
    if (region) { region.textContent = text; }
  }

  // Polite announcements at 2 minutes and at 30 seconds, not every second.
  function announceMilestones(expiresAt, secs, canExtend) {
    if (secs <= 0) {
      announce(expiresAt + ":0", "Your hold has expired. Its seats are back on sale.");
    } else if (secs <= 30) {
      announce(expiresAt + ":30", "30 seconds left on your hold.");
    } else if (secs <= 120) {
      announce(expiresAt + ":120", "2 minutes left on your hold." +
        (canExtend ? " You can ask for more time." : ""));
    }
  }

  // A "Holding …" notice is about a hold; once the panel shows none (it
  // expired, or the box office released it), the notice is no longer true.
  function clearStaleSuccess() {
    document.querySelectorAll("#notice .notice--success").forEach(function (n) { n.remove(); });
  }

  // However the panel was replaced (an action's answer, or the live feed
  // after the box office released the hold), check it after each change.
  new MutationObserver(function () {
    const panel = document.getElementById("hold-panel");
    if (panel && !panel.querySelector(".countdown")) { clearStaleSuccess(); }
  }).observe(document.body, { childList: true, subtree: true });

  function tick() {
    document.querySelectorAll(".countdown[data-expires-at]").forEach(function (el) {
      const ms = Date.parse(el.dataset.expiresAt) - (Date.now() + offsetFor(el));
      const panel = el.closest("#hold-panel");
      const extend = panel && panel.querySelector(".extend-form");
      if (panel) {
        announceMilestones(el.dataset.expiresAt, Math.ceil(ms / 1000), !!extend);
        // Only while there is time left to extend: an expired hold can't be.
        if (extend && ms > 0 && ms <= 120000) { extend.hidden = false; }
      }
      if (ms <= 0) {
        if (!el.classList.contains("countdown--expired")) {
          el.classList.add("countdown--expired");
          el.textContent = "Your hold expired \u2014 pick seats again.";
          if (panel) {
            // Nothing left to buy, extend or release: the panel says only that.
            panel.classList.add("hold-panel--expired");
            panel.querySelectorAll("form").forEach(function (form) {
              form.hidden = true;
              form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
            });
          }
          clearStaleSuccess();
          scheduleExpiryRefresh();
        }
        return;
      }
      const secs = Math.ceil(ms / 1000);
      const time = el.querySelector(".countdown__time");
      if (time) { time.textContent = pad(Math.floor(secs / 60)) + ":" + pad(secs % 60); }
    });
  }

  // ---- Live seat map ----------------------------------------------------
  // The SSE extension reopens the stream from its sse-connect URL, so that
  // URL always carries the last change this page has applied.
  document.addEventListener("htmx:sseMessage", function (event) {
    const feed = document.getElementById("live-feed");
    const id = event.detail && event.detail.lastEventId;
    if (feed && id) {
      feed.setAttribute("sse-connect", feed.dataset.liveBase + "?since=" + encodeURIComponent(id));
    }
    afterUpdate();
  });

  // Live updates re-render seats without knowing which ones best available
  // just found (and may land before or after the answer that says so):
  // remember them, and keep the ring on while they are still yours.
  // This runs as each seat is swapped in, not later: a later check could
  // run after the next update had already replaced it.
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

  // The first hold made this visitor a buyer (looking at the map makes
  // none): the feed opened before that can't tell their seats from others',
  // so reopen it, from the last change it applied.
  document.addEventListener("seatmap:buyer-started", function () {
    const feed = document.getElementById("live-feed");
    if (feed && window.htmx) {
      htmx.swap(feed, feed.outerHTML, { swapStyle: "outerHTML" });
    }
  });

  // Lets people (and tests) know the map is live.
  document.addEventListener("htmx:sseOpen", function () {
    document.documentElement.dataset.live = "open";
  });
  document.addEventListener("htmx:sseError", function () {
    document.documentElement.dataset.live = "reconnecting";
  });

  // Expiry is lazy: nothing announces a hold that merely runs out. At the
  // earliest expiry a held seat on this page shows, ask for those seats as
  // they are now (a buy or an extension would have come over the feed).
  let refreshTimer = null;
  function scheduleExpiryRefresh() {
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

  // ---- Keyboard: one tab stop per section, arrows move between seats ----
  function seatsOf(section) { return Array.prototype.slice.call(section.querySelectorAll("button.seat")); }

  function makeCurrent(section, seat) {
    section.dataset.rovingCurrent = seat.id;
    seatsOf(section).forEach(function (s) { s.tabIndex = s === seat ? 0 : -1; });
  }

  function initRoving() {
    document.querySelectorAll(".section__seats").forEach(function (section) {
      const seats = seatsOf(section);
      if (!seats.length) { return; }
      const current = document.getElementById(section.dataset.rovingCurrent || "");
      makeCurrent(section, current && section.contains(current) ? current : seats[0]);
    });
  }

  document.addEventListener("focusin", function (event) {
    const seat = event.target.closest && event.target.closest(".section__seats button.seat");
    if (seat) { makeCurrent(seat.closest(".section__seats"), seat); }
  });

  document.addEventListener("keydown", function (event) {
    const seat = event.target.closest && event.target.closest(".section__seats button.seat");
    if (!seat) { return; }
    const section = seat.closest(".section__seats");
    const seats = seatsOf(section);
    const row = seats.filter(function (s) { return s.dataset.row === seat.dataset.row; });
    let next = null;
    if (event.key === "ArrowLeft") { next = row[row.indexOf(seat) - 1]; }
    else if (event.key === "ArrowRight") { next = row[row.indexOf(seat) + 1]; }
    else if (event.key === "Home") { next = row[0]; }
    else if (event.key === "End") { next = row[row.length - 1]; }
    else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      const rows = Array.from(new Set(seats.map(function (s) { return Number(s.dataset.row); })))
        .sort(function (a, b) { return a - b; });
      const target = rows[rows.indexOf(Number(seat.dataset.row)) + (event.key === "ArrowUp" ? -1 : 1)];
      if (target !== undefined) {
        const x = seat.offsetLeft;
        seats.filter(function (s) { return Number(s.dataset.row) === target; }).forEach(function (s) {
          if (!next || Math.abs(s.offsetLeft - x) < Math.abs(next.offsetLeft - x)) { next = s; }
        });
      }
    } else {
      return;
    }
    event.preventDefault();
    if (next) { makeCurrent(section, next); next.focus(); }
  });

  // ---- Zoom -------------------------------------------------------------
  function initZoom() {
    const controls = document.querySelector(".zoom-controls");
    const map = document.querySelector(".seat-map");
    if (!controls || !map) { return; }
    controls.hidden = false;
    let zoom = 1;
    controls.addEventListener("click", function (event) {
      const button = event.target.closest("[data-zoom]");
      if (!button) { return; }
      zoom = Math.min(2, Math.max(0.5, zoom + (button.dataset.zoom === "in" ? 0.25 : -0.25)));
      map.style.zoom = String(zoom);
    });
  }

  // ---- Errors -------------------------------------------------------------
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

  // Swapped-in seats arrive without tabindex and may carry new expiries.
  let pending = false;
  function afterUpdate() {
    if (pending) { return; }
    pending = true;
    setTimeout(function () { pending = false; initRoving(); scheduleExpiryRefresh(); tick(); }, 0);
  }
  document.addEventListener("htmx:afterSettle", afterUpdate);
  document.addEventListener("htmx:oobAfterSwap", afterUpdate);

  initRoving();
  initZoom();
  scheduleExpiryRefresh();
  tick();
  setInterval(tick, 1000);
  // ---- Confirming irreversible staff actions -------------------------------
  // Without JavaScript the form posts straight away; the console says what
  // happened.
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });
})();

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

  // The page's words, in its language: the announcer carries them.
  function words(name, fallback) {
    const region = document.getElementById("hold-announcer");
    return (region && region.dataset[name]) || fallback;
  }

  // Polite announcements at 2 minutes and at 30 seconds, not every second.
  function announceMilestones(expiresAt, secs, canExtend) {
    if (secs <= 0) {
      announce(expiresAt + ":0", words("expired", "Your hold has expired. Its seats are back on sale."));
    } else if (secs <= 30) {
      announce(expiresAt + ":30", words("thirtySeconds", "30 seconds left on your hold."));
    } else if (secs <= 120) {
      announce(expiresAt + ":120", words("twoMinutes", "2 minutes left on your hold.") +
        (canExtend ? " " + words("moreTime", "You can ask for more time.") : ""));
    }
  }

  // A "Holding …" notice is about a hold; once the panel shows none (it
  // expired, or the box office released it), the notice is no longer true.
  function clearStaleSuccess() {
    document.querySelectorAll("#notice .notice--success").forEach(function (n) { n.remove(); });
  }

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

  // However the panel was replaced (an action's answer, or the live feed
  // after the box office released the hold), check it after each change.
  new MutationObserver(function () {
    const panel = document.getElementById("hold-panel");
    if (panel && !panel.querySelector(".countdown")) { clearStaleSuccess(); }
  }).observe(document.body, { childList: true, subtree: true });

  function tick() {
    document.querySelectorAll(".countdown[data-expires-at]").forEach(function (el) {
      // How many ticks this countdown has had: a later tick is something
      // to wait for (the browser tests do), rather than a sleep.
      el.dataset.ticks = String(Number(el.dataset.ticks || 0) + 1);
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
          el.textContent = words("pickAgain", "Your hold expired \u2014 pick seats again.");
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
      const left = pad(Math.floor(secs / 60)) + ":" + pad(secs % 60);
      if (time) { time.textContent = left; }
      // The phone's selection bar shows the same time (it is aria-hidden:
      // the panel's countdown is the one announced).
      const mirror = panel && panel.querySelector(".selection-bar__time");
      if (mirror) { mirror.textContent = left; }
    });
  }

  // ---- Live seat map ----------------------------------------------------
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
    // Left and right as drawn: a section turned to face the stage may run
    // its numbers the other way.
    const across = function (s) { return s.getBoundingClientRect().left; };
    const row = seats.filter(function (s) { return s.dataset.row === seat.dataset.row; })
      .sort(function (a, b) { return across(a) - across(b); });
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
        const x = across(seat);
        seats.filter(function (s) { return Number(s.dataset.row) === target; }).forEach(function (s) {
          if (!next || Math.abs(across(s) - x) < Math.abs(across(next) - x)) { next = s; }
        });
      }
    } else {
      return;
    }
    event.preventDefault();
    if (next) { makeCurrent(section, next); next.focus(); }
  });

  // ---- Zoom and pan ------------------------------------------------------
  // The canvas is scaled with a transform and panned by the viewport's own
  // scroll position (which the page sets; the viewport shows no scroll
  // bars). Anything that scrolls an element into view (focus, find in
  // page, a test's click) therefore pans the map to it, and the browser
  // keeps the pan within the map. Drag (mouse or one finger) pans, the
  // wheel or two fingers zoom about the pointer, and the buttons zoom about
  // the centre or fit the map. A drag never becomes a click on a seat.
  // Without this script the viewport scrolls as any box does.
  const SEAT_PX = 26;
  const MIN_TAP_PX = 24;

  function initMap() {
    const viewport = document.querySelector("[data-map-viewport]");
    const canvas = viewport && viewport.querySelector(".seat-canvas");
    if (!canvas) { return; }
    const controls = document.querySelector(".zoom-controls");
    const here = document.querySelector("[data-map-here]");
    viewport.classList.add("map-viewport--js");
    if (controls) { controls.hidden = false; }
    const width = canvas.offsetWidth;
    const height = canvas.offsetHeight;
    const coarse = window.matchMedia("(pointer: coarse)").matches;
    let scale = 1, offsetX = 0, offsetY = 0;

    // Sections' boxes in canvas units, for "which section am I looking
    // at": measured on first use, not while the page is still loading.
    let boxes = null;
    function sectionBoxes() {
      if (boxes) { return boxes; }
      const layer = canvas.querySelector(".map-layer");
      const layerX = layer ? layer.offsetLeft : 0, layerY = layer ? layer.offsetTop : 0;
      boxes = Array.prototype.map.call(canvas.querySelectorAll(".section"), function (section) {
        let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
        section.querySelectorAll("button.seat").forEach(function (seat) {
          x0 = Math.min(x0, seat.offsetLeft); y0 = Math.min(y0, seat.offsetTop);
          x1 = Math.max(x1, seat.offsetLeft + SEAT_PX); y1 = Math.max(y1, seat.offsetTop + SEAT_PX);
        });
        return { name: section.dataset.section, x0: x0 + layerX, y0: y0 + layerY, x1: x1 + layerX, y1: y1 + layerY };
      });
      return boxes;
    }

    // On a touch screen the whole house opens in a frame that hugs it, so
    // the price legend under it is on the first screen too; one section of
    // a big venue opens with its seats big enough to tap.
    const whole = viewport.hasAttribute("data-map-whole");
    if (coarse && whole) {
      viewport.style.height = Math.min(height * viewport.clientWidth / width, window.innerHeight * 0.55) + "px";
    }
    function fitScale() {
      return Math.min(viewport.clientWidth / width, viewport.clientHeight / height);
    }
    // A phone opens on the whole house (a tap then zooms in where it
    // lands), or on a section's seats at a size to tap. A mouse picks
    // seats straight away: where the whole house
    // would draw them too small to aim at, the map fills the frame's width
    // instead and pans down.
    function defaultScale() {
      const fit = fitScale();
      if (coarse && !whole) { return Math.max(Math.min(fit, 1.5), MIN_TAP_PX / SEAT_PX + 0.01); }
      if (coarse || fit * SEAT_PX >= MIN_TAP_PX) { return Math.min(fit, 1.5); }
      return Math.min(Math.max(fit, viewport.clientWidth / width), 1.5);
    }
    function tooSmallToTap() { return coarse && scale * SEAT_PX < MIN_TAP_PX; }
    function minScale() { return Math.min(fitScale(), 1) * 0.75; }
    const MAX_SCALE = 4;

    // Scale, and centre the map where it is smaller than the viewport.
    function setScale(next) {
      scale = next;
      offsetX = Math.max(0, (viewport.clientWidth - width * scale) / 2);
      offsetY = Math.max(0, (viewport.clientHeight - height * scale) / 2);
      canvas.style.transform = "scale(" + scale + ")";
      ringFor(document.activeElement);
      canvas.style.left = offsetX + "px";
      canvas.style.top = offsetY + "px";
    }

    // A focused seat's ring is drawn in the canvas, so it is scaled with
    // it: the seat is told the zoom (only that seat: a property set on the
    // canvas would restyle every seat at each zoom step).
    function ringFor(seat) {
      if (seat && seat.classList && seat.classList.contains("seat") && canvas.contains(seat)) {
        seat.style.setProperty("--ring", (1 / scale).toFixed(3));
      }
    }
    viewport.addEventListener("focusin", function (event) { ringFor(event.target); });

    // The canvas point under viewport point (x, y), and back.
    function toCanvas(x, y) {
      return { x: (viewport.scrollLeft + x - offsetX) / scale, y: (viewport.scrollTop + y - offsetY) / scale };
    }
    function zoomAt(next, x, y) {
      next = Math.min(MAX_SCALE, Math.max(minScale(), next));
      const p = toCanvas(x, y);
      setScale(next);
      viewport.scrollLeft = p.x * scale + offsetX - x;
      viewport.scrollTop = p.y * scale + offsetY - y;
      sayWhere();
    }

    // The seat under the pointer or the focus, said in full in one place
    // above the map (a tap focuses the seat it picks). Screen readers hear
    // the seat's own label; this line is for the eye.
    const info = document.querySelector("[data-seat-info]");
    function showSeat(event) {
      const seat = info && event.target.closest && event.target.closest("button.seat");
      if (seat) { info.textContent = seat.getAttribute("aria-label").split(", ").join(" \u00b7 "); }
    }
    viewport.addEventListener("pointerover", showSeat);
    viewport.addEventListener("focusin", showSeat);

    // Row letters at the frame's left edge for the rows in view, once the
    // rows' own labels have panned out of it.
    const rail = document.createElement("div");
    rail.className = "row-rail";
    rail.setAttribute("aria-hidden", "true");
    viewport.parentNode.insertBefore(rail, viewport.nextSibling);
    const rowLabels = canvas.querySelectorAll(".row-label");
    function updateRail() {
      const frame = viewport.getBoundingClientRect();
      const shown = [];
      if (scale * SEAT_PX >= 14) {
        const seen = new Set();
        rowLabels.forEach(function (label) {
          const r = label.getBoundingClientRect();
          const y = (r.top + r.bottom) / 2 - frame.top;
          if (y < 8 || y > frame.height - 8) { return; }
          if (r.right > frame.left + 4) {
            // This row's label is in view at this height: no need.
            if (r.left < frame.right) { seen.add(label.textContent + "@" + Math.round(y / 8)); }
            return;
          }
          // A row's labels off to the left (its end, its aisles): the
          // one nearest the frame says it.
          const near = shown.find(function (s) {
            return s.text === label.textContent && Math.abs(s.y - y) < scale * SEAT_PX * 2;
          });
          if (!near) { shown.push({ text: label.textContent, y: y, right: r.right }); }
          else if (r.right > near.right) { near.y = y; near.right = r.right; }
        });
        for (let i = shown.length - 1; i >= 0; i--) {
          if (seen.has(shown[i].text + "@" + Math.round(shown[i].y / 8))) { shown.splice(i, 1); }
        }
      }
      rail.style.top = viewport.offsetTop + "px";
      rail.style.left = viewport.offsetLeft + "px";
      rail.replaceChildren.apply(rail, shown.map(function (s) {
        const tag = document.createElement("span");
        tag.textContent = s.text;
        tag.style.top = s.y + "px";
        return tag;
      }));
    }

    function sayWhere() {
      updateRail();
      if (!here || canvas.querySelectorAll(".section").length < 2) { return; }
      const c = toCanvas(viewport.clientWidth / 2, viewport.clientHeight / 2);
      let best = null, bestDistance = Infinity;
      sectionBoxes().forEach(function (b) {
        const dx = Math.max(b.x0 - c.x, 0, c.x - b.x1), dy = Math.max(b.y0 - c.y, 0, c.y - b.y1);
        const d = dx * dx + dy * dy;
        if (d < bestDistance) { bestDistance = d; best = b; }
      });
      here.textContent = best ? best.name : "";
    }

    function home() {
      setScale(defaultScale());
      // Centred across; from the front (the stage end) down.
      viewport.scrollLeft = (width * scale - viewport.clientWidth) / 2;
      viewport.scrollTop = 0;
      setTimeout(sayWhere, 0);
    }

    if (controls) {
      controls.addEventListener("click", function (event) {
        const button = event.target.closest("[data-zoom]");
        if (!button) { return; }
        const cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
        if (button.dataset.zoom === "in") { zoomAt(scale * 1.4, cx, cy); }
        else if (button.dataset.zoom === "out") { zoomAt(scale / 1.4, cx, cy); }
        else { home(); }
      });
    }

    viewport.addEventListener("wheel", function (event) {
      event.preventDefault();
      const rect = viewport.getBoundingClientRect();
      const step = event.deltaMode === 1 ? event.deltaY * 20 : event.deltaY;
      zoomAt(scale * Math.exp(-step * (event.ctrlKey ? 0.01 : 0.002)), event.clientX - rect.left, event.clientY - rect.top);
    }, { passive: false });

    const pointers = new Map();
    let drag = null, pinch = null, dragged = false;
    function point(event) {
      const rect = viewport.getBoundingClientRect();
      return { x: event.clientX - rect.left, y: event.clientY - rect.top };
    }
    viewport.addEventListener("pointerdown", function (event) {
      pointers.set(event.pointerId, point(event));
      if (pointers.size === 1) {
        drag = { start: point(event), left: viewport.scrollLeft, top: viewport.scrollTop };
        dragged = false;
      } else if (pointers.size === 2) {
        const [a, b] = Array.from(pointers.values());
        pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, scale: scale };
        drag = null;
        dragged = true;
      }
    });
    viewport.addEventListener("pointermove", function (event) {
      if (!pointers.has(event.pointerId)) { return; }
      pointers.set(event.pointerId, point(event));
      if (pinch && pointers.size >= 2) {
        const [a, b] = Array.from(pointers.values());
        const distance = Math.hypot(a.x - b.x, a.y - b.y);
        zoomAt(pinch.scale * distance / pinch.distance, (a.x + b.x) / 2, (a.y + b.y) / 2);
      } else if (drag) {
        const p = point(event);
        const dx = p.x - drag.start.x, dy = p.y - drag.start.y;
        if (!dragged && Math.hypot(dx, dy) > 6) {
          dragged = true;
          viewport.classList.add("map-viewport--dragging");
          if (viewport.setPointerCapture && event.isTrusted) { viewport.setPointerCapture(event.pointerId); }
        }
        if (dragged) { viewport.scrollLeft = drag.left - dx; viewport.scrollTop = drag.top - dy; }
      }
    });
    function lift(event) {
      pointers.delete(event.pointerId);
      if (pointers.size < 2) { pinch = null; }
      if (pointers.size === 0) { drag = null; viewport.classList.remove("map-viewport--dragging"); }
    }
    viewport.addEventListener("pointerup", lift);
    viewport.addEventListener("pointercancel", lift);
    // The click that ends a drag or a pinch is not a pick, nor is a tap
    // on seats drawn too small to tap: that zooms in where it landed. (A
    // key's click, detail 0, always picks.)
    viewport.addEventListener("click", function (event) {
      if (dragged) { event.preventDefault(); event.stopPropagation(); dragged = false; return; }
      if (event.detail > 0 && tooSmallToTap()) {
        event.preventDefault();
        event.stopPropagation();
        const p = point(event);
        zoomAt((MIN_TAP_PX + 6) / SEAT_PX, p.x, p.y);
      }
    }, true);

    let framePending = false;
    viewport.addEventListener("scroll", function () {
      if (framePending) { return; }
      framePending = true;
      requestAnimationFrame(function () { framePending = false; sayWhere(); });
    });
    window.addEventListener("resize", function () { zoomAt(scale, viewport.clientWidth / 2, viewport.clientHeight / 2); });
    home();
  }

  // ---- Walk-up sale: seats picked on the map go into the form ------------
  // The box office's map holds nothing: a free (or blocked) seat selected
  // there is added to the sale's Seats field as "Section Row+Seat", and
  // taken out again when selected again. The sale itself claims them.
  function walkUpToken(seat) {
    // "Stalls, row C, seat 12" in any language: the last word of each part.
    const parts = (seat.getAttribute("aria-label") || "").split(", ");
    const last = function (part) { return (part || "").split(" ").pop(); };
    return parts[0] + " " + last(parts[1]) + last(parts[2]);
  }
  function walkUpKey(text) { return text.replace(/\s+/g, "").toUpperCase(); }
  function walkUpList(input) {
    return input.value.split(",").map(function (t) { return t.trim(); }).filter(Boolean);
  }
  function markWalkUpSeat(seat, picked) {
    seat.classList.toggle("seat--picked", picked);
    seat.setAttribute("aria-pressed", picked ? "true" : "false");
  }
  document.addEventListener("click", function (event) {
    const seat = event.target.closest && event.target.closest("[data-walkup-map] button.seat");
    const input = document.getElementById("walkup-seats");
    if (!seat || !input) { return; }
    event.preventDefault();
    if (!/seat--(available|blocked)/.test(seat.className)) { return; }
    const token = walkUpToken(seat);
    const list = walkUpList(input);
    const at = list.findIndex(function (t) { return walkUpKey(t) === walkUpKey(token); });
    if (at >= 0) { list.splice(at, 1); } else { list.push(token); }
    markWalkUpSeat(seat, at < 0);
    input.value = list.join(", ");
    staleReview();
  });
  // A review shows one sale: once anything in it changes, it goes, and
  // the sale must be checked again (the server refuses a sale that no
  // longer matches its review anyway).
  function staleReview() {
    const review = document.querySelector(".walk-up-review");
    if (!review) { return; }
    review.remove();
    const again = document.querySelector('#walk-up-form button[value="review"]:not(.visually-hidden)');
    if (again) { again.className = "primary"; again.textContent = "Review the sale"; }
  }
  document.addEventListener("input", function (event) {
    const form = event.target.closest && event.target.closest("#walk-up-form");
    if (form && !event.target.closest(".walk-up-best")) { staleReview(); }
  });
  function initWalkUp() {
    const input = document.getElementById("walkup-seats");
    if (!input) { return; }
    const wanted = new Set(walkUpList(input).map(walkUpKey));
    document.querySelectorAll("[data-walkup-map] button.seat").forEach(function (seat) {
      if (wanted.has(walkUpKey(walkUpToken(seat)))) { markWalkUpSeat(seat, true); }
    });
  }

  // ---- Price filter ------------------------------------------------------
  // Dims what is outside the chosen range at once (the form's Show button
  // does the same through the server without JavaScript).
  function initPriceFilter() {
    const form = document.querySelector("[data-price-filter]");
    const frame = document.getElementById("map-frame");
    if (!form || !frame) { return; }
    form.classList.add("price-filter--live");
    const tiers = Array.prototype.map.call(document.querySelectorAll(".price-key li[data-tier]"), function (li) {
      return { tier: li.dataset.tier, price: Number(li.dataset.price) };
    });
    function update() {
      let min = Number(form.elements.price_min.value), max = Number(form.elements.price_max.value);
      if (min > max) { const t = min; min = max; max = t; }
      const outside = new Set();
      tiers.forEach(function (t) { if (t.price < min || t.price > max) { outside.add(t.tier); } });
      tiers.forEach(function (t) { frame.classList.toggle("dim-" + t.tier, outside.has(t.tier)); });
      document.querySelectorAll(".overview__section[data-tiers]").forEach(function (section) {
        const own = section.dataset.tiers.split(" ").filter(Boolean);
        section.classList.toggle("overview__section--dimmed", own.length > 0 && own.every(function (t) { return outside.has(t); }));
      });
      const url = new URL(window.location.href);
      url.searchParams.set("price_min", String(min));
      url.searchParams.set("price_max", String(max));
      history.replaceState(null, "", url);
    }
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
  }

  // ---- Picking a seat kept for wheelchair users ----------------------------
  // Best available never gives these to a party that didn't ask; a buyer
  // may still pick one by hand, after saying it is for its purpose. (In
  // capture, so a "no" stops the pick before anything else sees it.)
  document.addEventListener("click", function (event) {
    const seat = event.target.closest && event.target.closest("button[name=hold][data-confirm-pick]");
    if (seat && !window.confirm(seat.dataset.confirmPick)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  // ---- Seats with an attribute shown in full ---------------------------------
  // Without JavaScript the form reloads the page with the class set.
  function initFeatureFilter() {
    const form = document.querySelector("[data-feature-filter]");
    const frame = document.getElementById("map-frame");
    if (!form || !frame) { return; }
    function update() {
      const wanted = form.elements.feature.value;
      Array.from(frame.classList).filter(function (c) { return c.indexOf("want-") === 0; })
        .forEach(function (c) { frame.classList.remove(c); });
      if (wanted) { frame.classList.add("want-" + wanted.replace(/_/g, "-")); }
      const url = new URL(window.location.href);
      if (wanted) { url.searchParams.set("feature", wanted); } else { url.searchParams.delete("feature"); }
      history.replaceState(null, "", url);
    }
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
  }
  initFeatureFilter();

  // ---- A pick in flight ----------------------------------------------------
  // Only the pressed seat dims while its request runs: dimming the whole
  // map (a class on the form) repainted every seat, a 100 ms cost per click
  // on a 1,000-seat map.
  document.addEventListener("click", function (event) {
    const seat = event.target.closest && event.target.closest("#seat-map button.seat");
    if (seat && !event.defaultPrevented) { seat.classList.add("seat--pending"); }
  });
  document.addEventListener("htmx:afterRequest", function () {
    document.querySelectorAll(".seat--pending").forEach(function (s) { s.classList.remove("seat--pending"); });
  });

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

  // The map's own view first; making 1,000 seats keyboard-ready can wait
  // for the next task, so the first paint doesn't.
  initMap();
  setTimeout(initRoving, 0);
  initPriceFilter();
  initWalkUp();
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

// Print buttons (tickets): the page's print styles show only the tickets.
document.addEventListener("click", function (event) {
  const button = event.target.closest && event.target.closest("[data-print]");
  if (button) { window.print(); }
});

// "Checkout" on a phone's selection bar: to the buy form, with the cursor
// in Name (a plain link to the heading left focus on the page).
document.addEventListener("click", function (event) {
  const go = event.target.closest && event.target.closest(".selection-bar__go");
  const name = document.getElementById("buyer-name");
  if (!go || !name) { return; }
  event.preventDefault();
  const heading = document.getElementById("buy-heading");
  (heading || name).scrollIntoView({ block: "start" });
  name.focus({ preventScroll: true });
});

// The hold panel: its countdown, polite announcements as the hold runs
// out, the offer of more time in the last two minutes, and what the panel
// says once the hold has expired.

import { offsetFor, pad } from "./clock.js";
import { scheduleExpiryRefresh } from "./live.js";

/** Announcements made, by hold and milestone: each is made once. */
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

/** Marks a countdown (and its panel) expired. */
function expire(el, panel) {
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

/** One second of every countdown on the page. */
export function tick() {
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
      if (!el.classList.contains("countdown--expired")) { expire(el, panel); }
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

export function initHold() {
  // However the panel was replaced (an action's answer, or the live feed
  // after the box office released the hold), check it after each change.
  new MutationObserver(function () {
    const panel = document.getElementById("hold-panel");
    if (panel && !panel.querySelector(".countdown")) { clearStaleSuccess(); }
  }).observe(document.body, { childList: true, subtree: true });
}

/** Counts every countdown down, each second from now. */
export function startCountdowns() {
  tick();
  setInterval(tick, 1000);
}

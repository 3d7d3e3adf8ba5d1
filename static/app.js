// seatmap's script for every page. Everything works without it (forms
// post and redirect); it keeps the page live and honest between requests,
// and makes the map usable from the keyboard. No inline script anywhere:
// the CSP forbids it. ES modules by concern under static/app/, this one
// only starting them (the walk-up sale's own script is static/walk-up.js,
// loaded by that page alone):
//
//   clock.js           the server's time
//   hold.js            the hold panel's countdown and announcements
//   live.js            the live feed, and holds running out
//   best-available.js  the ring on seats best available found
//   keyboard.js        one tab stop per section, arrows between seats
//   map.js, zoom.js    zoom and pan (the sums pure, tests/js)
//   filters.js         price and attribute filters
//   picks.js           picking a seat
//   price-types.js     a seat's ticket type, and the total it makes
//   notices.js         notices, and errors from requests
//   buttons.js         confirm, print, checkout
//   selection.js       choosing many seats on the console's map
//   queue.js           the waiting room: countdown, place, proof of work

import { initBestAvailable } from "./app/best-available.js";
import { initButtons } from "./app/buttons.js";
import { initFilters } from "./app/filters.js";
import { initHold, startCountdowns, tick } from "./app/hold.js";
import { initKeyboard, initRoving } from "./app/keyboard.js";
import { initLive, scheduleExpiryRefresh } from "./app/live.js";
import { initMap } from "./app/map.js";
import { initNotices } from "./app/notices.js";
import { initPicks } from "./app/picks.js";
import { initPriceTypes } from "./app/price-types.js";
import { initQueue } from "./app/queue.js";
import { initSelection } from "./app/selection.js";

// Swapped-in seats arrive without tabindex and may carry new expiries.
let pending = false;
function afterUpdate() {
  if (pending) { return; }
  pending = true;
  setTimeout(function () { pending = false; initRoving(); scheduleExpiryRefresh(); tick(); }, 0);
}

initNotices();
initHold();
initLive(afterUpdate);
initBestAvailable();
initKeyboard();
initPicks();
initPriceTypes();
initButtons();
initSelection();
initQueue();
document.addEventListener("htmx:afterSettle", afterUpdate);
document.addEventListener("htmx:oobAfterSwap", afterUpdate);

// The map's own view first; making 1,000 seats keyboard-ready can wait
// for the next task, so the first paint doesn't.
initMap();
setTimeout(initRoving, 0);
initFilters();
scheduleExpiryRefresh();
startCountdowns();

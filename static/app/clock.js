// Clocks: times come from the server; this device's clock is corrected by
// the server's "now" at render time, never trusted on its own.

/** How far this device's clock is behind the server's, as `el` says
 * (its data-server-now, read once and kept on it). */
export function offsetFor(el) {
  if (!el.dataset.clockOffset) {
    const told = Date.parse(el.dataset.serverNow);
    el.dataset.clockOffset = String(isNaN(told) ? 0 : told - Date.now());
  }
  return Number(el.dataset.clockOffset);
}

/** The server's time now, by the live feed's clock. */
export function serverNow() {
  const feed = document.getElementById("live-feed");
  return Date.now() + (feed ? offsetFor(feed) : 0);
}

export function pad(n) {
  return String(n).padStart(2, "0");
}

// The seat map's zoom maths: how big the map opens, how far it zooms, and
// zooming about a point so that the seat under it stays under it. Pure
// functions of sizes (no DOM), unit-tested in tests/js.
//
// A view is { scale, offsetX, offsetY, left, top }: the canvas is scaled
// by `scale`, set in by the offsets where it is smaller than its frame
// (centred), and the frame scrolled to `left`, `top`. A frame and a map
// are { width, height } in pixels (the map unscaled).

/** A seat's size on the canvas, unscaled. */
export const SEAT_PX = 26;
/** The smallest seat a finger can aim at. */
export const MIN_TAP_PX = 24;
/** The closest zoom. */
export const MAX_SCALE = 4;

/** The scale at which the whole map fits its frame. */
export function fitScale(frame, map) {
  return Math.min(frame.width / map.width, frame.height / map.height);
}

/** The scale the map opens at, and Fit goes back to. The whole house,
 * always, so every price the key lists is on screen (filling the frame's
 * width instead hid a tall hall's back rows, the cheap ones, below the
 * fold); a mouse then zooms in where it wants. A phone's single section
 * opens at a size to tap. */
export function defaultScale(frame, map, { coarse, whole }) {
  const fit = fitScale(frame, map);
  if (coarse && !whole) { return Math.max(Math.min(fit, 1.5), MIN_TAP_PX / SEAT_PX + 0.01); }
  return Math.min(fit, 1.5);
}

/** The farthest zoom: a little smaller than the whole map (or than its
 * own size, for a map smaller than its frame). */
export function minScale(frame, map) {
  return Math.min(fitScale(frame, map), 1) * 0.75;
}

/** `scale` kept between the farthest and the closest zoom. */
export function clampScale(scale, frame, map) {
  return Math.min(MAX_SCALE, Math.max(minScale(frame, map), scale));
}

/** On a touch screen, seats drawn too small to tap (a tap zooms instead). */
export function tooSmallToTap(scale, coarse) {
  return coarse && scale * SEAT_PX < MIN_TAP_PX;
}

/** Where the canvas sits in its frame at `scale`: centred where smaller. */
export function centring(frame, map, scale) {
  return {
    offsetX: Math.max(0, (frame.width - map.width * scale) / 2),
    offsetY: Math.max(0, (frame.height - map.height * scale) / 2),
  };
}

/** The canvas point (unscaled) under frame point (x, y). */
export function toCanvas(view, x, y) {
  return { x: (view.left + x - view.offsetX) / view.scale, y: (view.top + y - view.offsetY) / view.scale };
}

/** The view at scale `next` (kept within the zoom's limits) that keeps
 * the canvas point under frame point (x, y) where it is. The browser may
 * then hold the scroll within the map. */
export function zoomAbout(view, next, x, y, frame, map) {
  const scale = clampScale(next, frame, map);
  const p = toCanvas(view, x, y);
  const { offsetX, offsetY } = centring(frame, map, scale);
  return { scale, offsetX, offsetY, left: p.x * scale + offsetX - x, top: p.y * scale + offsetY - y };
}

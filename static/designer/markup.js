// Text made safe to put in markup: everything from a layout (names,
// labels, a design's values) goes through `esc` before it is drawn.

export function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

export function pointsAttr(points) {
  return points.map(([x, y]) => `${x},${y}`).join(" ");
}

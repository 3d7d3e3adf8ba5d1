// The designer's one state object, and the layout it edits. The model is
// the canonical layout JSON (static/venue-layout.schema.json), the same the
// server stores. Every module takes the designer `d` made here: its page
// elements, and in `d.state` everything that changes. No DOM at import.

import { emptyHistory } from "./history.js";

export function emptyLayout() {
  return {
    name: "New venue",
    time_zone: "Europe/London",
    stage: { outline: [[300, 40], [700, 40], [700, 120], [300, 120]] },
    tiers: [{ code: "standard", name: "Standard" }],
    sections: [],
    ga_areas: [],
    labels: [],
  };
}

/** The designer on the page whose root is `root` ([data-designer]). */
export function createDesigner(root, colours) {
  return {
    root,
    svg: root.querySelector("[data-canvas]"),
    viewport: root.querySelector("[data-viewport]"),
    statusLine: root.querySelector("[data-status]"),
    venueId: root.dataset.venueId || null,
    /** The tiers' colours, in order (app.css's --tier-0, --tier-1…). */
    colours,
    state: {
      model: emptyLayout(),
      /** The version opened or last saved, as its ETag. */
      etag: null,
      history: emptyHistory(),
      /** {kind: "section"|"area"|"label"|"stage", index} or null. */
      selected: null,
      tool: "select",
      view: { x: 0, y: 0, scale: 1 },
      /** The server's last word on the layout's problems, by name. */
      reported: [],
      /** Those problems placed in the model as it is: s, r, p, area. */
      problems: [],
      /** Changed since it was opened or saved. */
      dirty: false,
      /** A pointer drag under way. */
      drag: null,
      /** A burst of arrow presses under way (one step of history). */
      nudgeTimer: null,
    },
    /** The server's check of the layout (./problems.js). */
    checker: null,
  };
}

/** The layout to send: drawn outlines of sections whose seats changed are
 * left for the server to draw; nothing else is added or dropped. */
export function layoutToSend(model) {
  return {
    name: model.name,
    time_zone: model.time_zone,
    ...(model.stage && model.stage.outline && model.stage.outline.length >= 3 ? { stage: model.stage } : {}),
    tiers: model.tiers,
    sections: model.sections,
    ga_areas: model.ga_areas,
    labels: model.labels,
  };
}

/** The tiers' colours, defined once in app.css as --tier-0, --tier-1…,
 * read from the page's computed style. */
export function tierColours(style) {
  const colours = [];
  for (let i = 0; i < 64; i++) {
    const colour = style.getPropertyValue(`--tier-${i}`).trim();
    if (!colour) break;
    colours.push(colour);
  }
  return colours.length ? colours : ["#555555"];
}

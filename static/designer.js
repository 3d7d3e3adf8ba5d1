// The seat-map designer: a venue layout drawn in SVG, saved through the
// staff API (GET/PUT /api/staff/venues/{id}/layout with If-Match, POST
// /api/staff/venues), its problems judged by the server's own check (POST
// /api/staff/layouts/check). No build step: ES modules by concern under
// static/designer/, this one only putting them together:
//
//   state.js     the one state object (`d.state`) and the layout it edits
//   history.js   undo and redo                  (pure, tests/js)
//   geometry.js  placing, laying out, the view  (pure, tests/js)
//   checks.js    asking the server's check      (pure, tests/js)
//   editor.js    a change as one step of history; selection
//   render.js    the canvas; panel.js the side panel; problems.js the checks
//   tools.js     the pointer and the brush; keys.js the keyboard
//   forms.js     the forms and buttons; files.js open, save, import, export

import { say } from "./designer/editor.js";
import { installForms } from "./designer/forms.js";
import { installUnsavedWarning, load } from "./designer/files.js";
import { installKeys } from "./designer/keys.js";
import { startChecks } from "./designer/problems.js";
import { createDesigner, tierColours } from "./designer/state.js";
import { installPointer } from "./designer/tools.js";

const root = document.querySelector("[data-designer]");
const d = createDesigner(root, tierColours(getComputedStyle(document.documentElement)));
startChecks(d);
installPointer(d);
installKeys(d);
installForms(d);
installUnsavedWarning(d);

root.hidden = false;
load(d).then(() => {
  if (new URLSearchParams(location.search).has("saved")) say(d, "Saved as version 1.");
});

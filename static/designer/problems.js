// The layout's problems as the server judges them: asked after each edit
// (./checks.js), or given by a refused save; listed beside the canvas and
// ringed on it. Nothing here judges a layout itself.

import { createChecker, placeProblems } from "./checks.js";
import { place } from "./geometry.js";
import { layoutToSend } from "./state.js";
import { esc } from "./markup.js";

/** Asks the server's check: its problems, or an error saying why not. */
async function askServer(body, signal) {
  const response = await fetch("/api/staff/layouts/check", {
    method: "POST", headers: { "Content-Type": "application/json" }, body, signal,
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || !Array.isArray(answer.problems)) {
    throw new Error(answer.message || `the server answered ${response.status}`);
  }
  return answer.problems;
}

export function startChecks(d) {
  d.checker = createChecker({
    send: askServer,
    onAnswer: (problems) => showServerProblems(d, problems),
    onFailure: (err) => {
      d.root.querySelector("[data-checks-summary]").textContent =
        `The layout could not be checked just now (${err.message}); saving checks it too.`;
    },
  });
}

/** Asks for a check of the layout as it will be in a moment. */
export function scheduleChecks(d) {
  d.checker?.schedule(() => JSON.stringify(layoutToSend(d.state.model)));
}

/** Problems the server found (a check, or a save's 422), placed by name. */
export function showServerProblems(d, list) {
  d.state.reported = list;
  showProblems(d);
}

/** Lists the server's last problems, placed in the model as it is now. */
export function showProblems(d) {
  const { state, root } = d;
  const list = placeProblems(state.model, state.reported);
  state.problems = list;
  const shown = list.slice(0, 200);
  root.querySelector("[data-checks-summary]").textContent = list.length
    ? `${list.length} problem${list.length === 1 ? "" : "s"}; the server refuses to save until they are fixed.`
    : "No problems.";
  root.querySelector("[data-problems]").innerHTML = shown
    .map((p, i) => `<li class="d-problem d-problem--${esc(p.kind)}"><button type="button" class="link-button" data-problem="${i}">${esc(p.message)}</button></li>`)
    .join("");
  const markers = d.viewport.querySelector("[data-markers]");
  if (!markers) return;
  markers.innerHTML = shown
    .filter((p) => p.p !== undefined)
    .map((p) => {
      const section = state.model.sections[p.s];
      const seat = section.rows[p.r].seats[p.p];
      const [x, y] = place(section, seat.x, seat.y);
      return `<circle class="d-marker" cx="${x}" cy="${y}" r="16"></circle>`;
    })
    .join("");
}

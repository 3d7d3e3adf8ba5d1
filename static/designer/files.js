// The layout in and out: opening the venue's latest version, saving over
// the version opened (If-Match) or as a new venue, importing a JSON or CSV
// file (the server reads it), and exporting JSON.

import { change, say } from "./editor.js";
import { seatCount } from "./geometry.js";
import { emptyHistory } from "./history.js";
import { showServerProblems } from "./problems.js";
import { fit, redraw } from "./render.js";
import { emptyLayout, layoutToSend } from "./state.js";

export function exportJson(d) {
  const { model } = d.state;
  const blob = new Blob([JSON.stringify(layoutToSend(model), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${(model.name || "venue").replace(/[^A-Za-z0-9_-]+/g, "-")}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

export async function importFile(d, input) {
  const file = input.files[0];
  if (!file) return;
  const text = await file.text();
  const response = await fetch(`/api/staff/layouts/read?file_name=${encodeURIComponent(file.name)}`, {
    method: "POST", headers: { "Content-Type": "text/plain" }, body: text,
  });
  const body = await response.json().catch(() => ({}));
  input.value = "";
  if (!response.ok) {
    say(d, `${file.name} was not read: ${body.message || response.status}`);
    if (body.problems) showServerProblems(d, body.problems);
    return;
  }
  change(d, `Imported ${file.name}.`, () => {
    d.state.model = body;
    d.state.model.labels ||= [];
    d.state.selected = null;
  });
  fit(d);
}

/** Opens the venue's latest version (or a new venue's empty layout). */
export async function load(d) {
  const { state, root, venueId } = d;
  const started = performance.now();
  if (!venueId) {
    state.model = emptyLayout();
  } else {
    const response = await fetch(`/api/staff/venues/${venueId}/layout`);
    if (!response.ok) { say(d, `The venue could not be loaded (${response.status}).`); return; }
    state.etag = response.headers.get("ETag");
    state.model = await response.json();
  }
  state.model.labels ||= [];
  state.history = emptyHistory();
  state.selected = null;
  state.dirty = false;
  root.querySelector("[data-conflict]").hidden = true;
  redraw(d);
  fit(d);
  // Once the side panel has laid out, the canvas has its final size.
  requestAnimationFrame(() => fit(d));
  const ms = Math.round(performance.now() - started);
  root.dataset.loadedMs = String(ms);
  say(d, venueId ? `Opened version ${(state.etag || "").replace(/\D/g, "")} (${seatCount(state.model)} seats).` : "A new venue: add sections, tiers and areas, then save.");
}

export async function save(d, overwrite) {
  const { state, root, venueId } = d;
  const button = root.querySelector('[data-action="save"]');
  button.disabled = true;
  say(d, "Saving…");
  try {
    let response;
    if (!venueId) {
      response = await fetch("/api/staff/venues", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(layoutToSend(state.model)) });
    } else {
      let tag = state.etag;
      if (overwrite) {
        // Saving over theirs on purpose: over the version there now, by name.
        const latest = await fetch(`/api/staff/venues/${venueId}/layout`, { method: "HEAD" });
        tag = latest.headers.get("ETag") || tag;
      }
      if (!tag) { say(d, "Not saved: the venue never loaded. Reload the page."); return; }
      response = await fetch(`/api/staff/venues/${venueId}/layout`, {
        method: "PUT", headers: { "Content-Type": "application/json", "If-Match": tag }, body: JSON.stringify(layoutToSend(state.model)),
      });
    }
    const body = await response.json().catch(() => ({}));
    if (response.ok) {
      state.dirty = false;
      root.querySelector("[data-conflict]").hidden = true;
      if (!venueId) {
        window.location.assign(`/staff/venues/${body.id}/edit?saved=1`);
        return;
      }
      state.etag = response.headers.get("ETag");
      say(d, `Saved as version ${body.version}.`);
      root.dataset.savedVersion = String(body.version);
    } else if (response.status === 412) {
      const conflict = root.querySelector("[data-conflict]");
      conflict.hidden = false;
      conflict.querySelector("[data-conflict-text]").textContent = `Version ${body.version} was saved after the version you opened. Nothing of yours was saved, and nothing of theirs was changed.`;
      say(d, body.message || "Someone saved since you opened this venue.");
    } else if (response.status === 422 && body.problems) {
      showServerProblems(d, body.problems);
      say(d, body.message);
    } else {
      say(d, body.message || `Not saved (${response.status}).`);
    }
  } catch (err) {
    say(d, `Not saved: ${err.message}. Your drawing is still here.`);
  } finally {
    button.disabled = false;
  }
}

/** Leaving with unsaved changes asks first. */
export function installUnsavedWarning(d) {
  window.addEventListener("beforeunload", (event) => {
    if (d.state.dirty) event.preventDefault();
  });
}

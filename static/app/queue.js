// The waiting room's page: counts down to the opening, asks the server
// where this buyer stands (JSON each instance answers from memory) at the
// interval the server gives, moves on to the map once admitted, and
// solves the proof of work a join may need. The server judges every
// answer: nothing here decides a place.

import { offsetFor, pad } from "./clock.js";

/** Leading zero bits of a byte array. */
export function leadingZeroBits(bytes) {
  let bits = 0;
  for (const byte of bytes) {
    if (byte === 0) { bits += 8; continue; }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** The first nonce, counting up from 0, whose SHA-256 of
 * "challenge:nonce" starts with `bits` zero bits. `digest(text)` gives a
 * promise of the hash's bytes (crypto.subtle's in the browser); hashes
 * are asked for `batch` at a time so the waits overlap. */
export async function solvePuzzle(challenge, bits, digest, batch = 256) {
  for (let start = 0; ; start += batch) {
    const nonces = Array.from({ length: batch }, (_, i) => String(start + i));
    const hashes = await Promise.all(nonces.map((n) => digest(challenge + ":" + n)));
    const found = hashes.findIndex((hash) => leadingZeroBits(hash) >= bits);
    if (found >= 0) { return nonces[found]; }
  }
}

/** "mm:ss", or "h:mm:ss" from an hour up, for a countdown of `secs`. */
export function countdownText(secs) {
  const s = Math.max(0, Math.ceil(secs));
  const hours = Math.floor(s / 3600);
  const rest = pad(Math.floor((s % 3600) / 60)) + ":" + pad(s % 60);
  return hours > 0 ? hours + ":" + rest : rest;
}

/** What the page does with the server's answer: go to the map, show the
 * place and ask again after the server's interval, or reload to show
 * what changed (expired, not joined). */
export function nextStep(standing) {
  if (standing.state === "admitted") { return { go: "map" }; }
  if (standing.state === "waiting") {
    const asked = Number(standing.poll_after_secs);
    const secs = Number.isFinite(asked) ? asked : 5;
    return {
      show: { position: standing.position, ahead: standing.ahead },
      pollAfterMs: 1000 * Math.max(1, Math.min(60, secs)),
    };
  }
  return { go: "reload" };
}

async function browserDigest(text) {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(hash);
}

function tickOpening(el) {
  const ms = Date.parse(el.dataset.opensAt) - (Date.now() + offsetFor(el));
  const time = el.querySelector(".queue__countdown-time");
  if (time) { time.textContent = countdownText(ms / 1000); }
  return ms;
}

async function poll(section) {
  const eventId = section.dataset.eventId;
  let step;
  try {
    const response = await fetch("/api/events/" + eventId + "/queue", { credentials: "same-origin" });
    step = nextStep(await response.json());
  } catch {
    step = { pollAfterMs: 5000 };
  }
  if (step.go === "map") { window.location.assign("/events/" + eventId); return; }
  if (step.go === "reload") { window.location.reload(); return; }
  if (step.show) {
    const position = section.querySelector("[data-queue-position]");
    const ahead = section.querySelector("[data-queue-ahead]");
    if (position && step.show.position !== undefined) { position.textContent = String(step.show.position); }
    if (ahead && step.show.ahead !== undefined) { ahead.textContent = String(step.show.ahead); }
  }
  setTimeout(function () { poll(section); }, step.pollAfterMs);
}

async function prepareJoin(form, eventId) {
  const status = form.querySelector("[data-queue-pow-status]");
  const response = await fetch("/api/events/" + eventId + "/queue/challenge", { credentials: "same-origin" });
  const { challenge, bits } = await response.json();
  if (challenge) {
    form.elements.challenge.value = challenge;
    form.elements.nonce.value = await solvePuzzle(challenge, bits, browserDigest);
  }
  if (status) { status.textContent = status.dataset.ready || ""; }
  form.querySelector("button[type=submit]").disabled = false;
}

export function initQueue() {
  const section = document.querySelector("[data-queue]");
  if (!section) { return; }
  const opening = section.querySelector("[data-opens-at]");
  if (opening) {
    const timer = setInterval(function () {
      // At the opening the page shows the line as it now stands.
      if (tickOpening(opening) <= 0) { clearInterval(timer); window.location.reload(); }
    }, 1000);
    tickOpening(opening);
  }
  if (section.dataset.queueState === "waiting") {
    // The page's Refresh header is for browsers without this script.
    setTimeout(function () { poll(section); }, 1000 * Number(section.dataset.pollAfter || 5));
  }
  const form = section.querySelector("form[data-queue-pow]");
  if (form) { prepareJoin(form, section.dataset.eventId); }
}

// Asking the server's check of a layout (static/designer/checks.js): with
// a stand-in for the request.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createChecker, placeProblems } from "../../../static/designer/checks.js";

/** Lets the timers mocked run `ms` on, and every promise settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));
function timers(t) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  return async (ms) => { t.mock.timers.tick(ms); await settle(); };
}

/** A stand-in server: each request waits until answered by hand. */
function server() {
  const requests = [];
  const send = (body, signal) => new Promise((resolve, reject) => {
    const request = { body, signal, answer: resolve, fail: reject };
    signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
    requests.push(request);
  });
  return { requests, send };
}

test("edits in a burst are checked once, after the last", async (t) => {
  const sleep = timers(t);
  const { requests, send } = server();
  const answers = [];
  const checker = createChecker({ send, onAnswer: (p) => answers.push(p), onFailure: assert.fail, delay: 20 });
  let layout = "a";
  for (const next of ["b", "c", "d"]) { layout = next; checker.schedule(() => layout); await sleep(5); }
  assert.equal(requests.length, 0, "not while the edits go on");
  await sleep(40);
  assert.deepEqual(requests.map((r) => r.body), ["d"]);
  requests[0].answer([{ kind: "overlap" }]);
  await settle();
  assert.deepEqual(answers, [[{ kind: "overlap" }]]);
  assert.equal(checker.pending, false);
});

test("a newer check cancels the older request, whose answer is never shown", async (t) => {
  const sleep = timers(t);
  const { requests, send } = server();
  const answers = [];
  const checker = createChecker({ send, onAnswer: (p) => answers.push(p), onFailure: assert.fail, delay: 5 });
  checker.schedule(() => "first");
  await sleep(20);
  checker.schedule(() => "second");
  // The first answers after the second was asked for: too late to count.
  requests[0].answer(["stale"]);
  await settle();
  assert.deepEqual(answers, [], "an answer about an older layout");
  await sleep(20);
  assert.equal(requests.length, 2);
  requests[1].answer([]);
  await settle();
  assert.deepEqual(answers, [[]], "only the second's answer");

  checker.schedule(() => "third");
  await sleep(20);
  checker.schedule(() => "fourth");
  await sleep(20);
  assert.equal(requests[2].signal.aborted, true, "the third's request is cancelled");
  requests[3].answer(["fourth's"]);
  await settle();
  assert.deepEqual(answers, [[], ["fourth's"]]);
});

test("an unchanged layout is not sent again; a failure is told, a cancelled one is not", async (t) => {
  const sleep = timers(t);
  const { requests, send } = server();
  const answers = [], failures = [];
  const checker = createChecker({ send, onAnswer: (p) => answers.push(p), onFailure: (e) => failures.push(e.message), delay: 5 });
  checker.schedule(() => "same");
  await sleep(20);
  requests[0].answer(["one"]);
  await settle();
  checker.schedule(() => "same");
  await sleep(20);
  assert.equal(requests.length, 1, "the answer is known");
  assert.deepEqual(answers, [["one"], ["one"]]);

  checker.schedule(() => "other");
  await sleep(20);
  requests[1].fail(new Error("the server answered 503"));
  await settle();
  assert.deepEqual(failures, ["the server answered 503"]);

  checker.schedule(() => "again");
  await sleep(20);
  checker.cancel();
  await settle();
  assert.equal(requests[2].signal.aborted, true);
  assert.deepEqual(failures, ["the server answered 503"], "a cancel is no failure");
  assert.equal(checker.pending, false);
});

test("the server's problems are placed by section, row and seat name", () => {
  const model = {
    sections: [
      { name: "Stalls", rows: [{ label: "A", seats: [{ label: "1" }, { label: "2" }] }] },
      { name: "Circle", rows: [{ label: "A", seats: [] }, { label: "B", seats: [{ label: "7" }] }] },
    ],
    ga_areas: [{ name: "Floor" }],
  };
  const placed = placeProblems(model, [
    { kind: "overlap", message: "m1", section: "Circle", row: "B", seat: "7" },
    { kind: "unpainted", message: "m2", section: "Floor" },
    { kind: "duplicate_label", message: "m3", section: "Stalls", row: "Z" },
    { kind: "invalid", message: "m4" },
  ]);
  assert.deepEqual(placed, [
    { kind: "overlap", message: "m1", s: 1, r: 1, p: 0 },
    { kind: "unpainted", message: "m2", area: 0 },
    { kind: "duplicate_label", message: "m3", s: 0 },
    { kind: "invalid", message: "m4" },
  ]);
});

// The server is the one judge of a layout: the designer asks its check
// (POST /api/staff/layouts/check, the very rules a save passes) a moment
// after each edit, and shows what it says. Pure: no DOM; unit-tested in
// tests/js with a stand-in for the request.

/** How long after the last edit the layout is sent to be checked. */
export const CHECK_DELAY_MS = 400;

/**
 * A check of the layout `bodyOf()` returns (its JSON text), asked `delay`
 * ms after the last `schedule`: a newer schedule cancels the older
 * request, and an answer about an older layout is never shown.
 * `send(body, signal)` resolves to the problems; `onAnswer(problems)` and
 * `onFailure(error)` are told the outcome.
 */
export function createChecker({ send, onAnswer, onFailure, delay = CHECK_DELAY_MS }) {
  const self = { timer: null, controller: null, generation: 0, lastBody: null, lastAnswer: null };

  async function run(bodyOf, generation) {
    self.timer = null;
    if (self.controller) self.controller.abort();
    self.controller = null;
    const body = bodyOf();
    if (body === self.lastBody) {
      // Nothing changed since the last answer (a selection, say).
      onAnswer(self.lastAnswer);
      return;
    }
    const controller = new AbortController();
    self.controller = controller;
    let answer;
    try {
      answer = await send(body, controller.signal);
    } catch (err) {
      if (!controller.signal.aborted && generation === self.generation) onFailure(err);
      return;
    } finally {
      if (self.controller === controller) self.controller = null;
    }
    if (generation !== self.generation) return;
    self.lastBody = body;
    self.lastAnswer = answer;
    onAnswer(answer);
  }

  return {
    /** Checks the layout `delay` ms from now, unless asked again first. */
    schedule(bodyOf) {
      self.generation += 1;
      clearTimeout(self.timer);
      const generation = self.generation;
      self.timer = setTimeout(() => run(bodyOf, generation), delay);
    },
    /** Stops any check waiting or under way. */
    cancel() {
      self.generation += 1;
      clearTimeout(self.timer);
      self.timer = null;
      if (self.controller) self.controller.abort();
      self.controller = null;
    },
    /** A check waiting for its time or for its answer. */
    get pending() {
      return self.timer !== null || self.controller !== null;
    },
  };
}

/**
 * The server's problems, each placed in the model by its names: `s` the
 * section, `r` the row, `p` the seat (indexes, each only when found), or
 * `area` a standing area; with the server's kind and words.
 */
export function placeProblems(model, list) {
  return list.map((problem) => {
    const placed = { kind: problem.kind, message: problem.message };
    const s = problem.section === undefined ? -1 : model.sections.findIndex((x) => x.name === problem.section);
    if (s >= 0) {
      placed.s = s;
      const rows = model.sections[s].rows;
      const r = problem.row === undefined ? -1 : rows.findIndex((x) => x.label === problem.row);
      if (r >= 0) {
        placed.r = r;
        const p = problem.seat === undefined ? -1 : rows[r].seats.findIndex((x) => x.label === problem.seat);
        if (p >= 0) placed.p = p;
      }
    } else if (problem.section !== undefined) {
      const area = model.ga_areas.findIndex((x) => x.name === problem.section);
      if (area >= 0) placed.area = area;
    }
    return placed;
  });
}

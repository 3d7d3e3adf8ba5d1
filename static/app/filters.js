// The map's filters, applied at once: seats outside a price range dim,
// and seats with an attribute asked for stay in full while the rest dim.
// Without JavaScript each form's button does the same through the server.

/** Keeps the page's URL saying what is shown, for a reload or a link. */
function replaceQuery(set) {
  const url = new URL(window.location.href);
  set(url.searchParams);
  history.replaceState(null, "", url);
}

function initPriceFilter() {
  const form = document.querySelector("[data-price-filter]");
  const frame = document.getElementById("map-frame");
  if (!form || !frame) { return; }
  form.classList.add("price-filter--live");
  const tiers = Array.prototype.map.call(document.querySelectorAll(".price-key li[data-tier]"), function (li) {
    return { tier: li.dataset.tier, price: Number(li.dataset.price) };
  });
  function update() {
    let min = Number(form.elements.price_min.value), max = Number(form.elements.price_max.value);
    if (min > max) { const t = min; min = max; max = t; }
    const outside = new Set();
    tiers.forEach(function (t) { if (t.price < min || t.price > max) { outside.add(t.tier); } });
    tiers.forEach(function (t) { frame.classList.toggle("dim-" + t.tier, outside.has(t.tier)); });
    document.querySelectorAll(".overview__section[data-tiers]").forEach(function (section) {
      const own = section.dataset.tiers.split(" ").filter(Boolean);
      section.classList.toggle("overview__section--dimmed", own.length > 0 && own.every(function (t) { return outside.has(t); }));
    });
    replaceQuery(function (params) {
      params.set("price_min", String(min));
      params.set("price_max", String(max));
    });
  }
  form.addEventListener("change", update);
  form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
}

function initFeatureFilter() {
  const form = document.querySelector("[data-feature-filter]");
  const frame = document.getElementById("map-frame");
  if (!form || !frame) { return; }
  function update() {
    const wanted = form.elements.feature.value;
    Array.from(frame.classList).filter(function (c) { return c.indexOf("want-") === 0; })
      .forEach(function (c) { frame.classList.remove(c); });
    if (wanted) { frame.classList.add("want-" + wanted.replace(/_/g, "-")); }
    replaceQuery(function (params) {
      if (wanted) { params.set("feature", wanted); } else { params.delete("feature"); }
    });
  }
  form.addEventListener("change", update);
  form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
}

export function initFilters() {
  initFeatureFilter();
  initPriceFilter();
}

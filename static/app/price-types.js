// Ticket types in the hold panel: choosing Child for a seat shows its
// price and the new total at once. The server prices the order again when
// it is bought; this only shows what it will say. Without JavaScript each
// option already names its price.

/** The hold's total in minor units: GA tickets plus each seat's chosen type. */
export function totalCents(gaCents, chosenCents) {
  return chosenCents.reduce(function (sum, cents) { return sum + cents; }, gaCents);
}

/** Minor units as the page's language writes money in `currency`; a
 *  whole amount without its zeros ("€125", as the server writes it). */
export function formatMoney(cents, currency, lang) {
  const digits = new Intl.NumberFormat(lang, { style: "currency", currency: currency }).resolvedOptions().maximumFractionDigits;
  const unit = Math.pow(10, digits);
  const whole = cents % unit === 0;
  return new Intl.NumberFormat(lang, {
    style: "currency",
    currency: currency,
    minimumFractionDigits: whole ? 0 : digits,
    maximumFractionDigits: whole ? 0 : digits,
  }).format(cents / unit);
}

function retotal(panel) {
  const total = panel.querySelector("[data-hold-total]");
  if (!total) { return; }
  const selects = panel.querySelectorAll("select[data-price-type]");
  const chosen = [];
  selects.forEach(function (select) {
    const option = select.selectedOptions[0];
    if (!option) { return; }
    chosen.push(Number(option.dataset.cents));
    const price = panel.querySelector('[data-seat-price="' + select.dataset.priceType + '"]');
    if (price) { price.textContent = option.dataset.price; }
  });
  const before = total.textContent;
  const after = formatMoney(totalCents(Number(total.dataset.gaCents || 0), chosen), total.dataset.currency, document.documentElement.lang || "en");
  total.textContent = after;
  panel.querySelectorAll("[data-hold-total-copy]").forEach(function (copy) { copy.textContent = after; });
  // The buy button names the total too ("Buy for €110").
  const buy = panel.querySelector("#buy-form button[type=submit]");
  if (buy && before && buy.textContent.includes(before)) { buy.textContent = buy.textContent.replace(before, after); }
}

export function initPriceTypes() {
  document.addEventListener("change", function (event) {
    const select = event.target.closest && event.target.closest("select[data-price-type]");
    const panel = select && select.closest("#hold-panel");
    if (panel) { retotal(panel); }
  });
}

// Ticket types in the hold panel: choosing Child for a seat shows its
// price and the new total at once. The server prices the order again when
// it is bought; this only shows what it will say. Without JavaScript each
// option already names its price.

/** The tax in (included) or on (added) an amount, rounded half up, with
 *  the rate in hundredths of a percent: what the server stores per ticket. */
export function taxOn(amountCents, rateHundredths, included) {
  if (!rateHundredths || amountCents === 0) { return 0; }
  const denominator = included ? 10000 + rateHundredths : 10000;
  return Math.floor((2 * amountCents * rateHundredths + denominator) / (2 * denominator));
}

/** Fees, tax and total of tickets priced `ticketCents`, each charged the
 *  booking fee and taxed on its price and its fee apart, as a purchase is. */
export function chargedTotals(ticketCents, charges) {
  let fees = 0;
  let tax = 0;
  let subtotal = 0;
  ticketCents.forEach(function (price) {
    subtotal += price;
    fees += charges.feeCents;
    tax += taxOn(price, charges.taxHundredths, charges.taxIncluded) + taxOn(charges.feeCents, charges.taxHundredths, charges.taxIncluded);
  });
  const total = subtotal + fees + (charges.taxIncluded ? 0 : tax);
  return { fees: fees, tax: tax, total: total };
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
  const gaUnits = (total.dataset.gaUnits || "").split(",").filter(Boolean).map(Number);
  const charged = chargedTotals(chosen.concat(gaUnits), {
    feeCents: Number(total.dataset.feeCents || 0),
    taxHundredths: Number(total.dataset.taxHundredths || 0),
    taxIncluded: total.dataset.taxIncluded !== "false",
  });
  const lang = document.documentElement.lang || "en";
  const money = function (cents) { return formatMoney(cents, total.dataset.currency, lang); };
  const fees = panel.querySelector("[data-hold-fees]");
  if (fees) { fees.textContent = money(charged.fees); }
  const tax = panel.querySelector("[data-hold-tax]");
  if (tax) { tax.textContent = money(charged.tax); }
  const before = total.textContent;
  const after = money(charged.total);
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

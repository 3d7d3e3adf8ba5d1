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

/** What a promo code takes off one ticket of `cents` sold as type `code`:
 *  a percentage rounded half up, or an amount never below zero; nothing
 *  when the code names other types. `rule` is null without a code. */
export function discountOff(cents, code, rule) {
  if (!rule) { return 0; }
  if (rule.types.length > 0 && !rule.types.includes(code)) { return 0; }
  if (rule.percent > 0) { return Math.floor((cents * rule.percent + 50) / 100); }
  return Math.min(rule.cents, cents);
}

/** Discount, fees, tax and total of `tickets` ({cents, discount} each),
 *  each charged the booking fee and taxed on its price after discount and
 *  on its fee apart, as a purchase is. */
export function chargedTotals(tickets, charges) {
  let discount = 0;
  let fees = 0;
  let tax = 0;
  let subtotal = 0;
  tickets.forEach(function (ticket) {
    const price = ticket.cents - ticket.discount;
    subtotal += ticket.cents;
    discount += ticket.discount;
    fees += charges.feeCents;
    tax += taxOn(price, charges.taxHundredths, charges.taxIncluded) + taxOn(charges.feeCents, charges.taxHundredths, charges.taxIncluded);
  });
  const total = subtotal - discount + fees + (charges.taxIncluded ? 0 : tax);
  return { discount: discount, fees: fees, tax: tax, total: total };
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

/** The applied code's rule, as the total's data attributes carry it. */
function codeRule(total) {
  if (total.dataset.discountPercent === undefined) { return null; }
  return {
    percent: Number(total.dataset.discountPercent),
    cents: Number(total.dataset.discountCents || 0),
    types: (total.dataset.discountTypes || "").split(",").filter(Boolean),
  };
}

function retotal(panel) {
  const total = panel.querySelector("[data-hold-total]");
  if (!total) { return; }
  const rule = codeRule(total);
  const tickets = [];
  panel.querySelectorAll("select[data-price-type]").forEach(function (select) {
    const option = select.selectedOptions[0];
    if (!option) { return; }
    const cents = Number(option.dataset.cents);
    tickets.push({ cents: cents, discount: discountOff(cents, option.value, rule) });
    const price = panel.querySelector('[data-seat-price="' + select.dataset.priceType + '"]');
    if (price) { price.textContent = option.dataset.price; }
  });
  // GA places of an event without types: a code that names no types takes
  // its discount off them too, as the purchase does.
  (total.dataset.gaUnits || "").split(",").filter(Boolean).forEach(function (cents) {
    tickets.push({ cents: Number(cents), discount: discountOff(Number(cents), "", rule) });
  });
  const charged = chargedTotals(tickets, {
    feeCents: Number(total.dataset.feeCents || 0),
    taxHundredths: Number(total.dataset.taxHundredths || 0),
    taxIncluded: total.dataset.taxIncluded !== "false",
  });
  const lang = document.documentElement.lang || "en";
  const money = function (cents) { return formatMoney(cents, total.dataset.currency, lang); };
  const discountLine = panel.querySelector("[data-hold-discount-line]");
  if (discountLine) {
    discountLine.hidden = charged.discount === 0;
    discountLine.querySelector("[data-hold-discount]").textContent = "\u2212" + money(charged.discount);
  }
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
  // The types chosen in this page, by seat id: the panel comes back from
  // the server when a code is applied, a seat added or the live feed
  // updates it, and the choices are kept, not reset to the default.
  const chosen = {};
  document.addEventListener("change", function (event) {
    const select = event.target.closest && event.target.closest("select[data-price-type]");
    const panel = select && select.closest("#hold-panel");
    if (!panel) { return; }
    chosen[select.dataset.priceType] = select.value;
    retotal(panel);
  });
  const restore = function () {
    const panel = document.getElementById("hold-panel");
    if (!panel) { return; }
    let changed = false;
    panel.querySelectorAll("select[data-price-type]").forEach(function (select) {
      const wanted = chosen[select.dataset.priceType];
      if (wanted && wanted !== select.value && select.querySelector('option[value="' + wanted + '"]')) {
        select.value = wanted;
        changed = true;
      }
    });
    if (changed) { retotal(panel); }
  };
  document.addEventListener("htmx:afterSettle", restore);
  document.addEventListener("htmx:oobAfterSwap", restore);
}

//! Money reconciles to the cent (issue 47): 1,000 random orders over four
//! events, each with its own booking fee and tax (included, added, none),
//! mixed price types and promo codes, then random partial and full
//! refunds. Two of the events are paid for online, through the Stripe
//! stand-in. The test prices every order itself from what it chose, and
//! holds the app's answers to that: each order's receipt, each refund's
//! amount, the sum of each order's tickets, the report's figures, and what
//! the stand-in charged and paid back.

use std::collections::BTreeMap;

use futures::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api_keys::make_staff_key;
use crate::offer_payment::pay_at_stripe;
use crate::payments::{drain_provider_calls, paying_app_with};
use crate::promo_codes::staff_call;
use crate::support::{EventFixture, TestApp, id_segment};
use seatmap::domain::charges::Tax;
use seatmap::domain::role::Role;
use stripe_standin::StandIn;

const ORDERS: usize = 1_000;

/// One event's offer as the test knows it.
struct Offer {
    event: EventFixture,
    fee: i64,
    tax: Option<Tax>,
    fees_refundable: bool,
    /// Paid for online, through the stand-in (otherwise no payment).
    online: bool,
}

/// The types every event sells: code and price (one tier, "std").
const TYPES: [(&str, i64); 3] = [("adult", 4500), ("child", 2000), ("student", 3000)];

/// A code: what it takes off one ticket of `price` and `kind`, if it applies.
fn discount_of(code: &str, kind: &str, price: i64) -> Option<i64> {
    match code {
        "PCT15" => Some((price * 15 + 50) / 100),
        "EUR5" => Some(500.min(price)),
        "STU10" if kind == "student" => Some((price * 10 + 50) / 100),
        _ => None,
    }
}

/// What the test expects of one ticket: price after discount, discount,
/// fee, tax (on price and fee).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Expected {
    kind: &'static str,
    price: i64,
    discount: i64,
    fee: i64,
    tax: i64,
}

impl Offer {
    fn ticket(&self, kind: &str, code: Option<&str>) -> Expected {
        let (kind, list) = *TYPES.iter().find(|(k, _)| *k == kind).unwrap();
        let discount = code.and_then(|c| discount_of(c, kind, list)).unwrap_or(0);
        let price = list - discount;
        let tax = self.tax.map_or(0, |t| t.on(price) + t.on(self.fee));
        Expected {
            kind,
            price,
            discount,
            fee: self.fee,
            tax,
        }
    }

    fn added_tax(&self) -> bool {
        self.tax.is_some_and(|t| !t.included)
    }

    /// What a refund of this ticket pays back.
    fn refund_of(&self, ticket: &Expected) -> i64 {
        let fee_tax = self.tax.map_or(0, |t| t.on(self.fee));
        let price_tax = ticket.tax - fee_tax;
        let added = self.added_tax();
        ticket.price
            + if added { price_tax } else { 0 }
            + match (self.fees_refundable, added) {
                (false, _) => 0,
                (true, true) => ticket.fee + fee_tax,
                (true, false) => ticket.fee,
            }
    }
}

/// One order as the test made it.
struct Made {
    offer: usize,
    order_id: Value,
    tickets: Vec<Expected>,
    code: Option<String>,
}

async fn set_up(app: &TestApp, key: &str) -> Vec<Offer> {
    let charges = [
        (150, Some(("19", true)), true, true),
        (0, Some(("8.25", false)), true, true),
        (99, None, true, false),
        (250, Some(("7", true)), false, false),
    ];
    let mut offers = Vec::new();
    for (fee, tax, fees_refundable, online) in charges {
        let event = app.create_event(15, 50).await;
        let types: Vec<Value> = TYPES
            .iter()
            .map(|(code, cents)| json!({"code": code, "label": {"en": code}, "prices": {"std": cents}}))
            .collect();
        let path = format!("/api/staff/events/{}/price-types", event.id);
        let (status, body) = staff_call(
            app,
            key,
            Method::PUT,
            &path,
            Some(json!({"price_types": types})),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let codes = format!("/api/staff/events/{}/promo-codes", event.id);
        for code in [
            json!({"code": "PCT15", "percent_off": 15}),
            json!({"code": "EUR5", "amount_off_cents": 500}),
            json!({"code": "STU10", "percent_off": 10, "price_types": ["student"], "max_uses": 40}),
        ] {
            let (status, body) = staff_call(app, key, Method::POST, &codes, Some(code)).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
        let body = json!({
            "booking_fee_cents": fee,
            "tax": tax.map(|(rate, included)| json!({"rate_percent": rate, "included": included})),
            "fees_refundable": fees_refundable,
            "payment": if online { "online" } else { "none" },
        });
        let path = format!("/api/staff/events/{}", event.id);
        let (status, set) = staff_call(app, key, Method::PATCH, &path, Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{set}");
        offers.push(Offer {
            event,
            fee,
            tax: tax.map(|(rate, included)| Tax::parse(rate, included).unwrap()),
            fees_refundable,
            online,
        });
    }
    offers
}

/// Makes order `n`: its seats, types and code drawn from `rng`'s seed.
async fn make_order(
    app: &TestApp,
    standin: &StandIn,
    offers: &[Offer],
    n: usize,
    seed: u64,
) -> Made {
    let mut rng = StdRng::seed_from_u64(seed);
    let which = n % offers.len();
    let offer = &offers[which];
    // Each event's seats are dealt out in turns: order n takes 3 slots.
    let slot = (n / offers.len()) * 3;
    let count = rng.random_range(1..=3usize);
    let seats: Vec<i64> = offer.event.seat_ids[slot..slot + count].to_vec();
    let kinds: Vec<&str> = (0..count)
        .map(|_| TYPES[rng.random_range(0..TYPES.len())].0)
        .collect();
    let mut code = match rng.random_range(0..4) {
        0 => Some("PCT15"),
        1 => Some("EUR5"),
        2 => Some("STU10"),
        _ => None,
    };
    let buyer = app.buyer();
    let (status, hold) = buyer.hold(offer.event.id, &seats).await;
    assert_eq!(status, StatusCode::CREATED, "{hold}");
    let types: BTreeMap<String, &str> = seats
        .iter()
        .zip(&kinds)
        .map(|(seat, kind)| (seat.to_string(), *kind))
        .collect();
    let path = format!("/api/holds/{}/purchase", id_segment(&hold["hold_id"]));
    let bought = loop {
        let body = json!({"name": "Ada", "email": "ada@example.com", "price_types": types, "promo_code": code});
        let (status, bought) = buyer.post(&path, body).await;
        match (status, bought["error"].as_str()) {
            (StatusCode::CREATED, _) if !offer.online => break bought,
            (StatusCode::ACCEPTED, _) if offer.online => {
                assert_eq!(pay_at_stripe(standin, &bought).await, 200, "order {n}");
                break bought;
            }
            // The students' code with no student ticket, or used up: the
            // hold is untouched, and the buyer buys without it.
            (StatusCode::UNPROCESSABLE_ENTITY, Some("promo_code_not_applicable"))
            | (StatusCode::CONFLICT, Some("promo_code_used_up"))
                if code == Some("STU10") =>
            {
                code = None;
            }
            _ => panic!("order {n}: {status} {bought}"),
        }
    };
    let tickets: Vec<Expected> = kinds.iter().map(|kind| offer.ticket(kind, code)).collect();
    let made = Made {
        offer: which,
        order_id: bought["order_id"].clone(),
        tickets,
        code: code.map(str::to_string),
    };
    // The app's receipt is the test's.
    let (status, order) = buyer
        .get(&format!("/api/orders/{}", id_segment(&made.order_id)))
        .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    let sum = |field: fn(&Expected) -> i64| made.tickets.iter().map(field).sum::<i64>();
    let subtotal = sum(|t| t.price + t.discount);
    let (discount, fees, tax) = (sum(|t| t.discount), sum(|t| t.fee), sum(|t| t.tax));
    let total = subtotal - discount + fees + if offer.added_tax() { tax } else { 0 };
    let fields = [
        "subtotal_cents",
        "discount_cents",
        "fees_cents",
        "tax_cents",
        "total_cents",
    ];
    let answered: Vec<&Value> = fields.iter().map(|field| &order[*field]).collect();
    let expected: Vec<Value> = [subtotal, discount, fees, tax, total]
        .map(|v| json!(v))
        .to_vec();
    assert_eq!(
        answered,
        expected.iter().collect::<Vec<_>>(),
        "order {n} ({kinds:?}, code {code:?}): {order}"
    );
    assert_eq!(order["promo_code"], json!(code), "order {n}");
    made
}

#[tokio::test]
async fn a_thousand_random_orders_reconcile_to_the_cent() {
    let (app, standin) = paying_app_with(
        std::time::Duration::from_secs(900),
        std::time::Duration::from_secs(3600),
        |config| {
            config.limits = seatmap::config::AbuseLimits {
                clock: config.limits.clock,
                ..seatmap::config::AbuseLimits::off()
            };
        },
    )
    .await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let offers = set_up(&app, &key).await;
    let made: Vec<Made> = futures::stream::iter(0..ORDERS)
        .map(|n| make_order(&app, &standin, &offers, n, 47_000 + n as u64))
        .buffer_unordered(6)
        .collect()
        .await;
    assert_eq!(made.len(), ORDERS);

    // Refunds: a fifth of the orders lose one ticket, a tenth all of them.
    let mut rng = StdRng::seed_from_u64(4747);
    let mut refunded_expected = vec![0i64; offers.len()];
    let mut refunded_by_type: Vec<BTreeMap<&str, i64>> = vec![BTreeMap::new(); offers.len()];
    for order in &made {
        let offer = &offers[order.offer];
        let roll = rng.random_range(0..10);
        let path = format!(
            "/api/staff/events/{}/orders/{}/refund",
            offer.event.id,
            id_segment(&order.order_id)
        );
        let (body, refunded): (Value, Vec<Expected>) = match roll {
            0 => (json!({}), order.tickets.clone()),
            1 | 2 => {
                // The first ticket issued: tickets are numbered by seat.
                let ticket = app
                    .sql()
                    .await
                    .query_one(
                        "SELECT t.id, t.price_type_id IS NOT NULL, pt.code FROM tickets t
                           JOIN price_types pt ON pt.id = t.price_type_id
                          WHERE t.order_id = $1::text::uuid ORDER BY t.id LIMIT 1",
                        &[&order.order_id.as_str().unwrap()],
                    )
                    .await
                    .unwrap();
                let kind: String = ticket.get(2);
                let expected = offer.ticket(&kind, order.code.as_deref());
                (
                    json!({"ticket_ids": [ticket.get::<_, i64>(0)]}),
                    vec![expected],
                )
            }
            _ => continue,
        };
        let (status, answer) = staff_call(&app, &key, Method::POST, &path, Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        let expected: i64 = refunded.iter().map(|t| offer.refund_of(t)).sum();
        assert_eq!(
            answer["amount_cents"], expected,
            "refund of {}",
            order.order_id
        );
        refunded_expected[order.offer] += expected;
        for ticket in &refunded {
            *refunded_by_type[order.offer]
                .entry(ticket.kind)
                .or_default() += offer.refund_of(ticket);
        }
    }

    // The stand-in charged each online order its total, and paid back
    // what the refunds said, event by event.
    drain_provider_calls(&app).await;
    let client = app.sql().await;
    let unsent = client
        .query_one(
            "SELECT count(*) FROM payment_jobs WHERE kind = 'refund' AND done_at IS NULL",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(unsent, 0, "every refund reached the stand-in");
    let captures = standin.captures();
    let refunds = standin.refunds();
    for (index, offer) in offers.iter().enumerate() {
        let mine: Vec<&Made> = made.iter().filter(|m| m.offer == index).collect();
        let charged: BTreeMap<String, i64> = captures
            .iter()
            .filter_map(|c| Some((c.client_reference_id.clone()?, c.amount)))
            .filter(|(order, _)| mine.iter().any(|m| m.order_id == json!(order)))
            .collect();
        let intents: Vec<&str> = captures
            .iter()
            .filter(|c| {
                c.client_reference_id
                    .as_ref()
                    .is_some_and(|order| mine.iter().any(|m| m.order_id == json!(order)))
            })
            .map(|c| c.payment_intent.as_str())
            .collect();
        let paid_back: i64 = refunds
            .iter()
            .filter(|r| intents.contains(&r.payment_intent.as_str()))
            .map(|r| r.amount)
            .sum();
        if !offer.online {
            assert!(charged.is_empty(), "event {index} takes no payment");
            continue;
        }
        assert_eq!(
            charged.len(),
            mine.len(),
            "event {index}: one charge per order"
        );
        for order in &mine {
            let key = order.order_id.as_str().unwrap();
            let expected: i64 = order
                .tickets
                .iter()
                .map(|t| t.price + t.fee + if offer.added_tax() { t.tax } else { 0 })
                .sum();
            assert_eq!(charged[key], expected, "event {index}, order {key}");
        }
        assert_eq!(
            paid_back, refunded_expected[index],
            "event {index}: refunds"
        );
    }
    drop(client);

    // Every order is the sum of its tickets, in the database itself.
    let client = app.sql().await;
    let mismatched: i64 = client
        .query_one(
            "SELECT count(*) FROM orders o
               JOIN (SELECT order_id, sum(price_cents + discount_cents) AS subtotal,
                            sum(discount_cents) AS discount, sum(fee_cents) AS fees,
                            sum(tax_cents + fee_tax_cents) AS tax
                       FROM tickets GROUP BY order_id) t ON t.order_id = o.id
              WHERE (o.subtotal_cents, o.discount_cents, o.fees_cents, o.tax_cents, o.total_cents)
                    IS DISTINCT FROM (t.subtotal, t.discount, t.fees, t.tax,
                                      t.subtotal - t.discount + t.fees
                                      + CASE WHEN o.tax_included THEN 0 ELSE t.tax END)",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(mismatched, 0, "orders whose totals are not their tickets'");

    // The report says what the test sold and refunded, event by event.
    for (index, offer) in offers.iter().enumerate() {
        let mine: Vec<&Made> = made.iter().filter(|m| m.offer == index).collect();
        let tickets: Vec<&Expected> = mine.iter().flat_map(|m| &m.tickets).collect();
        let sum = |field: fn(&Expected) -> i64| tickets.iter().map(|t| field(t)).sum::<i64>();
        let paid: i64 =
            sum(|t| t.price + t.fee) + if offer.added_tax() { sum(|t| t.tax) } else { 0 };
        let path = format!("/api/staff/events/{}/report/money", offer.event.id);
        let (status, report) = staff_call(&app, &key, Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::OK, "{report}");
        let totals = &report["totals"];
        let expected = json!({
            "code": null,
            "orders": mine.len(),
            "tickets": tickets.len(),
            "gross_cents": sum(|t| t.price + t.discount),
            "discount_cents": sum(|t| t.discount),
            "fees_cents": sum(|t| t.fee),
            "tax_cents": sum(|t| t.tax),
            "refunded_cents": refunded_expected[index],
            "net_cents": paid - refunded_expected[index],
        });
        assert_eq!(totals, &expected, "event {index}");
        // Each type's row is what the test sold of it.
        for (kind, _) in TYPES {
            let sold: Vec<&&Expected> = tickets.iter().filter(|t| t.kind == kind).collect();
            let sum = |field: fn(&Expected) -> i64| sold.iter().map(|t| field(t)).sum::<i64>();
            let paid =
                sum(|t| t.price + t.fee) + if offer.added_tax() { sum(|t| t.tax) } else { 0 };
            let refunded = refunded_by_type[index].get(kind).copied().unwrap_or(0);
            let row = report["by_price_type"]
                .as_array()
                .unwrap()
                .iter()
                .find(|row| row["code"] == kind)
                .cloned()
                .unwrap_or(Value::Null);
            let expected = json!({
                "code": kind,
                "orders": mine.iter().filter(|m| m.tickets.iter().any(|t| t.kind == kind)).count(),
                "tickets": sold.len(),
                "gross_cents": sum(|t| t.price + t.discount),
                "discount_cents": sum(|t| t.discount),
                "fees_cents": sum(|t| t.fee),
                "tax_cents": sum(|t| t.tax),
                "refunded_cents": refunded,
                "net_cents": paid - refunded,
            });
            assert_eq!(row, expected, "event {index}, type {kind}");
        }
        // Each code's row: its orders' tickets.
        for code in ["PCT15", "EUR5", "STU10"] {
            let used: Vec<&&Made> = mine
                .iter()
                .filter(|m| m.code.as_deref() == Some(code))
                .collect();
            let row = report["by_promo_code"]
                .as_array()
                .unwrap()
                .iter()
                .find(|row| row["code"] == code)
                .cloned()
                .unwrap_or(Value::Null);
            let discount: i64 = used
                .iter()
                .flat_map(|m| &m.tickets)
                .map(|t| t.discount)
                .sum();
            assert_eq!(
                row["orders"],
                json!(used.len()),
                "event {index}, code {code}: {row}"
            );
            assert_eq!(
                row["discount_cents"],
                json!(discount),
                "event {index}, code {code}"
            );
        }
    }
    app.no_breaches().await;
}

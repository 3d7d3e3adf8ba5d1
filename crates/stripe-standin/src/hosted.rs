//! The hosted pay page, `/c/pay/{id}`: Pay and Cancel.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::standin::StandIn;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub(crate) async fn pay_page(State(standin): State<StandIn>, Path(id): Path<String>) -> Response {
    let Some(session) = standin.lock().sessions.get(&id).cloned() else {
        return (
            StatusCode::NOT_FOUND,
            Html("<h1>No such session</h1>".to_string()),
        )
            .into_response();
    };
    let total = format!(
        "{} {:.2}",
        session.currency.to_uppercase(),
        session.amount_total as f64 / 100.0
    );
    let lines: String = session
        .lines
        .iter()
        .map(|(name, amount, quantity)| {
            format!(
                "<li>{} × {quantity}: {:.2}</li>",
                escape(name),
                *amount as f64 / 100.0
            )
        })
        .collect();
    let action = if session.status == "open" {
        format!(
            "<form method=\"post\"><button id=\"pay\" type=\"submit\">Pay {total}</button></form>\
             {}",
            session
                .cancel_url
                .as_ref()
                .map(|url| format!(
                    "<p><a id=\"cancel\" href=\"{}\">Cancel and go back</a></p>",
                    escape(url)
                ))
                .unwrap_or_default()
        )
    } else {
        format!(
            "<p id=\"closed\">This checkout session is {}.</p>",
            session.status
        )
    };
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Stripe stand-in: pay</title>\
         <meta name=\"viewport\" content=\"width=device-width\"></head><body>\
         <h1>Stripe stand-in</h1><p>A test double of Stripe Checkout. No money moves.</p>\
         <ul>{lines}</ul><p>Total: <strong>{total}</strong></p>{action}</body></html>"
    ))
    .into_response()
}

/// The hosted page's Pay: completes the session, delivers the signed
/// event, then sends the buyer to `success_url`.
pub(crate) async fn pay(State(standin): State<StandIn>, Path(id): Path<String>) -> Response {
    let (body, header) = match standin.complete(&id) {
        Ok(event) => event,
        Err(why) => {
            return (
                StatusCode::BAD_REQUEST,
                Html(format!("<p>{}</p>", escape(&why))),
            )
                .into_response();
        }
    };
    let delay = standin.lock().webhook_delay;
    let sending = {
        let standin = standin.clone();
        async move {
            tokio::time::sleep(delay).await;
            if let Err(err) = standin.deliver(&body, &header).await {
                eprintln!("stripe-standin: delivering the webhook failed: {err}");
            }
        }
    };
    if delay.is_zero() {
        sending.await;
    } else {
        // The buyer is back before Stripe's event arrives.
        tokio::spawn(sending);
    }
    let success = standin
        .lock()
        .sessions
        .get(&id)
        .map(|s| s.success_url.replace("{CHECKOUT_SESSION_ID}", &id))
        .unwrap_or_default();
    Redirect::to(&success).into_response()
}

//! The two mails of a transfer: the ticket to its new holder, in the
//! language the sender chose for them, and a receipt to whoever sent it,
//! in theirs. Both are written from the transfer's own record, so the new
//! holder's mail carries the code they were given and nothing later.

use askama::Template;

use crate::db;
use crate::domain::ids::TransferId;
use crate::domain::lang::Lang;
use crate::domain::ticket::TicketCode;

#[derive(Template)]
#[template(path = "mail/ticket_transferred.txt")]
struct TicketTransferred {
    to_name: String,
    from_name: String,
    event: String,
    venue: String,
    starts: String,
    place: String,
    kind: String,
    code: String,
    url: String,
    pdf_url: String,
}

#[derive(Template)]
#[template(path = "mail/transfer_receipt.txt")]
struct TransferReceipt {
    from_name: String,
    event: String,
    place: String,
    to_name: String,
    to_email: String,
    at: String,
}

/// The mail's body and subject, or None when there is nothing left to
/// say: the ticket was refunded, or (for the new holder) passed on again
/// since, so the code they were given no longer gets in.
pub(super) async fn transfer_mail(
    client: &impl db::GenericClient,
    transfer_id: TransferId,
    kind: &str,
    public_url: &str,
) -> anyhow::Result<Option<(String, String)>> {
    let transfer = db::transfers::for_mail(client, transfer_id).await?;
    let given = TicketCode::parse(&transfer.to_code)
        .map_err(|_| anyhow::anyhow!("transfer {transfer_id}: its code is not a code"))?;
    let (lang, to_holder) = match kind {
        "ticket_transferred" => (&transfer.to_lang, true),
        _ => (&transfer.from_lang, false),
    };
    let lang = Lang::from_tag(lang).unwrap_or_default();
    crate::i18n::scope(lang, async {
        // Read in the mail's language: the ticket's type label is in it.
        let ticket = match to_holder {
            true => db::tickets::by_code(client, &given).await?,
            false => db::tickets::by_id(client, transfer.ticket_id).await?,
        };
        let Some(ticket) = ticket.filter(|ticket| ticket.voided_at.is_none()) else {
            return Ok(None);
        };
        let locale = ticket.locale.clone().in_lang(lang);
        let mail = match to_holder {
            true => (
                TicketTransferred {
                    to_name: transfer.to_name.clone(),
                    from_name: transfer.from_name.clone(),
                    event: ticket.event_name.clone(),
                    venue: ticket.venue.clone(),
                    starts: locale.time(ticket.starts_at),
                    place: ticket.place(),
                    kind: ticket.kind(),
                    code: given.grouped(),
                    url: format!("{public_url}/tickets/{given}"),
                    pdf_url: format!("{public_url}/tickets/{given}.pdf"),
                }
                .render()?,
                crate::i18n::t2(
                    "mail-transferred-subject",
                    "from",
                    transfer.from_name.as_str(),
                    "event",
                    ticket.event_name.as_str(),
                ),
            ),
            false => (
                TransferReceipt {
                    from_name: transfer.from_name.clone(),
                    event: ticket.event_name.clone(),
                    place: ticket.place(),
                    to_name: transfer.to_name.clone(),
                    to_email: transfer.to_email.clone(),
                    at: locale.time(transfer.at),
                }
                .render()?,
                crate::i18n::t1(
                    "mail-transfer-receipt-subject",
                    "event",
                    ticket.event_name.as_str(),
                ),
            ),
        };
        Ok(Some(mail))
    })
    .await
}

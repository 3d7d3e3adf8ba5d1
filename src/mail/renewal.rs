//! A subscriber's renewal offer: their places in the new season, until
//! when they are held, and the signed link to renew or give them up. Said
//! in the language of the order being renewed, written when it is sent
//! (so a renewal already bought or given up says nothing).

use crate::db;
use crate::domain::ids::HoldId;
use crate::domain::signed_link::OrderLinks;

/// The body and subject, or None when the renewal is no longer open.
pub(super) async fn renewal_mail(
    client: &impl db::GenericClient,
    payload: Option<&serde_json::Value>,
    links: &OrderLinks,
) -> anyhow::Result<Option<(String, String)>> {
    let hold_id: HoldId = payload
        .and_then(|p| p.get("season_hold_id"))
        .and_then(|id| serde_json::from_value(id.clone()).ok())
        .ok_or_else(|| anyhow::anyhow!("a renewal mail without its hold"))?;
    let offer = db::seasons::renewal_for_link(client, hold_id).await?;
    if !offer.live {
        return Ok(None);
    }
    let season = db::seasons::find(client, offer.hold.season_id).await?;
    let seats = db::seasons::map(client, season.id, &offer.hold.nights, Some(hold_id)).await?;
    let locale = crate::i18n::locale(season.currency, &season.time_zone);
    let until = locale.time(offer.hold.expires_at);
    let places: Vec<String> = seats
        .iter()
        .filter(|seat| seat.state == crate::domain::seat::SeatState::Mine)
        .map(|seat| format!("- {}", crate::words::seat_name(seat)))
        .collect();
    let nights: Vec<String> = season
        .events
        .iter()
        .map(|event| format!("- {}, {}", event.name, locale.time(event.starts_at)))
        .collect();
    // The link works until the places lapse, and a day past, to say so.
    let link = links.renewal_url(hold_id, offer.hold.expires_at + time::Duration::days(1));
    let body = format!(
        "{}\n\n{}\n\n{}\n\n{}\n\n{link}\n",
        crate::i18n::t1("renewal-for", "name", offer.buyer_name.as_str()),
        crate::i18n::tw(
            "renewal-mail",
            &[
                ("season", season.name.as_str().into()),
                ("until", until.as_str().into()),
            ],
        ),
        places.join("\n"),
        nights.join("\n"),
    );
    Ok(Some((
        body,
        crate::i18n::t1("renewal-mail-subject", "season", season.name.as_str()),
    )))
}

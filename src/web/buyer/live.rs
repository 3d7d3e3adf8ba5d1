//! Live seat maps over server-sent events, rendered with htmx's SSE
//! extension. Each open page gets a task that first sends what changed
//! since the page's cursor, then every change to its event as it happens:
//! out-of-band seat buttons rendered for that viewer, and the hold panel
//! when the viewer's own seats changed (say, the box office released them).

use std::collections::HashSet;
use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;

use crate::db::events::Tier;
use crate::db::ga::GaAreaView;
use crate::db::live::SeatChanges;
use crate::db::snapshot::Snapshot;
use crate::db::{self, GenericClient};
use crate::domain::ids::SectionId;
use crate::domain::ids::{BuyerId, EventId, SeatId};
use crate::domain::seat::Seat;
use crate::domain::seat::SeatState;
use crate::error::{AppError, AppResult, Limit, Missing};
use crate::server::{Admission, Full};
use crate::web::auth::Viewer;
use crate::web::buyer::event::hold_panel;
use crate::web::buyer::panel::GaBlock;
use crate::web::buyer::panel::HoldPanel;
use crate::web::buyer::panel::ga_blocks;
use crate::web::extract::{ClientIp, IdPath, QueryInput};
use crate::web::render::render;
use crate::web::seat_view::SeatView;
use crate::web::seat_view::tiers_currency;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/events/{event_id}/live", get(live))
        .route("/events/{event_id}/seat-fragments", get(seat_fragments))
}

/// The seat as this viewer sees it: a seat held by their own hold is theirs.
fn for_viewer(seat: &Seat, viewer: Option<BuyerId>) -> Seat {
    let mut seat = seat.clone();
    if seat.state == SeatState::Held && seat.holder.is_some() && seat.holder == viewer {
        seat.state = SeatState::Mine;
    }
    seat
}

#[derive(Template)]
#[template(path = "events/_live_update.html")]
struct LiveUpdate {
    seats: Vec<SeatView>,
    panel: Option<HoldPanel>,
    oob: bool,
}

#[derive(Deserialize)]
struct SinceQuery {
    since: Option<String>,
    /// The page shows only this section's seats (a big venue's section).
    section: Option<SectionId>,
    /// "none": the page shows no seats (a big venue's overview).
    seats: Option<String>,
}

async fn live(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    ip: ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    QueryInput(query): QueryInput<SinceQuery>,
) -> AppResult<impl axum::response::IntoResponse> {
    // Each stream holds a task and a socket for as long as the page is
    // open: capped per address (429) and in total (503).
    let admission = state.live_streams.admit(ip.0).map_err(|full| match full {
        Full::Address => AppError::TooManyRequests {
            limit: Limit::LiveStreams,
            retry_after_secs: 10,
        },
        Full::Total => AppError::Unavailable(anyhow::anyhow!(
            "the live-stream cap ({}) is reached",
            state.config.live.max_streams
        )),
    })?;
    // Subscribe before reading anything, so nothing falls between.
    let changes = state.live.subscribe();
    let mut resyncs = state.live.resyncs();
    resyncs.mark_unchanged();
    let client = state.pool.get().await?;
    let published = db::events::published(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    super::draft::draft_preview(&state, &viewer.session, published).await?;
    // A browser reconnecting on its own sends Last-Event-ID; htmx reopening
    // the stream sends the `since` the page last recorded.
    let since = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(Snapshot::parse)
        .or_else(|| query.since.as_deref().and_then(Snapshot::parse));
    let since = match since {
        Some(since) => since,
        None => db::snapshot::snapshot_now(&client).await?,
    };
    let mine = match viewer.buyer_id {
        Some(buyer) => mine_now(&client, event_id, buyer).await?,
        None => HashSet::new(),
    };
    let page = PageFeed {
        _admission: admission,
        state: state.clone(),
        event_id,
        viewer: viewer.buyer_id,
        csrf: viewer.csrf.value(),
        tiers: db::events::tiers(&client, event_id).await?,
        cursor: since,
        mine,
        shows: match (query.section, query.seats.as_deref()) {
            (Some(section), _) => Shows::Section(section),
            (None, Some("none")) => Shows::NoSeats,
            _ => Shows::All,
        },
    };
    drop(client);
    let (sender, receiver) = mpsc::channel(16);
    // The feed's own task renders seat names in the page's language.
    tokio::spawn(crate::i18n::scope(
        crate::i18n::current(),
        page.run(changes, resyncs, sender),
    ));
    Ok(Sse::new(ReceiverStream::new(receiver))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

async fn mine_now(
    client: &impl GenericClient,
    event_id: EventId,
    buyer: BuyerId,
) -> AppResult<HashSet<SeatId>> {
    Ok(
        match db::holds::live_for_buyer(client, event_id, buyer).await? {
            Some(hold) => db::seats::held_by(client, hold.id)
                .await?
                .into_iter()
                .collect(),
            None => HashSet::new(),
        },
    )
}

/// One open page's feed.
struct PageFeed {
    /// Its place under the stream caps, given back when the page goes.
    _admission: Admission,
    state: AppState,
    event_id: EventId,
    viewer: Option<BuyerId>,
    csrf: String,
    tiers: Vec<Tier>,
    /// Every change committed before this snapshot has been sent.
    cursor: Snapshot,
    /// The seats this page shows as the viewer's, to notice when that changes.
    mine: HashSet<SeatId>,
    /// Which seats the page draws: only those are sent (a section of the
    /// arena needs 1 change in 38), though every change still moves the
    /// cursor and updates the viewer's own hold panel.
    shows: Shows,
}

#[derive(Clone, Copy)]
enum Shows {
    All,
    Section(SectionId),
    NoSeats,
}

impl Shows {
    fn includes(self, seat: &Seat) -> bool {
        match self {
            Shows::All => true,
            Shows::Section(section) => seat.section_id == section,
            Shows::NoSeats => false,
        }
    }
}

type Sender = mpsc::Sender<Result<Event, Infallible>>;

impl PageFeed {
    async fn run(
        mut self,
        mut changes: broadcast::Receiver<std::sync::Arc<SeatChanges>>,
        mut resyncs: watch::Receiver<u64>,
        sender: Sender,
    ) {
        if let Err(err) = self.catch_up(&sender).await {
            tracing::warn!(error = %err.for_log(), "live page catch-up failed");
        }
        loop {
            let change = tokio::select! {
                _ = sender.closed() => return,
                _ = self.state.shutting_down() => return,
                // The feed (re)started after this page opened.
                Ok(()) = resyncs.changed() => {
                    if let Err(err) = self.catch_up(&sender).await {
                        tracing::warn!(error = %err.for_log(), "live page catch-up failed");
                    }
                    continue;
                }
                change = changes.recv() => change,
            };
            let outcome = match change {
                Ok(change) if change.event_id == self.event_id => {
                    self.send_change(&change, &sender).await
                }
                Ok(_) => Ok(()),
                // Fell behind the broadcast: the database knows what we missed.
                Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up(&sender).await,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            if let Err(err) = outcome {
                tracing::warn!(error = %err.for_log(), "live page update failed");
            }
            if sender.is_closed() {
                return;
            }
        }
    }

    async fn send_change(&mut self, change: &SeatChanges, sender: &Sender) -> AppResult<()> {
        if let Some(areas) = &change.ga_areas {
            self.send_ga(areas, sender).await?;
        }
        self.cursor = change.through.clone();
        self.send(&change.seats, sender).await
    }

    /// Reads what this page missed. Only a page that connects, or that
    /// fell behind the broadcast, does this: every change is read once per
    /// event by the feed (see `db::live`), not once per page.
    async fn catch_up(&mut self, sender: &Sender) -> AppResult<()> {
        self.state.live.count_page_catch_up();
        let client = self.state.pool.get().await?;
        let (seats, next) = db::seats::changed_since(&client, self.event_id, &self.cursor).await?;
        drop(client);
        self.cursor = next;
        self.send(&seats, sender).await
    }

    async fn send(&mut self, seats: &[Seat], sender: &Sender) -> AppResult<()> {
        if seats.is_empty() {
            return Ok(());
        }
        let seats: Vec<Seat> = seats.iter().map(|s| for_viewer(s, self.viewer)).collect();
        let mut mine_changed = false;
        for seat in &seats {
            let is_mine = seat.state == SeatState::Mine;
            if is_mine != self.mine.contains(&seat.id) {
                mine_changed = true;
                if is_mine {
                    self.mine.insert(seat.id);
                } else {
                    self.mine.remove(&seat.id);
                }
            }
        }
        let panel = match (mine_changed, self.viewer) {
            (true, Some(buyer)) => {
                let client = self.state.pool.get().await?;
                let mut panel = hold_panel(
                    &self.state,
                    &client,
                    self.event_id,
                    buyer,
                    self.csrf.clone(),
                )
                .await?;
                panel.oob = true;
                Some(panel)
            }
            _ => None,
        };
        let update = LiveUpdate {
            seats: seats
                .iter()
                .filter(|s| self.shows.includes(s))
                .map(|s| SeatView::new(s, &self.tiers))
                .collect(),
            panel,
            oob: true,
        };
        let html = render(&update)?.0;
        let event = Event::default()
            .event("update")
            .id(self.cursor.as_str())
            .data(html);
        // A closed page is not an error; the run loop notices and stops.
        let _ = sender.send(Ok(event)).await;
        Ok(())
    }
}

#[derive(Template)]
#[template(path = "events/_ga_left.html")]
struct GaLeftUpdate {
    ga: Vec<GaBlock>,
}

impl PageFeed {
    /// What is left in each GA area, as out-of-band text. No event id: the
    /// seat cursor is unchanged.
    async fn send_ga(&self, areas: &[GaAreaView], sender: &Sender) -> AppResult<()> {
        let update = GaLeftUpdate {
            ga: ga_blocks(
                areas,
                self.state.config.max_seats_per_hold,
                tiers_currency(&self.tiers),
            ),
        };
        let html = render(&update)?.0;
        let _ = sender
            .send(Ok(Event::default().event("update").data(html)))
            .await;
        Ok(())
    }
}

#[derive(Deserialize)]
struct FragmentQuery {
    #[serde(default)]
    ids: String,
}

/// The given seats as they are now, as out-of-band buttons: a page asks at
/// the moment a hold it shows runs out (expiry is lazy, so nothing else
/// would tell it).
async fn seat_fragments(
    State(state): State<AppState>,
    // First: whatever the other extractors read (the session) is a read too.
    _read: crate::web::reads::ReadPermit,
    IdPath(event_id): IdPath<EventId>,
    viewer: Viewer,
    QueryInput(query): QueryInput<FragmentQuery>,
) -> AppResult<axum::response::Html<String>> {
    let ids: Vec<SeatId> = query
        .ids
        .split(',')
        .filter_map(|id| id.trim().parse().ok())
        .take(2000)
        .collect();
    let client = state.pool.get().await?;
    let published = db::events::published(&client, event_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    super::draft::draft_preview(&state, &viewer.session, published).await?;
    let tiers = db::events::tiers(&client, event_id).await?;
    let seats = db::seats::by_ids(&client, event_id, &ids, None).await?;
    render(&LiveUpdate {
        seats: seats
            .iter()
            .map(|s| SeatView::new(&for_viewer(s, viewer.buyer_id), &tiers))
            .collect(),
        panel: None,
        oob: true,
    })
}

//! Round-trip budgets for the hot paths, counted on the wire (see wire.rs:
//! the request pool only; the background workers have a pool of their own)
//! with production's abuse limits on, so their counters count too. Each
//! action runs once to warm up (open the hold, prepare statements on the
//! pool's one connection) and is counted the second time. A change that
//! adds a trip to a pick, a refused pick or a purchase fails here.

use reqwest::StatusCode;
use seatmap::config::Config;

use crate::pages::csrf_from;
use crate::support::{Api, TestDb, create_event_on, serve_instance};
use crate::wire::WireCounter;

const API_PICK: u64 = 6;
const HTMX_PICK: u64 = 8;
/// A pick of a seat someone else has: what most of a herd gets.
const API_TAKEN: u64 = 6;
const HTMX_TAKEN: u64 = 8;
const API_PURCHASE: u64 = 7;

struct Counted {
    buyer: Api,
    counter: WireCounter,
    event_id: i64,
    seat_ids: Vec<i64>,
    csrf: String,
    _db: TestDb,
}

async fn counted_app() -> Counted {
    let db = TestDb::create().await;
    let counter = WireCounter::start(db.pg_config()).await;
    let conninfo = counter.conninfo(&db.pg_config());
    let mut config = Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(conninfo.clone()),
        "SEATMAP_ADDR" => Some("127.0.0.1:0".into()),
        _ => None,
    })
    .unwrap();
    // One connection, so every statement is prepared once and stays so.
    config.db.pool_size = 1;
    config.secure_cookies = false;
    let (base, state) = serve_instance(&config).await;
    let event = create_event_on(&state.pool, 2, 10).await;
    let buyer = Api::new(&base);
    let csrf = csrf_from(&buyer, &format!("/events/{}", event.id)).await;
    Counted {
        buyer,
        counter,
        event_id: event.id,
        seat_ids: event.seat_ids,
        csrf,
        _db: db,
    }
}

impl Counted {
    async fn trips<F: std::future::Future<Output = StatusCode>>(
        &self,
        expected: StatusCode,
        action: F,
    ) -> u64 {
        let before = self.counter.round_trips();
        let status = action.await;
        assert_eq!(status, expected);
        let trips = self.counter.round_trips() - before;
        for (n, trip) in self.counter.trips_since(before).iter().enumerate() {
            eprintln!("  {}. {trip}", n + 1);
        }
        eprintln!("  = {trips}");
        trips
    }

    async fn api_pick(&self, seat: i64) -> StatusCode {
        self.buyer.hold(self.event_id, &[seat]).await.0
    }

    async fn htmx_pick(&self, seat: i64) -> StatusCode {
        self.buyer
            .http
            .post(format!(
                "{}/events/{}/seats",
                self.buyer.base, self.event_id
            ))
            .header("HX-Request", "true")
            .form(&[("hold", seat.to_string()), ("csrf", self.csrf.clone())])
            .send()
            .await
            .unwrap()
            .status()
    }
}

#[tokio::test]
async fn picks_and_purchases_stay_within_their_round_trip_budgets() {
    let app = counted_app().await;
    let s = &app.seat_ids;
    let rival = Api::new(&app.buyer.base);
    // The rival holds the seats the buyer will find taken.
    assert_eq!(
        rival.hold(app.event_id, &s[10..14]).await.0,
        StatusCode::CREATED
    );

    // Warm up: the session, the hold, and every statement each path uses.
    app.trips(StatusCode::CREATED, app.api_pick(s[0])).await;
    app.trips(StatusCode::OK, app.htmx_pick(s[1])).await;
    app.trips(StatusCode::CONFLICT, app.api_pick(s[10])).await;
    app.trips(StatusCode::OK, app.htmx_pick(s[11])).await;

    let api_pick = app.trips(StatusCode::CREATED, app.api_pick(s[2])).await;
    let htmx_pick = app.trips(StatusCode::OK, app.htmx_pick(s[3])).await;
    let api_taken = app.trips(StatusCode::CONFLICT, app.api_pick(s[12])).await;
    let htmx_taken = app.trips(StatusCode::OK, app.htmx_pick(s[13])).await;

    let (_, hold) = app
        .buyer
        .get(&format!("/api/events/{}/seats", app.event_id))
        .await;
    let hold_id = hold["hold"]["hold_id"].clone();
    let purchase = app
        .trips(StatusCode::CREATED, async {
            app.buyer
                .purchase(&hold_id, "Ada Lovelace", "ada@example.com")
                .await
                .0
        })
        .await;
    // The purchase is counted cold (a hold is bought once); a second
    // buyer's purchase is the warm one.
    let second = Api::new(&app.buyer.base);
    assert_eq!(
        second.hold(app.event_id, &[s[5]]).await.0,
        StatusCode::CREATED
    );
    let (_, seats) = second
        .get(&format!("/api/events/{}/seats", app.event_id))
        .await;
    let second_hold = seats["hold"]["hold_id"].clone();
    let warm_purchase = app
        .trips(StatusCode::CREATED, async {
            second
                .purchase(&second_hold, "Grace Hopper", "grace@example.com")
                .await
                .0
        })
        .await;
    eprintln!(
        "round trips: API pick {api_pick}, htmx pick {htmx_pick}, API taken {api_taken}, \
         htmx taken {htmx_taken}, purchase {warm_purchase} (first, cold: {purchase})"
    );
    assert!(api_pick <= API_PICK, "API pick: {api_pick} round trips");
    assert!(htmx_pick <= HTMX_PICK, "htmx pick: {htmx_pick} round trips");
    assert!(api_taken <= API_TAKEN, "API taken: {api_taken} round trips");
    assert!(
        htmx_taken <= HTMX_TAKEN,
        "htmx taken: {htmx_taken} round trips"
    );
    assert!(
        warm_purchase <= API_PURCHASE,
        "purchase: {warm_purchase} round trips"
    );
}

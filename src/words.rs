//! The words for people that more than one place says: every refusal's
//! message (and whether a page shows it as a notice), times, venue sizes
//! and seats described, for pages, the JSON API and the command line
//! alike. Nothing here knows HTTP, and nothing that uses it imports `web`.
//! A page's own text is in its template, and a one-off success notice
//! ("Sales closed.") beside the handler that gives it.

use crate::i18n::{Arg, t, t1, t2, tw};
use time::OffsetDateTime;
use time::macros::format_description;

use crate::domain::api_key::CUSTOMER_HEADER;
use crate::domain::locale::EventLocale;
use crate::domain::money::Currency;
use crate::domain::refusal::{Counted, Filters, TimeField};
use crate::domain::sale::SaleStatus;
use crate::domain::seat::Seat;
use crate::domain::text::{quoted, shortened};
use crate::domain::venue::VenueLayout;
use crate::domain::webhook::TargetProblem;
use crate::error::{AppError, Conflict, Denied, Invalid, Limit, Malformed, Missing};

/// Said when the database refuses a value the rules let through.
pub const REFUSED_VALUE: &str = "A value in this request is not acceptable: too long, out of range, \
     or containing a control character.";

pub const GENERIC_500: &str =
    "Something went wrong on our side. Nothing you held or bought was lost.";
pub const GENERIC_503: &str =
    "The box office is very busy right now. Please try again in a moment.";
/// A 503 because the database went away (a failover under way).
pub const DATABASE_503: &str = "The box office can't reach its database right now (a switch-over takes seconds), and nothing was left half done. Please try again in a few seconds: sent with the same Idempotency-Key, a retry is never done twice.";

/// What a buyer, a member of staff or an API client is told about a
/// refusal: every refusal's message is here. Failures of our own get the
/// generic texts.
pub fn message(error: &AppError) -> String {
    match error {
        AppError::BadRequest(malformed) => malformed_text(malformed),
        AppError::Forbidden(denied) => denied_text(denied),
        AppError::NotFound(missing) => missing_text(missing),
        AppError::SeatsUnavailable { .. } | AppError::SeasonPlacesTaken { .. } => {
            t("error-seats-unavailable")
        }
        AppError::HoldLimit { max } => t1("error-hold-limit", "max", *max),
        AppError::Invalid(invalid) => invalid_text(invalid),
        AppError::Conflict(conflict) => conflict_text(conflict),
        AppError::HoldExpired => t("error-hold-expired"),
        AppError::StaleLayout { latest } => format!(
            "Someone saved this venue (version {latest}) since you opened it. Nothing was saved: \
             your work is still here to reapply."
        ),
        AppError::PreconditionRequired => {
            "Say which version you are replacing: send If-Match with the ETag you read.".into()
        }
        AppError::InvalidLayout(problems) => match problems.as_slice() {
            [one] => format!("The layout has a problem: {one}."),
            many => format!("The layout has {} problems; the list says where.", many.len()),
        },
        AppError::Unauthorized => "Sign in as box-office staff to do this.".into(),
        AppError::InvalidApiKey => {
            "This API key is not valid: unknown, revoked, or not sent as \"Authorization: Bearer <key>\"."
                .into()
        }
        AppError::TooManyRequests { limit, .. } => limit_text(*limit),
        AppError::RequestTimeout => t("error-timeout"),
        AppError::Database(_)
        | AppError::Pool(_)
        | AppError::Unavailable(_)
        | AppError::Internal(_) => {
            if error.is_transient() {
                GENERIC_503.into()
            } else {
                GENERIC_500.into()
            }
        }
    }
}

/// The one decision of how a page shows an error: a refusal the person
/// can act on (not found, taken, over a limit, invalid, not now) becomes a
/// notice beside what they were doing, worded by [`message`]; anything
/// else is returned, to become an error page.
pub fn refusal_notice(error: AppError) -> Result<String, AppError> {
    match error {
        AppError::NotFound(_)
        | AppError::SeatsUnavailable { .. }
        | AppError::SeasonPlacesTaken { .. }
        | AppError::HoldLimit { .. }
        | AppError::Invalid(_)
        | AppError::Conflict(_)
        | AppError::HoldExpired
        | AppError::TooManyRequests { .. } => Ok(message(&error)),
        other => Err(other),
    }
}

fn missing_text(missing: &Missing) -> String {
    fn joined(ids: &[impl ToString]) -> String {
        ids.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
    match missing {
        Missing::Event => t("error-no-event"),
        Missing::Hold => t("error-no-hold"),
        Missing::Venue => "Venue not found.".into(),
        Missing::VenueVersion => "The venue has no such version.".into(),
        Missing::Section => t("error-no-section"),
        Missing::Order => t("error-no-order"),
        Missing::Page => t("error-no-page"),
        Missing::File => "File not found.".into(),
        Missing::StaffAccount => "No such staff account.".into(),
        Missing::WaitlistEntry => t("error-no-waitlist-entry"),
        Missing::Queue => "This event has no waiting room on.".into(),
        Missing::SeatInHold => t("error-no-seat-in-hold"),
        Missing::TicketInHold => "Ticket in this hold not found.".into(),
        Missing::SeatInEvent => t("error-no-seat-in-event"),
        Missing::Ticket => t("error-no-ticket"),
        Missing::PromoCode => "This event has no such promo code.".into(),
        Missing::Wallet => "Wallet passes are not set up on this site.".into(),
        Missing::Season => "Season not found.".into(),
        Missing::Seats(ids) => t1("error-no-seats", "ids", &joined(ids)),
        Missing::Areas(ids) => t1("error-no-areas", "ids", &joined(ids)),
    }
}

/// Other sections' free wheelchair spaces, offered instead.
fn spaces_elsewhere(elsewhere: &[crate::domain::refusal::SectionSpaces]) -> String {
    if elsewhere.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = elsewhere
        .iter()
        .map(|s| format!("{} ({})", s.section, s.free))
        .collect();
    format!(
        " {}",
        t1("error-spaces-elsewhere", "sections", &listed.join(", "))
    )
}

fn invalid_text(invalid: &Invalid) -> String {
    match invalid {
        Invalid::NoSeats => "Choose at least one seat.".into(),
        Invalid::DuplicateSeats => "The same seat appears more than once in the request.".into(),
        Invalid::NoArea => "Choose an area.".into(),
        Invalid::WheelchairUsers { count } => t1("error-wheelchair-users", "count", *count),
        Invalid::AccessibleSeating => "Choose when wheelchair spaces and companion seats join \
             general sale: auto (a time before the start, 0 to 8760 hours, or never), \
             released or held."
            .into(),
        Invalid::CountOutOfRange { max, of } => {
            let things = match of {
                Counted::Seats => "seats",
                Counted::Tickets => "tickets",
            };
            t2("error-count", "max", *max, "things", things)
        }
        Invalid::MoreTicketsThanAnyArea => "That is more tickets than any area holds.".into(),
        Invalid::BuyerName { max_chars } => {
            t1("error-buyer-name", "max", *max_chars)
        }
        Invalid::EventName => {
            "Give the event a name of up to 200 characters, with no control or invisible characters.".into()
        }
        Invalid::Email => t("error-email"),
        Invalid::StartsInPast => "The event must start in the future.".into(),
        Invalid::OnSaleAfterStart => "Sales must open before the event starts.".into(),
        Invalid::TransfersAfterStart => "Passing tickets on closes by the event's start at the \
             latest: give a time before it, or none (until it starts)."
            .into(),
        Invalid::Time { field, text } => {
            let field = time_field(*field);
            format!("The {field} {text:?} is not a date and time like 2026-12-01T19:30.")
        }
        Invalid::LocalTimeSkipped {
            field,
            text,
            zone,
            offsets: (before, after),
        } => format!(
            "The {} {} doesn't exist in {zone}: the clocks go forward then (from {before} to {after}). Choose another time.",
            time_field(*field),
            text.replace('T', " ")
        ),
        Invalid::LocalTimeTwice {
            field,
            text,
            zone,
            offsets: (first, second),
        } => format!(
            "The {} {} happens twice in {zone}: the clocks go back then (first at {first}, then at {second}). Choose another time, or give it with its offset through the API.",
            time_field(*field),
            text.replace('T', " ")
        ),
        Invalid::BlockPurpose => {
            "Say what the seats are for in up to 40 characters of plain text, like house, press or sponsor.".into()
        }
        Invalid::UnknownSection(name) => format!("This event has no section {}.", quoted(name)),
        Invalid::UnknownTier(code) => format!("This event has no price tier {}.", quoted(code)),
        Invalid::PriceType(rule) => format!("These price types can't be saved: {rule}."),
        Invalid::UnknownPriceType(code) => {
            format!("This event doesn't sell a price type {}.", quoted(code))
        }
        Invalid::PromoCode(rule) => format!("This promo code can't be made: {rule}."),
        Invalid::Charges(rule) => format!("These fees and tax can't be set: {rule}."),
        Invalid::PromoCodeUnknown => "That promo code isn't one of this event's. Check its spelling; your seats are still held.".into(),
        Invalid::PromoCodeExpired => "That promo code isn't valid now. Your seats are still held: buy without it, or with another.".into(),
        Invalid::PromoCodeNotApplicable => "That promo code doesn't apply to any of these tickets. Your seats are still held.".into(),
        Invalid::PriceTypeRule(rule) => format!("That choice of ticket types can't be sold: {rule}."),
        Invalid::VenueHasNoTier(code) => format!("The venue has no tier {code:?}."),
        Invalid::MissingPrice { tier } => format!("Give a price for the {tier} tier."),
        Invalid::Price { tier, text } => {
            let most = crate::domain::money::MAX_PRICE_CENTS;
            format!(
                "{text:?} is not a price for {tier}: use an amount like 45 or 45.50, \
                 at most {} ({} in minor units).",
                crate::domain::money::group_thousands(most as u64 / 100),
                crate::domain::money::group_thousands(most as u64)
            )
        }
        Invalid::EmptyHold => "There are no seats or tickets in this hold to buy.".into(),
        Invalid::SeasonOverDrafts => "A season goes on sale as it is made, and buyers can't \
             see a draft: publish its events first."
            .into(),
        Invalid::SeasonEventsDiffer => "A season's events must share a layout: the same venue \
             version, or copies of one event. Move them to one version, or make the \
             performances with \"Add performances\"."
            .into(),
        Invalid::Season => "A season has a name (1 to 200 characters) and 2 to 100 events, each \
             named once; a partial season lets buyers choose 1 to all of them."
            .into(),
        Invalid::SeasonChoice { choose } => {
            format!("Choose exactly {choose} of this season's events, each once.")
        }
        Invalid::Copies => "Give 1 to 100 start times, each in the future and each once.".into(),
        Invalid::CopiesTooLarge { most, seats } => format!(
            "That is {seats} seats to copy in one go, and one request copies at most {most}: \
             ask for fewer start times at a time."
        ),
        Invalid::SaleChangedSinceReview => {
            "Nothing was sold: the seats, places or payment changed after the review. \
             Check the sale again, then sell."
                .into()
        }
        Invalid::NotConfirmed => {
            "Nothing changed: tick the box that confirms it, since this changes the whole event."
                .into()
        }
        Invalid::Search { max_chars } => format!(
            "Search by a name, an email or an order number: up to {max_chars} characters, \
             with no control characters."
        ),
        Invalid::TicketCode => {
            "A ticket code is 32 letters and digits, as printed under the QR code.".into()
        }
        Invalid::Tender => {
            "Choose how it was paid: cash, card, or comp (a comp needs its reason).".into()
        }
        Invalid::Payment => "Choose how buyers pay: none, online or box_office; a box-office \
             deadline is 1 minute to 30 days after reserving."
            .into(),
        Invalid::Gate => "Name the gate in 1 to 40 plain characters.".into(),
        Invalid::Language => t("error-language"),
        Invalid::QueueSettings(field) => format!(
            "The queue's {field} is out of range: opens_at is an RFC 3339 time within a year of now, admit_per_minute 1 to 1000000 or \"auto\", window_minutes 1 to 1440."
        ),
        Invalid::QueueOpensLater => "The queue has opened with people in line, so its opening \
             can't move later: those who came after it would fall behind later arrivals. \
             Move it earlier, or turn the queue off."
            .into(),
        Invalid::ProofOfWork => {
            "The proof of work does not solve a challenge set for this queue (or it ran out): ask for a new one.".into()
        }
        Invalid::ProofOfWorkReused => {
            "That proof of work has been used already: ask for a new challenge.".into()
        }
        Invalid::ProofOfWorkNeeded { bits } => t1("error-proof-of-work-needed", "bits", bits),
        Invalid::IdempotencyKey => {
            "An Idempotency-Key is 1 to 255 visible ASCII characters (a UUID, say).".into()
        }
        Invalid::IdempotencyKeyReused => {
            "That Idempotency-Key was used with another request (its path or body differ): use a new key for a new request.".into()
        }
        Invalid::TransfersPerTicket => {
            "A ticket may be passed on 0 to 20 times: give a whole number in that range.".into()
        }
        Invalid::NothingToSell => "Choose at least one seat or general-admission place.".into(),
        Invalid::DuplicateAreas => "Name each general-admission area once.".into(),
        Invalid::SeatName(text) => format!(
            "{} names no seat of this event. Write row and seat (\"C12\"), \
             with the section first if rows repeat (\"Stalls C12\").",
            quoted(text)
        ),
        Invalid::AmbiguousSeatName { name, sections } => {
            let first = sections.first().map(String::as_str).unwrap_or("Stalls");
            format!(
                "{} is in {} ({}): write the section first, like \"{first} {}\".",
                quoted(name),
                count(sections.len(), "section", "sections"),
                sections.join(", "),
                shortened(name)
            )
        }
        Invalid::NoFile => "Choose a layout file (.json or .csv) to import.".into(),
        Invalid::Currency(code) => format!(
            "{:?} is not a currency: use its three-letter ISO 4217 code, like EUR, USD or GBP.",
            shortened(code)
        ),
        Invalid::WebhookUrl(problem) => match problem {
            TargetProblem::NotAUrl => "Give the endpoint's full URL, starting https:// (or http://), \
                 of up to 2,000 characters."
                .into(),
            TargetProblem::Credentials => "Put no user name or password in the URL: every delivery \
                 is signed with the endpoint's secret instead."
                .into(),
            TargetProblem::NotPublic => "That address is on a private or local network, which \
                 webhooks may not reach. An operator can allow it with SEATMAP_WEBHOOK_ALLOW_NETWORKS."
                .into(),
            TargetProblem::Unresolved => "That host name can't be found. Check the URL.".into(),
        },
        Invalid::WebhookEvents => "Tick at least one event.".into(),
        Invalid::StaffName => "A staff name is 1 to 64 letters, digits or . _ @ -".into(),
        Invalid::PasswordLength => format!(
            "A password is {} to 1024 characters.",
            crate::domain::password::MIN_PASSWORD_CHARS
        ),
        Invalid::Role => "Choose a role: door, box office, manager or admin.".into(),
        Invalid::MaxPrice => "max_price_cents is from 0 to 100000000.".into(),
        Invalid::DoorBatch(problem) => format!("This batch of door scans can't be read: {problem}."),
        Invalid::BestMode => {
            "Best available's mode is \"replace\" (the default) or \"add\".".into()
        }
    }
}

fn conflict_text(conflict: &Conflict) -> String {
    let filter_words = |filters: &Filters| {
        let mut words = String::new();
        if let Some(section) = &filters.section {
            words.push(' ');
            words.push_str(&t1("where-section", "section", section));
        }
        if let Some(tier) = &filters.tier {
            words.push(' ');
            words.push_str(&t1("where-tier", "tier", tier));
        }
        words
    };
    match conflict {
        Conflict::AlreadyPurchased => t("error-already-purchased"),
        Conflict::IdempotencyKeyInUse => {
            "The first request with this Idempotency-Key is still running: try again in a moment for its answer.".into()
        }
        Conflict::HoldReleased => t("error-hold-released"),
        Conflict::AlreadyExtended => t("error-already-extended"),
        Conflict::TooEarlyToExtend { window_secs } => {
            t1("error-too-early-to-extend", "minutes", window_secs / 60)
        }
        Conflict::HoldStillLive => "This hold hasn't expired; there is nothing to revive.".into(),
        Conflict::NothingToRevive => {
            "All of this hold's seats have been taken or released since.".into()
        }
        Conflict::AlreadyClosed => "Sales for this event are already closed.".into(),
        Conflict::AlreadyCancelled => "This event is already cancelled.".into(),
        Conflict::VenueExists(name) => {
            format!("A venue named {name:?} already exists. Rename the layout to import it again.")
        }
        Conflict::EventHasSales {
            sold_seats,
            held_seats,
            orders,
        } => format!(
            "This event can't go back to a draft: buyers have {} sold, {} held and {} \
             made (refunded ones included).",
            count(*sold_seats, "seat", "seats"),
            count(*held_seats, "seat", "seats"),
            count(*orders, "order", "orders"),
        ),
        Conflict::PlacesInUse(places) => places_in_use(places),
        Conflict::PriceTypeSoldOut { price_type } => format!(
            "No {} tickets are left. Your seats are still held: choose another ticket type.",
            quoted(price_type)
        ),
        Conflict::PriceTypeInUse { price_type } => format!(
            "The price type {} has sold tickets, so it can't be removed: close it instead \
             (\"closed\": true).",
            quoted(price_type)
        ),
        Conflict::PromoCodeUsedUp => "That promo code has been used as often as it may be. Your seats are still held: buy without it.".into(),
        Conflict::PromoCodeExists(code) => format!("This event already has a promo code {}.", quoted(code)),
        Conflict::TierHasHolds { held } => format!(
            "{} of this tier {} held now, and their buyers were shown the price it has. Try \
             again when the holds are bought or have lapsed, or release them first.",
            count(*held, "seat or place", "seats or places"),
            if *held == 1 { "is" } else { "are" }
        ),
        Conflict::SectionExists(name) => format!(
            "This event already has a section named {name:?}: rename the new one in the designer, \
             save, and add that version's section."
        ),
        Conflict::NotASeasonTicket => {
            "Only a night of a season ticket can be released back to sale.".into()
        }
        Conflict::RenewalNotPossible => "That season can't be renewed into this one: its events \
             must share a layout with this season's, and each season is renewed once."
            .into(),
        Conflict::SeasonNight => "This hold is one night of a season hold, which is held, \
             released and moved in every night at once: use the Seasons page."
            .into(),
        Conflict::RenewalPending => "Your places here are held for your renewal: renew them \
             (or give them up) from the link in your mail before choosing others."
            .into(),
        Conflict::EventInSeason => "This event is in a season, whose places are this event's \
             seats: it stays on its venue version."
            .into(),
        Conflict::NotAVenueEvent => {
            "This event was not built from a venue, so it has no versions to move to.".into()
        }
        Conflict::StaffExists(name) => format!("A staff account named {name:?} already exists."),
        Conflict::ApiKeyExists(name) => format!("An API key named {name:?} already exists."),
        Conflict::WaitlistFirst => t("error-waitlist-first"),
        Conflict::CannotRejoin => t("error-cannot-rejoin"),
        Conflict::AlreadyWaiting => t("error-already-waiting"),
        Conflict::OfferNotTaken => t("error-offer-not-taken"),
        Conflict::NotSoldOut { free } => t1("error-not-sold-out", "free", free),
        Conflict::LastAdmin => "That would leave no admin who can sign in (and nobody may disable or demote themselves): make another admin first.".into(),
        Conflict::NotEnoughTogether {
            count,
            free,
            filters,
        } => tw(
            "error-not-enough-together",
            &[
                ("asked", Arg::from(*count)),
                ("free", Arg::from(*free)),
                ("where", Arg::from(&filter_words(filters))),
            ],
        ),
        Conflict::NotEnoughSeats {
            count: asked,
            free,
            held_back,
            filters,
        } => {
            let refused = tw(
                "error-not-enough-seats",
                &[
                    ("free", Arg::from(*free)),
                    ("asked", Arg::from(*asked)),
                    ("where", Arg::from(&filter_words(filters))),
                ],
            );
            match held_back {
                0 => refused,
                n => format!("{refused} {}", t1("error-kept-seats", "count", *n)),
            }
        }
        Conflict::NoWheelchairSpace {
            wheelchair,
            free_spaces,
            filters,
            elsewhere,
        } => {
            let refused = match (free_spaces, wheelchair) {
                (0, _) => t1("error-no-wheelchair-space", "where", &filter_words(filters)),
                (free, asked) => tw(
                    "error-few-wheelchair-spaces",
                    &[
                        ("free", Arg::from(*free)),
                        ("asked", Arg::from(*asked)),
                        ("where", Arg::from(&filter_words(filters))),
                    ],
                ),
            };
            let help = t("error-box-office-helps");
            format!("{refused}{} {help}", spaces_elsewhere(elsewhere))
        }
        Conflict::WheelchairNotTogether {
            count: party,
            wheelchair,
            free_spaces,
            filters,
            elsewhere,
        } => {
            let refused = tw(
                "error-wheelchair-not-together",
                &[
                    ("free", Arg::from(*free_spaces)),
                    ("where", Arg::from(&filter_words(filters))),
                    ("others", Arg::from(party - wheelchair)),
                    ("spaces", Arg::from(*wheelchair)),
                ],
            );
            format!("{refused}{}", spaces_elsewhere(elsewhere))
        }
        Conflict::NotEnoughCapacity { area, left, asked } => tw(
            "error-not-enough-capacity",
            &[
                ("area", Arg::from(area)),
                ("left", Arg::from(*left)),
                ("asked", Arg::from(*asked)),
            ],
        ),
        Conflict::TicketAdmitted => {
            "This ticket was already admitted at the door, so it can't be refunded or moved.".into()
        }
        Conflict::TicketVoided => "This ticket was refunded; it is no longer valid.".into(),
        Conflict::TicketUsed => t("error-ticket-used"),
        Conflict::TicketTransferred => t("error-ticket-transferred"),
        Conflict::TransfersNotAllowed => t("error-transfers-not-allowed"),
        Conflict::TransfersClosed { at } => t1(
            "error-transfers-closed",
            "at",
            &crate::words::rfc3339(*at),
        ),
        Conflict::TransferLimitReached { limit } => {
            t1("error-transfer-limit", "limit", *limit as i64)
        }
        Conflict::TransferEventCancelled => t("error-transfer-cancelled"),
        Conflict::NotASeatTicket => "A general-admission ticket has no seat to move.".into(),
        Conflict::HoldBeingPaid => t("error-hold-being-paid"),
        Conflict::NotAwaitingPayment { status } => format!(
            "This order is not a reservation waiting to be paid at the box office (it is {}).",
            status.replace('_', " ")
        ),
        Conflict::PaymentDeadlinePassed => "The reservation was not paid by its deadline, so its \
             seats went back on sale. Sell them again if they are still free."
            .into(),
        Conflict::OrdersAwaitingPayment { waiting } => format!(
            "{} of this event {} for its payment; change how it is paid for once {} paid or lapsed.",
            count(*waiting, "order", "orders"),
            if *waiting == 1 { "waits" } else { "wait" },
            if *waiting == 1 { "it is" } else { "they are" }
        ),
        Conflict::PaymentUnavailable => {
            "Online payment needs Stripe: set SEATMAP_STRIPE_SECRET_KEY \
             and SEATMAP_STRIPE_WEBHOOK_SECRET (see docs/operations.md), then choose it."
                .into()
        }
        Conflict::NotSelling {
            status,
            on_sale_at,
            time_zone,
        } => {
            let locale = crate::i18n::locale(Default::default(), time_zone);
            sale_notice(*status, *on_sale_at, &locale).unwrap_or_default()
        }
    }
}

fn limit_text(limit: Limit) -> String {
    match limit {
        Limit::HoldRequests => t("error-too-many-requests"),
        Limit::HoldsFromNetwork { live } => t1("error-holds-from-network", "live", live),
        Limit::HoldsForKey { live } => format!(
            "This API key's customers have {live} live holds, the most it may have. \
             Buy or release some, or wait for a hold to expire."
        ),
        Limit::SignIns => "Too many failed sign-ins. Please wait before trying again.".into(),
        Limit::LiveStreams => t("error-live-streams"),
        Limit::WaitlistEntries { max } => t1("error-waitlist-entries", "max", max),
        Limit::HouseShare { max_seats } => t1("error-house-share", "max", max_seats),
    }
}

fn malformed_text(malformed: &Malformed) -> String {
    match malformed {
        Malformed::Json(detail) => format!("Invalid JSON body: {detail}"),
        Malformed::Query(detail) => format!("Invalid query string: {detail}"),
        Malformed::Form(detail) => format!("Invalid form: {detail}"),
        Malformed::FormTooLarge => "The form is too large.".into(),
        Malformed::BodyTooLarge => {
            "A request with an Idempotency-Key may have a body of at most 64 KiB.".into()
        }
        Malformed::FormField(name) => format!("Invalid form field {name:?}."),
        Malformed::Upload(detail) => format!("Invalid upload: {detail}"),
        Malformed::CustomerRef => format!(
            "A key with the sell scope names its customer in the {CUSTOMER_HEADER} header: \
             1 to 100 characters."
        ),
        Malformed::NoSeatInForm => "Choose a seat: the form names none.".into(),
        Malformed::HoldRequestShape => {
            "Give \"seat_ids\" and/or \"ga\", or \"best_available\" alone.".into()
        }
        Malformed::EmptyTicketIds => {
            "ticket_ids is empty: leave it out to refund the whole order.".into()
        }
        Malformed::GaQuantity => "ga: each area's quantity is from 1 to 100.".into(),
    }
}

fn denied_text(denied: &Denied) -> String {
    match denied {
        Denied::CrossSite => "Cross-site requests can't change anything here.".into(),
        Denied::FormExpired => "This form has expired. Reload the page and try again.".into(),
        Denied::KeyScope { has, needs } => {
            format!("This API key's scope is {has}; this needs a {needs} key.")
        }
        Denied::Role { has, needs } => format!(
            "Your role is {has}; this needs {needs} or above. An admin can change your role."
        ),
        Denied::QueueRequired { .. } => {
            "This sale has a waiting room: join the queue, and you can choose seats when it is your turn.".into()
        }
    }
}

/// "Stalls B4 (sold): removed"; "Floor (held): too few places for those taken".
pub fn place_in_use(place: &crate::domain::place_in_use::PlaceInUse) -> String {
    let what = match (
        &place.section,
        &place.row,
        &place.seat,
        &place.area,
        &place.tier,
    ) {
        (Some(section), Some(row), Some(seat), _, _) => format!("{section} {row}{seat}"),
        (_, _, _, Some(area), _) => area.clone(),
        (Some(section), _, _, _, _) => format!("section {section}"),
        (_, _, _, _, Some(tier)) => format!("tier {tier}"),
        _ => "a place".into(),
    };
    let in_use = match place.in_use.as_str() {
        "paying" => "awaiting payment",
        "sold_before" => "ordered before",
        "waitlist" => "chosen by a waitlist party",
        other => other,
    };
    let change = match place.change.as_str() {
        "tier_changed" => "changes tier",
        "capacity_below_taken" => "too few places for those taken",
        _ => "removed",
    };
    format!("{what} ({in_use}): {change}")
}

/// Every place a move would disturb, the first few named.
fn places_in_use(places: &[crate::domain::place_in_use::PlaceInUse]) -> String {
    const LISTED: usize = 8;
    let named: Vec<String> = places.iter().take(LISTED).map(place_in_use).collect();
    let more = match places.len().saturating_sub(LISTED) {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    format!(
        "This version would take {} from under a sale or hold, so the event stays where it is: {}{more}.",
        count(places.len(), "place", "places"),
        named.join("; ")
    )
}

fn time_field(field: TimeField) -> &'static str {
    match field {
        TimeField::Start => "start time",
        TimeField::OnSale => "on-sale time",
        TimeField::TransfersClose => "time transfers close",
        TimeField::RenewUntil => "renewal deadline (in the next year)",
    }
}

/// For people: None while on sale, else why nothing can be bought.
pub fn sale_notice(
    status: SaleStatus,
    on_sale_at: Option<time::OffsetDateTime>,
    locale: &EventLocale,
) -> Option<String> {
    match status {
        SaleStatus::OnSale => None,
        SaleStatus::Draft => Some(t("sale-draft")),
        SaleStatus::NotYet => Some(match on_sale_at {
            Some(at) => t1("sale-on-sale-at", "at", &locale.time(at)),
            None => t("sale-not-yet"),
        }),
        SaleStatus::Closed => Some(t("sale-closed")),
        SaleStatus::Started => Some(t("sale-started")),
        SaleStatus::Cancelled => Some(t("sale-cancelled")),
    }
}

/// A count with its noun, singular or plural: "1 seat", "3 seats" (never
/// "seat(s)").
pub fn count<N>(n: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// Several counts said together, the zero ones left out: "2 seats and 1
/// general-admission place"; None when all are zero.
/// Each part is (how many, the noun for one, the noun for more).
pub fn counts_and(parts: &[(i64, &str, &str)]) -> Option<String> {
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _, _)| *n != 0)
        .map(|&(n, one, many)| count(n, one, many))
        .collect();
    match said.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        [rest @ .., last] => Some(format!("{} and {last}", rest.join(", "))),
    }
}

/// What a refund gave back, in words.
pub fn refunded(tickets: usize, seats: usize, ga_places: usize) -> String {
    let back = counts_and(&[
        (seats as i64, "seat", "seats"),
        (
            ga_places as i64,
            "general-admission place",
            "general-admission places",
        ),
    ]);
    let tickets = count(tickets, "ticket", "tickets");
    match back {
        Some(back) => format!("Refunded {tickets}: {back} back on sale."),
        None => format!("Refunded {tickets}."),
    }
}

/// A moment in UTC, as staff pages and the command line show it.
pub fn display_time(at: OffsetDateTime) -> String {
    at.format(format_description!(
        "[weekday repr:short] [day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
    ))
    .unwrap_or_else(|_| at.to_string())
}

/// How big a venue is, in words.
pub fn venue_size(seats: i64, ga: i64) -> String {
    match (seats, ga) {
        (seats, 0) => format!("{seats} seats"),
        (0, ga) => format!("{ga} general admission"),
        (seats, ga) => format!("{seats} seats + {ga} general admission"),
    }
}

pub fn imported_message(layout: &VenueLayout) -> String {
    format!(
        "Imported {}: {} in {}, {}.",
        layout.name,
        venue_size(layout.seat_count() as i64, layout.ga_capacity() as i64),
        count(layout.sections.len(), "section", "sections"),
        count(layout.tiers.len(), "price tier", "price tiers")
    )
}

pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Seats (in layout order) in words: "3 seats together in Stalls, row A, seats 4–6".
pub fn describe_seats(seats: &[Seat], together: bool) -> String {
    let places: Vec<Place<'_>> = seats
        .iter()
        .map(|seat| Place {
            section: &seat.section,
            row: &seat.row_label,
            seat: &seat.seat_label,
            position: seat.position,
        })
        .collect();
    describe(&places, together)
}

/// What best available did, said where the buyer looks: "Found 4 seats
/// together in Orchestra, row C, seats 7–10 (€340)." When it swapped seats
/// the buyer held, it says which went back first.
pub fn best_found(added: &[Seat], together: bool, released: &[Seat], currency: Currency) -> String {
    let total: i64 = added.iter().map(|seat| i64::from(seat.price_cents)).sum();
    let total = currency.format_in(total, crate::i18n::current());
    let seats = describe_seats(added, together);
    match released.is_empty() {
        true => t2("best-found", "seats", &seats, "total", &total),
        false => tw(
            "best-swapped",
            &[
                ("released", Arg::from(&describe_seats(released, false))),
                ("seats", Arg::from(&seats)),
                ("total", Arg::from(&total)),
            ],
        ),
    }
}

/// A tier as a report names it: "Premium", or "Upper rear (upper_rear_2)"
/// when its code says something its name doesn't. A code that only
/// spells the name again ("premium", "upper-rear") is left out.
pub fn tier_label(name: &str, code: &str) -> String {
    let letters = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    match letters(name) == letters(code) {
        true => name.to_string(),
        false => format!("{name} ({code})"),
    }
}

pub fn seat_name(seat: &Seat) -> String {
    tw(
        "seat-name",
        &[
            ("section", Arg::from(&seat.section)),
            ("row", Arg::from(&seat.row_label)),
            ("seat", Arg::from(&seat.seat_label)),
        ],
    )
}

/// Where a seat is, for describing a result to people.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    pub section: &'a str,
    pub row: &'a str,
    pub seat: &'a str,
    pub position: i32,
}

/// "4 seats together in Orchestra, row C, seats 7–10", or for seats apart
/// "3 seats: Orchestra, row C, seats 7–8; Balcony, row A, seat 2".
/// `places` must be in layout order.
pub fn describe(places: &[Place<'_>], together: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < places.len() {
        let mut j = i;
        while j + 1 < places.len()
            && places[j + 1].section == places[i].section
            && places[j + 1].row == places[i].row
            && places[j + 1].position == places[j].position + 1
        {
            j += 1;
        }
        let seats = if i == j {
            t1("seats-one", "seat", places[i].seat)
        } else {
            t2("seats-run", "first", places[i].seat, "last", places[j].seat)
        };
        parts.push(tw(
            "seats-place",
            &[
                ("section", Arg::from(places[i].section)),
                ("row", Arg::from(places[i].row)),
                ("seats", Arg::from(&seats)),
            ],
        ));
        i = j + 1;
    }
    let count = places.len();
    if together && parts.len() == 1 {
        t2("seats-together", "count", count, "place", &parts[0])
    } else {
        t2("seats-apart", "count", count, "places", &parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_become_notices_and_failures_error_pages() {
        let at = time::macros::datetime!(2026-12-01 10:00 UTC);
        let not_yet = AppError::Conflict(Conflict::NotSelling {
            status: crate::domain::sale::SaleStatus::NotYet,
            on_sale_at: Some(at),
            time_zone: "UTC".into(),
        });
        assert_eq!(
            refusal_notice(not_yet).unwrap(),
            "On sale at Tue 1 Dec 2026, 10:00 UTC."
        );
        let limited = AppError::TooManyRequests {
            limit: Limit::HoldRequests,
            retry_after_secs: 30,
        };
        assert!(
            refusal_notice(limited).is_ok(),
            "a 429 is a notice everywhere"
        );
        assert!(refusal_notice(AppError::Unauthorized).is_err());
        assert!(refusal_notice(AppError::Internal(anyhow::anyhow!("bug"))).is_err());
    }

    #[test]
    fn describes_results_in_words() {
        let place = |section, row, seat, position| Place {
            section,
            row,
            seat,
            position,
        };
        let together = [
            place("Section B", "3", "7", 6),
            place("Section B", "3", "8", 7),
            place("Section B", "3", "9", 8),
            place("Section B", "3", "10", 9),
        ];
        assert_eq!(
            describe(&together, true),
            "4 seats together in Section B, row 3, seats 7–10"
        );
        let apart = [
            place("Orchestra", "C", "7", 6),
            place("Orchestra", "C", "8", 7),
            place("Balcony", "A", "2", 1),
        ];
        assert_eq!(
            describe(&apart, false),
            "3 seats: Orchestra, row C, seats 7–8; Balcony, row A, seat 2"
        );
        assert_eq!(
            describe(&together[..1], true),
            "1 seat in Section B, row 3, seat 7"
        );
    }

    #[test]
    fn counts_are_singular_or_plural_and_zero_parts_are_left_out() {
        assert_eq!(count(1usize, "seat", "seats"), "1 seat");
        assert_eq!(tier_label("Premium", "premium"), "Premium");
        assert_eq!(tier_label("Upper rear", "upper-rear"), "Upper rear");
        assert_eq!(tier_label("Upper rear", "ur2"), "Upper rear (ur2)");
        assert_eq!(count(3i64, "seat", "seats"), "3 seats");
        assert_eq!(count(0u32, "seat", "seats"), "0 seats");
        assert_eq!(
            refunded(2, 2, 0),
            "Refunded 2 tickets: 2 seats back on sale."
        );
        assert_eq!(
            refunded(3, 1, 2),
            "Refunded 3 tickets: 1 seat and 2 general-admission places back on sale."
        );
        assert_eq!(
            refunded(1, 0, 1),
            "Refunded 1 ticket: 1 general-admission place back on sale."
        );
    }
}

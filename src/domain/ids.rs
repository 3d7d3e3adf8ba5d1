//! Ids as types: an event's id can't be passed where a staff member's is
//! expected, nor a buyer's where a hold's is. Each is its inner value on
//! the wire (serde), unchanged; `db::ids` makes each its inner value in
//! PostgreSQL too.

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            serde::Serialize,
            serde::Deserialize,
            utoipa::ToSchema,
        )]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<$inner> for $name {
            fn from(inner: $inner) -> $name {
                $name(inner)
            }
        }

        impl std::str::FromStr for $name {
            type Err = <$inner as std::str::FromStr>::Err;

            fn from_str(text: &str) -> Result<$name, Self::Err> {
                text.parse().map($name)
            }
        }
    };
}

id_type!(
    /// An event (its seats, tiers and holds belong to it).
    EventId(i64)
);
id_type!(
    /// A box-office account.
    StaffId(i64)
);
id_type!(
    /// A buyer's hold on seats and tickets.
    HoldId(uuid::Uuid)
);
id_type!(
    /// A party's place on an event's waitlist.
    WaitlistEntryId(uuid::Uuid)
);
id_type!(
    /// An order (a bought hold, or a box-office sale).
    OrderId(uuid::Uuid)
);
id_type!(
    /// A buyer: the id their session carries.
    BuyerId(uuid::Uuid)
);
id_type!(
    /// One seat of one event (each event has its own rows).
    SeatId(i64)
);
id_type!(
    /// One ticket (its code, not this id, is what the buyer carries).
    TicketId(i64)
);
id_type!(
    /// One passing-on of a ticket to someone else.
    TransferId(i64)
);
id_type!(
    /// An API key (its secret is never stored, only a hash of it).
    ApiKeyId(i64)
);
id_type!(
    /// A venue: a layout imported once, which events are made of.
    VenueId(i64)
);
id_type!(
    /// A section of one event's map (each event has its own sections).
    SectionId(i64)
);
id_type!(
    /// A general-admission area of one event.
    AreaId(i64)
);
id_type!(
    /// A webhook endpoint staff registered.
    WebhookId(i64)
);
id_type!(
    /// A season: the same places sold for every one of its events.
    SeasonId(i64)
);
id_type!(
    /// A message in the outbox: an e-mail or a webhook delivery.
    MessageId(i64)
);

/// Who made a box-office change: a member of staff, or a box-office API
/// key. The audit log names one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Staff(StaffId),
    Key(ApiKeyId),
}

impl Actor {
    pub fn staff_id(self) -> Option<StaffId> {
        match self {
            Actor::Staff(id) => Some(id),
            Actor::Key(_) => None,
        }
    }

    pub fn api_key_id(self) -> Option<ApiKeyId> {
        match self {
            Actor::Key(id) => Some(id),
            Actor::Staff(_) => None,
        }
    }
}

//! The id types as PostgreSQL values: each is its inner value in a column
//! or a parameter, unchanged, so `EventId` binds where `bigint` does. Here
//! rather than in `domain`, which knows nothing of SQL.

use std::error::Error;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use crate::domain::ids::{
    ApiKeyId, AreaId, BuyerId, EventId, HoldId, MessageId, OrderId, SeasonId, SeatId, SectionId,
    StaffId, TicketId, TransferId, VenueId, WaitlistEntryId, WebhookId,
};

macro_rules! sql_as_inner {
    ($($name:ident($inner:ty)),* $(,)?) => {$(
        impl ToSql for $name {
            fn to_sql(
                &self,
                ty: &Type,
                out: &mut BytesMut,
            ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
                self.0.to_sql(ty, out)
            }

            fn accepts(ty: &Type) -> bool {
                <$inner as ToSql>::accepts(ty)
            }

            to_sql_checked!();
        }

        impl<'a> FromSql<'a> for $name {
            fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<$name, Box<dyn Error + Sync + Send>> {
                <$inner as FromSql>::from_sql(ty, raw).map($name)
            }

            fn accepts(ty: &Type) -> bool {
                <$inner as FromSql>::accepts(ty)
            }
        }
    )*};
}

sql_as_inner!(
    EventId(i64),
    StaffId(i64),
    HoldId(uuid::Uuid),
    WaitlistEntryId(uuid::Uuid),
    OrderId(uuid::Uuid),
    BuyerId(uuid::Uuid),
    SeatId(i64),
    TicketId(i64),
    TransferId(i64),
    ApiKeyId(i64),
    VenueId(i64),
    SectionId(i64),
    AreaId(i64),
    WebhookId(i64),
    MessageId(i64),
    SeasonId(i64),
);

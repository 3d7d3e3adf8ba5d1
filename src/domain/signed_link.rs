//! Links that open one order without a session (the one in the e-mail):
//! the order's id and an expiry, signed with HMAC-SHA256 under a key every
//! instance shares. Anyone holding the link can see the order until it
//! expires; nobody can make one for another order or a later time.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use time::OffsetDateTime;

use super::ids::OrderId;

type HmacSha256 = Hmac<Sha256>;

/// The key that signs links (from `app_secrets`, 32 random bytes or more).
#[derive(Clone)]
pub struct LinkKey(Vec<u8>);

impl std::fmt::Debug for LinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkKey(***)")
    }
}

/// What a link's query carries: `?until=<unix seconds>&sig=<hex>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct SignedAccess {
    pub until: i64,
    pub sig: String,
}

impl LinkKey {
    pub fn new(bytes: Vec<u8>) -> LinkKey {
        LinkKey(bytes)
    }

    fn mac(&self, order_id: OrderId, until: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(b"seatmap order link v1\0");
        mac.update(order_id.0.as_bytes());
        mac.update(&until.to_be_bytes());
        mac
    }

    /// A link's query for the order, valid until `until`.
    pub fn sign(&self, order_id: OrderId, until: OffsetDateTime) -> SignedAccess {
        let until = until.unix_timestamp();
        let sig = self.mac(order_id, until).finalize().into_bytes();
        SignedAccess {
            until,
            sig: data_encoding::HEXLOWER.encode(&sig),
        }
    }

    /// Whether `access` opens `order_id` at `now` (in constant time).
    pub fn verify(&self, order_id: OrderId, access: &SignedAccess, now: OffsetDateTime) -> bool {
        if access.until < now.unix_timestamp() {
            return false;
        }
        let Ok(sig) = data_encoding::HEXLOWER_PERMISSIVE.decode(access.sig.as_bytes()) else {
            return false;
        };
        self.mac(order_id, access.until).verify_slice(&sig).is_ok()
    }
}

/// Links to an order that work without a session (sent by e-mail), and
/// the address the app is reached at, to write them in full.
#[derive(Debug, Clone)]
pub struct OrderLinks {
    pub key: LinkKey,
    /// "https://tickets.example.com", no trailing slash.
    pub public_url: String,
}

impl OrderLinks {
    /// How long a link to an order works: a month past the event (or past
    /// now, for an event already started).
    pub fn expiry(
        &self,
        starts_at: time::OffsetDateTime,
        now: time::OffsetDateTime,
    ) -> time::OffsetDateTime {
        starts_at.max(now) + time::Duration::days(30)
    }

    /// The order's page, with a signed query that opens it until `until`.
    pub fn order_url(&self, order_id: OrderId, until: time::OffsetDateTime) -> String {
        let SignedAccess { until, sig } = self.key.sign(order_id, until);
        format!(
            "{}/orders/{order_id}?until={until}&sig={sig}",
            self.public_url
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration;

    fn key(byte: u8) -> LinkKey {
        LinkKey::new(vec![byte; 32])
    }

    #[test]
    fn a_link_opens_its_order_until_it_expires() {
        let order = OrderId(uuid::Uuid::new_v4());
        let now = OffsetDateTime::now_utc();
        let access = key(1).sign(order, now + Duration::days(30));
        assert!(key(1).verify(order, &access, now));
        assert!(key(1).verify(order, &access, now + Duration::days(29)));
        assert!(!key(1).verify(order, &access, now + Duration::days(31)));
    }

    #[test]
    fn a_link_opens_no_other_order_time_or_key() {
        let order = OrderId(uuid::Uuid::new_v4());
        let now = OffsetDateTime::now_utc();
        let access = key(1).sign(order, now + Duration::days(1));
        assert!(!key(1).verify(OrderId(uuid::Uuid::new_v4()), &access, now));
        assert!(!key(2).verify(order, &access, now));
        let later = SignedAccess {
            until: access.until + 86_400,
            ..access.clone()
        };
        assert!(!key(1).verify(order, &later, now));
        for sig in ["", "zz", &access.sig[..10]] {
            let forged = SignedAccess {
                sig: sig.to_string(),
                ..access.clone()
            };
            assert!(!key(1).verify(order, &forged, now), "{sig:?} verified");
        }
    }
}

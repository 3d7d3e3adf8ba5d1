//! Links that open one order without a session (the one in the e-mail):
//! the order's id and an expiry, signed with HMAC-SHA256 under a key every
//! instance shares. Anyone holding the link can see the order until it
//! expires; nobody can make one for another order or a later time.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use time::OffsetDateTime;

use super::ids::{HoldId, OrderId, WaitlistEntryId};

type HmacSha256 = Hmac<Sha256>;

/// What each kind of link signs first, so a link to one kind of thing
/// never opens another with the same id.
const ORDER_TAG: &[u8] = b"seatmap order link v1\0";
const WAITLIST_TAG: &[u8] = b"seatmap waitlist link v1\0";
const RENEWAL_TAG: &[u8] = b"seatmap season renewal link v1\0";

fn renewal_tag(action: &str) -> Vec<u8> {
    [RENEWAL_TAG, action.as_bytes()].concat()
}

fn waitlist_tag(action: &str) -> Vec<u8> {
    [WAITLIST_TAG, action.as_bytes()].concat()
}

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

    /// The MAC of what a link opens: what kind of thing (its tag), which
    /// one, and until when.
    fn mac(&self, tag: &[u8], id: &uuid::Uuid, until: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(tag);
        mac.update(id.as_bytes());
        mac.update(&until.to_be_bytes());
        mac
    }

    fn sign_tagged(&self, tag: &[u8], id: &uuid::Uuid, until: OffsetDateTime) -> SignedAccess {
        let until = until.unix_timestamp();
        let sig = self.mac(tag, id, until).finalize().into_bytes();
        SignedAccess {
            until,
            sig: data_encoding::HEXLOWER.encode(&sig),
        }
    }

    fn verify_tagged(
        &self,
        tag: &[u8],
        id: &uuid::Uuid,
        access: &SignedAccess,
        now: OffsetDateTime,
    ) -> bool {
        if access.until < now.unix_timestamp() {
            return false;
        }
        let Ok(sig) = data_encoding::HEXLOWER_PERMISSIVE.decode(access.sig.as_bytes()) else {
            return false;
        };
        self.mac(tag, id, access.until).verify_slice(&sig).is_ok()
    }

    /// A MAC over `text` under `tag`, lowercase hex: for tokens that carry
    /// their own fields (the waiting room's tickets and challenges).
    pub fn sign_text(&self, tag: &[u8], text: &str) -> String {
        data_encoding::HEXLOWER.encode(&self.text_mac(tag, text).finalize().into_bytes())
    }

    /// Whether `sig` is `text`'s MAC under `tag` (in constant time).
    pub fn verify_text(&self, tag: &[u8], text: &str, sig: &str) -> bool {
        let Ok(sig) = data_encoding::HEXLOWER_PERMISSIVE.decode(sig.as_bytes()) else {
            return false;
        };
        self.text_mac(tag, text).verify_slice(&sig).is_ok()
    }

    fn text_mac(&self, tag: &[u8], text: &str) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(tag);
        mac.update(text.as_bytes());
        mac
    }

    /// A link's query for the order, valid until `until`.
    pub fn sign(&self, order_id: OrderId, until: OffsetDateTime) -> SignedAccess {
        self.sign_tagged(ORDER_TAG, &order_id.0, until)
    }

    /// Whether `access` opens `order_id` at `now` (in constant time).
    pub fn verify(&self, order_id: OrderId, access: &SignedAccess, now: OffsetDateTime) -> bool {
        self.verify_tagged(ORDER_TAG, &order_id.0, access, now)
    }

    /// A link's query for one action on a place on a waitlist (`""`: see
    /// it; `"/offer"`, `"/leave"`, `"/rejoin"`), valid until `until`: a
    /// link to the page doesn't take the offer, nor the reverse.
    pub fn sign_waitlist(
        &self,
        entry_id: WaitlistEntryId,
        action: &str,
        until: OffsetDateTime,
    ) -> SignedAccess {
        self.sign_tagged(&waitlist_tag(action), &entry_id.0, until)
    }

    /// A link's query for a season renewal (`action` "" to see it,
    /// "/renew" or "/give-up"), valid until `until`.
    pub fn sign_renewal(
        &self,
        hold_id: HoldId,
        action: &str,
        until: OffsetDateTime,
    ) -> SignedAccess {
        self.sign_tagged(&renewal_tag(action), &hold_id.0, until)
    }

    pub fn verify_renewal(
        &self,
        hold_id: HoldId,
        action: &str,
        access: &SignedAccess,
        now: OffsetDateTime,
    ) -> bool {
        self.verify_tagged(&renewal_tag(action), &hold_id.0, access, now)
    }

    pub fn verify_waitlist(
        &self,
        entry_id: WaitlistEntryId,
        action: &str,
        access: &SignedAccess,
        now: OffsetDateTime,
    ) -> bool {
        self.verify_tagged(&waitlist_tag(action), &entry_id.0, access, now)
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

    /// A place on the waitlist's page (`/waitlist/{id}`), or one of its
    /// actions (`suffix`: "/offer"), signed until `until`.
    pub fn waitlist_url(
        &self,
        entry_id: WaitlistEntryId,
        suffix: &str,
        until: OffsetDateTime,
    ) -> String {
        let SignedAccess { until, sig } = self.key.sign_waitlist(entry_id, suffix, until);
        format!(
            "{}/waitlist/{entry_id}{suffix}?until={until}&sig={sig}",
            self.public_url
        )
    }

    /// A renewal's page (`/renewals/{hold_id}`), signed until `until`.
    pub fn renewal_url(&self, hold_id: HoldId, until: OffsetDateTime) -> String {
        let SignedAccess { until, sig } = self.key.sign_renewal(hold_id, "", until);
        format!(
            "{}/renewals/{hold_id}?until={until}&sig={sig}",
            self.public_url
        )
    }

    /// The order's page, with a signed query that opens it until `until`.
    pub fn order_url(&self, order_id: OrderId, until: time::OffsetDateTime) -> String {
        self.order_path_url(order_id, "", until)
    }

    /// The order's tickets as one PDF, by the same signed access.
    pub fn order_pdf_url(&self, order_id: OrderId, until: time::OffsetDateTime) -> String {
        self.order_path_url(order_id, "/tickets.pdf", until)
    }

    fn order_path_url(&self, order_id: OrderId, path: &str, until: time::OffsetDateTime) -> String {
        let SignedAccess { until, sig } = self.key.sign(order_id, until);
        format!(
            "{}/orders/{order_id}{path}?until={until}&sig={sig}",
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
    fn a_waitlist_link_opens_its_entry_and_no_order_with_the_same_id() {
        let id = WaitlistEntryId(uuid::Uuid::new_v4());
        let now = OffsetDateTime::now_utc();
        let access = key(1).sign_waitlist(id, "", now + Duration::days(1));
        assert!(key(1).verify_waitlist(id, "", &access, now));
        assert!(
            !key(1).verify_waitlist(id, "/offer", &access, now),
            "the page's link takes nothing"
        );
        assert!(!key(1).verify(OrderId(id.0), &access, now));
        assert!(!key(1).verify_waitlist(WaitlistEntryId(uuid::Uuid::new_v4()), "", &access, now));
        let order_access = key(1).sign(OrderId(id.0), now + Duration::days(1));
        assert!(!key(1).verify_waitlist(id, "", &order_access, now));
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

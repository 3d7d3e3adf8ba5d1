//! The door list a device keeps offline: each ticket by a keyed hash of
//! its code, never the code. A lost phone holds hashes it can't turn back
//! into codes (a code is 160 random bits), so it admits nobody and leaks no
//! ticket. The key is the event's own, derived from a server secret, so a
//! list of one event says nothing about another's.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::ids::EventId;
use super::ticket::TicketCode;

type HmacSha256 = Hmac<Sha256>;

/// How many bytes of the HMAC a hash keeps: 128 bits, hex-encoded to 32
/// characters. Collisions among an event's tickets are out of reach.
const HASH_BYTES: usize = 16;

/// The event's door-list key: HMAC-SHA256 of its id under the server's
/// door secret. Devices get it with the list, to hash what they scan.
#[derive(Clone)]
pub struct DoorKey([u8; 32]);

impl DoorKey {
    pub fn for_event(secret: &[u8], event_id: EventId) -> DoorKey {
        let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(format!("seatmap door list, event {}", event_id.0).as_bytes());
        DoorKey(mac.finalize().into_bytes().into())
    }

    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    /// The code's hash as the device computes it (door.js, WebCrypto's
    /// HMAC-SHA256 over the code's normal spelling, cut to 16 bytes).
    pub fn hash(&self, code: &TicketCode) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(code.as_str().as_bytes());
        hex(&mac.finalize().into_bytes()[..HASH_BYTES])
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether text is a hash as devices send them: 32 lowercase hex digits.
pub fn well_formed_hash(text: &str) -> bool {
    text.len() == HASH_BYTES * 2 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A device's name as it sends it: 1 to 64 letters, digits, `-` or `_`
/// (door.js makes a random one and keeps it).
/// A door device's id, issued by the server: `dv_` and 130 random bits.
pub fn new_device_id() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    let encoded = data_encoding::BASE32_NOPAD.encode(&bytes).to_lowercase();
    format!("dv_{}", &encoded[..26])
}

pub fn well_formed_device(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_per_event_and_match_what_door_js_computes() {
        let code = TicketCode::parse("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567").unwrap();
        let one = DoorKey::for_event(b"secret", EventId(1));
        let two = DoorKey::for_event(b"secret", EventId(2));
        assert_ne!(one.hash(&code), two.hash(&code));
        assert!(well_formed_hash(&one.hash(&code)));
        assert!(!well_formed_hash("ABC"));
        assert!(!well_formed_hash(&"G".repeat(32)));
        // The same HMAC as WebCrypto's over these bytes: checked against
        // an independent implementation (Python's hmac module).
        let key = DoorKey([7u8; 32]);
        assert_eq!(key.hash(&code), REFERENCE_HASH);
    }

    /// `hmac.new(bytes([7]*32), b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    /// hashlib.sha256).hexdigest()[:32]`
    const REFERENCE_HASH: &str = "d114035f393fe45c4487ba7942fba3b0";

    #[test]
    fn device_names_are_short_and_plain() {
        assert!(well_formed_device("d-3f9a_01"));
        assert!(!well_formed_device(""));
        assert!(!well_formed_device(&"a".repeat(65)));
        assert!(!well_formed_device("gate <b>"));
    }
}

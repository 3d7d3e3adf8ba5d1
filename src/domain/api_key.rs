//! API keys for server-to-server calls: the secret itself, its scope, and
//! how an integrator's customers become buyers.

use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::ids::{ApiKeyId, BuyerId};
use super::refusal::Malformed;
use super::role::Role;

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The public reads, identified (and limited) as this key.
    Read,
    /// Holds and purchases for the integrator's own customers.
    Sell,
    /// The staff API, as far as the key's role reaches: judged on every
    /// route as a signed-in member of staff of that role is.
    Staff(Role),
}

impl Scope {
    /// A scope as the command line names it; a staff key without a role
    /// is a box-office one.
    pub fn parse(text: &str) -> Option<Scope> {
        match text {
            "read" => Some(Scope::Read),
            "sell" => Some(Scope::Sell),
            "box-office" | "staff" => Some(Scope::Staff(Role::BoxOffice)),
            _ => None,
        }
    }

    /// As `api_keys.scope` stores it (the role is a column of its own).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Sell => "sell",
            Scope::Staff(_) => "box-office",
        }
    }

    /// The staff role a key acts with, if it is a staff key.
    pub fn role(self) -> Option<Role> {
        match self {
            Scope::Staff(role) => Some(role),
            Scope::Read | Scope::Sell => None,
        }
    }

    /// The scope stored as `scope` and `role`.
    pub fn from_db(scope: &str, role: Option<&str>) -> Option<Scope> {
        match (Scope::parse(scope)?, role) {
            (Scope::Staff(_), Some(role)) => Some(Scope::Staff(Role::parse(role)?)),
            (Scope::Staff(_), None) => None,
            (other, None) => Some(other),
            (_, Some(_)) => None,
        }
    }

    /// As people read it: "read", "sell", "staff (manager)".
    pub fn label(self) -> String {
        match self {
            Scope::Staff(role) => format!("staff ({})", role.as_str()),
            other => other.as_str().to_string(),
        }
    }
}

/// Every key starts so, which makes one easy to spot in a leaked file.
const PREFIX: &str = "smk_";

/// A new key to hand out once, and the hash to keep.
pub fn generate() -> (String, [u8; 32]) {
    let mut bytes = [0u8; 20];
    rand::rng().fill_bytes(&mut bytes);
    let key = format!(
        "{PREFIX}{}",
        data_encoding::BASE32_NOPAD.encode(&bytes).to_lowercase()
    );
    let hash = hash(&key);
    (key, hash)
}

pub fn hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Whether `text` could be a key at all (before asking the database).
pub fn well_formed(text: &str) -> bool {
    text.strip_prefix(PREFIX).is_some_and(|rest| {
        rest.len() == 32
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
    })
}

/// The `X-Customer-Ref` an integrator names its customer by.
pub const CUSTOMER_HEADER: &str = "x-customer-ref";

/// 1 to 100 visible characters.
pub fn customer_ref(text: &str) -> Result<&str, Malformed> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 100 || text.chars().any(char::is_control) {
        return Err(Malformed::CustomerRef);
    }
    Ok(text)
}

/// The buyer a key's customer is: the same for the same key and reference,
/// different for any other key or reference, so one customer's holds are
/// out of every other's reach (and a session's too).
pub fn customer_buyer(key: ApiKeyId, customer: &str) -> BuyerId {
    const NAMESPACE: Uuid = Uuid::from_u128(0x5ea7_0a9e_6b1d_4c35_9f0e_2d4c_7a11_b0e5);
    BuyerId(Uuid::new_v5(
        &NAMESPACE,
        format!("{}\0{customer}", key.0).as_bytes(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_well_formed_and_kept_only_as_hashes() {
        let (key, kept) = generate();
        let (other, _) = generate();
        assert_ne!(key, other);
        assert!(well_formed(&key), "{key}");
        assert_eq!(hash(&key), kept);
        assert!(!well_formed(&key.to_uppercase()));
        assert!(!well_formed(&key[..key.len() - 1]));
        assert!(!well_formed("Bearer nonsense"));
    }

    #[test]
    fn a_customer_is_a_buyer_of_one_key_only() {
        let a = customer_buyer(ApiKeyId(1), "c-17");
        assert_eq!(a, customer_buyer(ApiKeyId(1), "c-17"));
        assert_ne!(a, customer_buyer(ApiKeyId(2), "c-17"));
        assert_ne!(a, customer_buyer(ApiKeyId(1), "c-18"));
        // No reference can forge another key's: the id and reference are
        // separated by a NUL, which a reference can't contain.
        assert!(customer_ref("a\0b").is_err());
        assert!(customer_ref("").is_err());
        assert!(customer_ref(&"x".repeat(101)).is_err());
        assert_eq!(customer_ref(" c-17 ").unwrap(), "c-17");
    }

    #[test]
    fn scopes_read_back() {
        for scope in [Scope::Read, Scope::Sell, Scope::Staff(Role::BoxOffice)] {
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert_eq!(Scope::parse("admin"), None);
        for role in Role::ALL {
            let scope = Scope::Staff(role);
            assert_eq!(
                Scope::from_db(scope.as_str(), scope.role().map(Role::as_str)),
                Some(scope)
            );
        }
        assert_eq!(Scope::from_db("read", Some("admin")), None);
        assert_eq!(Scope::from_db("box-office", None), None);
    }
}

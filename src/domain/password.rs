//! Staff passwords: argon2id hashes in PHC string form.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

pub const MIN_PASSWORD_CHARS: usize = 10;

/// A staff account name: letters, digits and `._@-`, 1 to 64 characters.
/// The database's CHECK says the same.
pub fn valid_staff_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._@-".contains(c))
}

pub fn hash(password: &str) -> anyhow::Result<String> {
    anyhow::ensure!(
        password.chars().count() >= MIN_PASSWORD_CHARS,
        "a password needs at least {MIN_PASSWORD_CHARS} characters"
    );
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing the password: {e}"))
}

/// Whether `password` matches `stored`. A malformed stored hash never matches.
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A real hash of nothing anyone knows, verified against when the account
/// doesn't exist, so a wrong name takes as long as a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        hash(&uuid::Uuid::new_v4().to_string()).expect("hashing a random decoy password")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let stored = hash("correct horse battery").unwrap();
        assert!(stored.starts_with("$argon2id$"));
        assert!(verify("correct horse battery", &stored));
        assert!(!verify("correct horse batterY", &stored));
        assert!(!verify("anything", "not a hash"));
        assert!(!verify("anything", decoy_hash()));
    }

    #[test]
    fn short_passwords_and_odd_names_are_refused() {
        assert!(hash("short").is_err());
        assert!(valid_staff_name("ada.l@box-office_1"));
        for bad in ["", "has space", "semi;colon", &"x".repeat(65)] {
            assert!(!valid_staff_name(bad), "{bad:?}");
        }
    }
}

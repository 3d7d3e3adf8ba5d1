//! "Add to Google Wallet" links: a save URL carrying a signed JWT that
//! defines the event's ticket class and this ticket's object.
//!
//! Both are sent whole in the JWT, so no call to Google's API is needed
//! before a buyer taps the link; Google creates the class and the object on
//! first save and keeps the existing ones after that.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    PassColours, PlacePartKind, TicketFacts, check_id_part, place_part_kinds, starts_local_rfc3339,
};

const SAVE_URL_PREFIX: &str = "https://pay.google.com/gp/v/save/";

/// What signs save links: the issuer account's id and a service account
/// key that Google Wallet has been told belongs to that issuer.
pub struct GoogleWalletKeys {
    issuer_id: String,
    client_email: String,
    signing_key: EncodingKey,
}

// The key stays out of logs.
impl std::fmt::Debug for GoogleWalletKeys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("GoogleWalletKeys")
            .field("issuer_id", &self.issuer_id)
            .field("client_email", &self.client_email)
            .finish_non_exhaustive()
    }
}

/// The parts of Google's service account key file that signing needs.
#[derive(Deserialize)]
struct ServiceAccountKey {
    #[serde(rename = "type")]
    kind: Option<String>,
    client_email: String,
    private_key: String,
}

impl GoogleWalletKeys {
    /// Reads a service account key file as downloaded from Google Cloud
    /// (JSON with "client_email" and a PEM "private_key").
    pub fn from_service_account_json(
        issuer_id: &str,
        json: &str,
    ) -> Result<GoogleWalletKeys, String> {
        let issuer_id = issuer_id.trim();
        if issuer_id.is_empty() || !issuer_id.chars().all(|c| c.is_ascii_digit()) {
            return Err(format!(
                "issuer id: expected the digits of the Google Wallet issuer id, got {issuer_id:?}"
            ));
        }
        let account: ServiceAccountKey = serde_json::from_str(json).map_err(|error| {
            format!("service account JSON: not a service account key file: {error}")
        })?;
        if let Some(kind) = account
            .kind
            .as_deref()
            .filter(|kind| *kind != "service_account")
        {
            return Err(format!(
                "service account JSON: \"type\" is {kind:?}, expected \"service_account\""
            ));
        }
        if !account.client_email.contains('@') {
            return Err(format!(
                "service account JSON: \"client_email\" is not an email address: {:?}",
                account.client_email
            ));
        }
        let signing_key =
            EncodingKey::from_rsa_pem(account.private_key.as_bytes()).map_err(|error| {
                format!("service account JSON: \"private_key\" is not an RSA PEM key: {error}")
            })?;
        Ok(GoogleWalletKeys {
            issuer_id: issuer_id.to_owned(),
            client_email: account.client_email,
            signing_key,
        })
    }
}

fn localized(language: &str, value: &str) -> Value {
    json!({ "defaultValue": { "language": language, "value": value } })
}

fn hex_colour(colour: (u8, u8, u8)) -> String {
    format!("#{:02x}{:02x}{:02x}", colour.0, colour.1, colour.2)
}

fn ticket_class(
    keys: &GoogleWalletKeys,
    ticket: &TicketFacts,
    issuer_name: &str,
    colours: PassColours,
) -> anyhow::Result<Value> {
    let language = &ticket.labels.language;
    Ok(json!({
        "id": format!("{}.{}", keys.issuer_id, ticket.event_key),
        "issuerName": issuer_name,
        "reviewStatus": "UNDER_REVIEW",
        "eventName": localized(language, &ticket.event_name),
        // Google requires both; the venue text is all the address we have.
        "venue": {
            "name": localized(language, &ticket.venue),
            "address": localized(language, &ticket.venue),
        },
        "dateTime": { "start": starts_local_rfc3339(ticket)? },
        "hexBackgroundColor": hex_colour(colours.background),
    }))
}

fn ticket_object(keys: &GoogleWalletKeys, ticket: &TicketFacts, colours: PassColours) -> Value {
    let language = &ticket.labels.language;
    let mut seat_info = serde_json::Map::new();
    // Google Wallet has fields for section, row and seat only; a standing
    // area (or any other part) is shown as a labelled text module instead.
    let mut text_modules = Vec::new();
    for (kind, (label, value)) in place_part_kinds(ticket.place.len())
        .iter()
        .zip(&ticket.place)
    {
        match kind {
            PlacePartKind::Section | PlacePartKind::Row | PlacePartKind::Seat => {
                seat_info.insert(kind.key(), localized(language, value));
            }
            PlacePartKind::Area | PlacePartKind::Other(_) => {
                text_modules.push(json!({ "id": kind.key(), "header": label, "body": value }));
            }
        }
    }
    text_modules.push(json!({
        "id": "price",
        "header": ticket.labels.price,
        "body": ticket.price,
    }));
    let mut object = json!({
        "id": format!("{}.{}", keys.issuer_id, ticket.serial),
        "classId": format!("{}.{}", keys.issuer_id, ticket.event_key),
        "state": "ACTIVE",
        "barcode": {
            "type": "QR_CODE",
            "value": ticket.code,
            "alternateText": ticket.code_grouped,
        },
        "ticketHolderName": ticket.holder_name,
        "ticketNumber": ticket.order_ref,
        "ticketType": localized(language, &ticket.kind),
        "textModulesData": text_modules,
        "hexBackgroundColor": hex_colour(colours.background),
    });
    if !seat_info.is_empty() {
        object["seatInfo"] = Value::Object(seat_info);
    }
    object
}

/// An "Add to Google Wallet" URL for one ticket. `origin` is the site the
/// button is shown on (such as "https://tickets.example.com"); Google refuses
/// the save from pages on other origins.
pub fn save_url(
    keys: &GoogleWalletKeys,
    ticket: &TicketFacts,
    origin: &str,
    issuer_name: &str,
    colours: PassColours,
) -> anyhow::Result<String> {
    check_id_part("ticket serial", &ticket.serial)?;
    check_id_part("event key", &ticket.event_key)?;
    let issued_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the system clock is before 1970")?
        .as_secs();
    let claims = json!({
        "iss": keys.client_email,
        "aud": "google",
        "typ": "savetowallet",
        "iat": issued_at,
        "origins": [origin],
        "payload": {
            "eventTicketClasses": [ticket_class(keys, ticket, issuer_name, colours)?],
            "eventTicketObjects": [ticket_object(keys, ticket, colours)],
        },
    });
    let token = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &keys.signing_key)
        .context("signing the Google Wallet JWT")?;
    Ok(format!("{SAVE_URL_PREFIX}{token}"))
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use jsonwebtoken::{DecodingKey, Validation};
    use rsa::RsaPrivateKey;
    use rsa::pkcs8::{EncodePrivateKey, EncodePublicKey, LineEnding};

    use super::super::test_facts;
    use super::*;

    // ring, which signs here, refuses RSA keys under 2048 bits.
    static KEY: LazyLock<RsaPrivateKey> =
        LazyLock::new(|| RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).expect("test key"));

    fn service_account_json() -> String {
        let private_key = KEY.to_pkcs8_pem(LineEnding::LF).expect("key pem");
        json!({
            "type": "service_account",
            "project_id": "test",
            "private_key_id": "0123",
            "private_key": private_key.as_str(),
            "client_email": "wallet@test.iam.gserviceaccount.com",
            "client_id": "1",
        })
        .to_string()
    }

    fn colours() -> PassColours {
        PassColours {
            background: (30, 41, 82),
            foreground: (255, 255, 255),
            label: (208, 215, 236),
        }
    }

    fn decode(url: &str) -> Value {
        let token = url.strip_prefix(SAVE_URL_PREFIX).expect("save url prefix");
        let public_pem = KEY
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .expect("public pem");
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&["google"]);
        // Save links carry no expiry.
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let header = jsonwebtoken::decode_header(token).expect("header");
        assert_eq!(header.typ.as_deref(), Some("JWT"));
        assert_eq!(header.alg, Algorithm::RS256);
        jsonwebtoken::decode::<Value>(
            token,
            &DecodingKey::from_rsa_pem(public_pem.as_bytes()).expect("decoding key"),
            &validation,
        )
        .expect("valid token")
        .claims
    }

    #[test]
    fn keys_refuse_wrong_inputs() {
        let json = service_account_json();
        assert!(GoogleWalletKeys::from_service_account_json("3388000000022", &json).is_ok());
        let error = GoogleWalletKeys::from_service_account_json("33x", &json).expect_err("id");
        assert!(error.starts_with("issuer id:"), "{error}");
        let error = GoogleWalletKeys::from_service_account_json("1", "{}").expect_err("json");
        assert!(error.starts_with("service account JSON:"), "{error}");
        let bad_key = json!({"client_email": "a@b", "private_key": "nope"}).to_string();
        let error = GoogleWalletKeys::from_service_account_json("1", &bad_key).expect_err("key");
        assert!(error.contains("private_key"), "{error}");
    }

    #[test]
    fn save_url_carries_a_signed_class_and_object() {
        let keys =
            GoogleWalletKeys::from_service_account_json("3388000000022", &service_account_json())
                .expect("keys");
        let url = save_url(
            &keys,
            &test_facts::seated(),
            "https://tickets.example.com",
            "Théâtre Test",
            colours(),
        )
        .expect("url");
        let claims = decode(&url);
        assert_eq!(claims["iss"], "wallet@test.iam.gserviceaccount.com");
        assert_eq!(claims["aud"], "google");
        assert_eq!(claims["typ"], "savetowallet");
        assert!(
            claims["iat"]
                .as_u64()
                .is_some_and(|iat| iat > 1_700_000_000)
        );
        assert_eq!(claims["origins"], json!(["https://tickets.example.com"]));

        let class = &claims["payload"]["eventTicketClasses"][0];
        assert_eq!(class["id"], "3388000000022.event-17");
        assert_eq!(class["issuerName"], "Théâtre Test");
        assert_eq!(class["reviewStatus"], "UNDER_REVIEW");
        assert_eq!(class["eventName"]["defaultValue"]["language"], "de");
        assert!(
            class["eventName"]["defaultValue"]["value"]
                .as_str()
                .is_some_and(|name| name.starts_with("Schöne Grüße"))
        );
        assert_eq!(
            class["venue"]["name"]["defaultValue"]["value"],
            "Großer Saal, Théâtre São João"
        );
        assert!(class["venue"]["address"]["defaultValue"]["value"].is_string());
        assert_eq!(class["dateTime"]["start"], "2026-12-22T20:00:00+01:00");
        assert_eq!(class["hexBackgroundColor"], "#1e2952");

        let object = &claims["payload"]["eventTicketObjects"][0];
        assert_eq!(object["id"], "3388000000022.t-42.c-9f3a");
        assert_eq!(object["classId"], "3388000000022.event-17");
        assert_eq!(object["state"], "ACTIVE");
        assert_eq!(object["barcode"]["type"], "QR_CODE");
        assert_eq!(
            object["barcode"]["value"],
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
        );
        assert_eq!(
            object["barcode"]["alternateText"],
            "ABCD EFGH IJKL MNOP QRST UVWX YZ23 4567"
        );
        assert_eq!(
            object["seatInfo"]["section"]["defaultValue"]["value"],
            "Parkett"
        );
        assert_eq!(object["seatInfo"]["row"]["defaultValue"]["value"], "C");
        assert_eq!(object["seatInfo"]["seat"]["defaultValue"]["value"], "7");
        assert_eq!(object["ticketHolderName"], "Zoë Müller-Lüdenscheidt");
        assert_eq!(object["ticketNumber"], "7F3A-91C2");
        assert_eq!(
            object["ticketType"]["defaultValue"]["value"],
            "Standard · Kind"
        );
        assert_eq!(object["hexBackgroundColor"], "#1e2952");
    }

    #[test]
    fn standing_ticket_has_no_seat_info() {
        let keys = GoogleWalletKeys::from_service_account_json("1", &service_account_json())
            .expect("keys");
        let url = save_url(
            &keys,
            &test_facts::standing(),
            "https://t.example",
            "T",
            colours(),
        )
        .expect("url");
        let claims = decode(&url);
        let object = &claims["payload"]["eventTicketObjects"][0];
        assert!(object.get("seatInfo").is_none());
        assert_eq!(object["textModulesData"][0]["id"], "area");
        assert_eq!(object["textModulesData"][0]["body"], "Standing floor");
    }

    #[test]
    fn bad_ids_are_refused() {
        let keys = GoogleWalletKeys::from_service_account_json("1", &service_account_json())
            .expect("keys");
        let mut ticket = test_facts::seated();
        ticket.serial = "a/b".to_owned();
        assert!(save_url(&keys, &ticket, "https://t.example", "T", colours()).is_err());
    }
}

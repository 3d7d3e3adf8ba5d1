//! Secrets every instance must share, kept in the database they share.

use rand::RngCore;

use super::GenericClient;
use crate::domain::door::DoorKey;
use crate::domain::ids::EventId;
use crate::domain::signed_link::LinkKey;
use crate::error::AppResult;

/// The key that signs links to orders.
pub async fn order_link_key(client: &impl GenericClient) -> AppResult<LinkKey> {
    Ok(LinkKey::new(shared_secret(client, "order_links").await?))
}

/// The secret each event's door-list key is derived from.
pub async fn door_key(client: &impl GenericClient, event_id: EventId) -> AppResult<DoorKey> {
    let secret = shared_secret(client, "door_lists").await?;
    Ok(DoorKey::for_event(&secret, event_id))
}

/// A secret made by whichever instance asks first (32 bytes from the
/// CSPRNG), then the same for all of them.
async fn shared_secret(client: &impl GenericClient, name: &str) -> AppResult<Vec<u8>> {
    let mut fresh = vec![0u8; 32];
    rand::rng().fill_bytes(&mut fresh);
    client
        .execute(
            "INSERT INTO app_secrets (name, value) VALUES ($1, $2)
             ON CONFLICT (name) DO NOTHING",
            &[&name, &fresh],
        )
        .await?;
    let row = client
        .query_one("SELECT value FROM app_secrets WHERE name = $1", &[&name])
        .await?;
    Ok(row.get(0))
}

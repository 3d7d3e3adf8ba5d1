//! Secrets every instance must share, kept in the database they share.

use rand::RngCore;

use super::GenericClient;
use crate::domain::signed_link::LinkKey;
use crate::error::AppResult;

/// The key that signs links to orders: made by whichever instance asks
/// first (32 bytes from the CSPRNG), then the same for all of them.
pub async fn order_link_key(client: &impl GenericClient) -> AppResult<LinkKey> {
    let mut fresh = vec![0u8; 32];
    rand::rng().fill_bytes(&mut fresh);
    client
        .execute(
            "INSERT INTO app_secrets (name, value) VALUES ('order_links', $1)
             ON CONFLICT (name) DO NOTHING",
            &[&fresh],
        )
        .await?;
    let row = client
        .query_one(
            "SELECT value FROM app_secrets WHERE name = 'order_links'",
            &[],
        )
        .await?;
    Ok(LinkKey::new(row.get(0)))
}

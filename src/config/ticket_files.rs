//! The ticket as a wallet pass: the keys that sign Apple Wallet passes
//! and Google Wallet save links. Each wallet is on only when all of its settings are given, and
//! its keys are read and checked here, at start-up, so a wrong file stops
//! the app with a message rather than failing every buyer's pass.

use std::sync::Arc;

use super::settings as s;
use crate::ticket_files::apple::AppleWalletKeys;
use crate::ticket_files::google::GoogleWalletKeys;

#[derive(Clone, Default)]
pub struct TicketFileSettings {
    pub apple: Option<Arc<AppleWalletKeys>>,
    pub google: Option<Arc<GoogleWalletKeys>>,
}

impl std::fmt::Debug for TicketFileSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketFileSettings")
            .field("apple", &self.apple.is_some())
            .field("google", &self.google.is_some())
            .finish()
    }
}

impl TicketFileSettings {
    pub fn from_lookup(get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let apple = (
            s::WALLET_PASS_TYPE_ID.read(get)?,
            s::WALLET_TEAM_ID.read(get)?,
            s::WALLET_CERT.read(get)?,
            s::WALLET_KEY.read(get)?,
            s::WALLET_WWDR_CERT.read(get)?,
        );
        let apple = match apple {
            (None, None, None, None, None) => None,
            (Some(pass_type), Some(team), Some(cert), Some(key), Some(wwdr)) => Some(Arc::new(
                AppleWalletKeys::from_pem(&pass_type, &team, &cert, key.expose(), &wwdr)
                    .map_err(|err| anyhow::anyhow!("Apple Wallet settings: {err}"))?,
            )),
            _ => anyhow::bail!(
                "Apple Wallet needs all five of SEATMAP_WALLET_PASS_TYPE_ID, SEATMAP_WALLET_TEAM_ID, \
                 SEATMAP_WALLET_CERT, SEATMAP_WALLET_KEY and SEATMAP_WALLET_WWDR_CERT, or none"
            ),
        };
        let google = match (
            s::GOOGLE_WALLET_KEY.read(get)?,
            s::GOOGLE_WALLET_ISSUER_ID.read(get)?,
        ) {
            (None, None) => None,
            (Some(key), Some(issuer)) => Some(Arc::new(
                GoogleWalletKeys::from_service_account_json(&issuer, key.expose())
                    .map_err(|err| anyhow::anyhow!("Google Wallet settings: {err}"))?,
            )),
            _ => anyhow::bail!(
                "Google Wallet needs both SEATMAP_GOOGLE_WALLET_KEY and SEATMAP_GOOGLE_WALLET_ISSUER_ID, or neither"
            ),
        };
        Ok(TicketFileSettings { apple, google })
    }
}

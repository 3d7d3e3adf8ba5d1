//! Taking payment: Stripe's keys and address, and how long a buyer has to
//! pay before their seats go back on sale.

use std::time::Duration;

use super::settings;
use super::values::Secret;

/// Stripe, when the operator configured it.
#[derive(Debug, Clone)]
pub struct StripeSettings {
    /// `SEATMAP_STRIPE_SECRET_KEY` (`sk_live_…`, `sk_test_…`).
    pub secret_key: Secret,
    /// `SEATMAP_STRIPE_WEBHOOK_SECRET` (`whsec_…`): what signs the events
    /// Stripe sends to `/payments/stripe/webhook`.
    pub webhook_secret: Secret,
    /// `SEATMAP_STRIPE_API_URL`: Stripe's API base, or a stand-in's.
    pub api_url: String,
}

impl StripeSettings {
    /// Where Checkout's pages are: Stripe's own, or (for a stand-in at
    /// another API base) that base's origin. Buyer pages' forms may lead there.
    pub fn checkout_origin(&self) -> String {
        if self.api_url == settings::STRIPE_API_URL_DEFAULT {
            return "https://checkout.stripe.com".into();
        }
        url::Url::parse(&self.api_url)
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_else(|_| "https://checkout.stripe.com".into())
    }
}

/// Payment settings.
#[derive(Debug, Clone)]
pub struct PaymentSettings {
    /// None: no event can be paid for online.
    pub stripe: Option<StripeSettings>,
    /// How long an online order's seats stay held for its payment
    /// (`SEATMAP_PAYMENT_WINDOW_SECS`), fixed on the order at checkout.
    pub window: Duration,
    /// How often an idle payment worker looks for due calls to Stripe.
    pub poll_every: Duration,
    /// How long a worker holds a call it is making.
    pub lease: Duration,
    /// The first retry's wait; each next one doubles, up to an hour.
    pub first_retry: Duration,
}

impl Default for PaymentSettings {
    fn default() -> Self {
        PaymentSettings {
            stripe: None,
            window: settings::PAYMENT_WINDOW_SECS.default(),
            poll_every: settings::PAYMENT_POLL_MS.default(),
            lease: Duration::from_secs(60),
            first_retry: settings::PAYMENT_FIRST_RETRY_MS.default(),
        }
    }
}

impl PaymentSettings {
    pub(super) fn from_lookup(
        get: &impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<PaymentSettings> {
        let key = settings::STRIPE_SECRET_KEY.read(get)?;
        let webhook = settings::STRIPE_WEBHOOK_SECRET.read(get)?;
        // Checked even without keys, so a mistyped URL is caught before the keys are set.
        let api_url = settings::STRIPE_API_URL.read(get)?;
        let stripe = match (key, webhook) {
            (Some(secret_key), Some(webhook_secret)) => Some(StripeSettings {
                secret_key,
                webhook_secret,
                api_url,
            }),
            (None, None) => None,
            (Some(_), None) => anyhow::bail!(
                "{} is set but {} is not: without it no payment can be confirmed",
                settings::STRIPE_SECRET_KEY.name,
                settings::STRIPE_WEBHOOK_SECRET.name,
            ),
            (None, Some(_)) => anyhow::bail!(
                "{} is set but {} is not",
                settings::STRIPE_WEBHOOK_SECRET.name,
                settings::STRIPE_SECRET_KEY.name,
            ),
        };
        Ok(PaymentSettings {
            stripe,
            window: settings::PAYMENT_WINDOW_SECS.read(get)?,
            poll_every: settings::PAYMENT_POLL_MS.read(get)?,
            first_retry: settings::PAYMENT_FIRST_RETRY_MS.read(get)?,
            ..PaymentSettings::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> anyhow::Result<PaymentSettings> {
        PaymentSettings::from_lookup(&|name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn stripe_needs_both_keys_and_defaults_to_its_own_api() {
        assert!(settings(&[]).unwrap().stripe.is_none());
        assert!(settings(&[("SEATMAP_STRIPE_SECRET_KEY", "sk_test_1")]).is_err());
        assert!(settings(&[("SEATMAP_STRIPE_WEBHOOK_SECRET", "whsec_1")]).is_err());
        let both = settings(&[
            ("SEATMAP_STRIPE_SECRET_KEY", "sk_test_1"),
            ("SEATMAP_STRIPE_WEBHOOK_SECRET", "whsec_1"),
        ])
        .unwrap();
        assert_eq!(
            both.stripe.unwrap().api_url,
            settings::STRIPE_API_URL_DEFAULT
        );
        let local = settings(&[
            ("SEATMAP_STRIPE_SECRET_KEY", "sk_test_1"),
            ("SEATMAP_STRIPE_WEBHOOK_SECRET", "whsec_1"),
            ("SEATMAP_STRIPE_API_URL", "http://127.0.0.1:12111/"),
        ])
        .unwrap();
        assert_eq!(local.stripe.unwrap().api_url, "http://127.0.0.1:12111");
        assert!(
            settings(&[
                ("SEATMAP_STRIPE_SECRET_KEY", "sk_test_1"),
                ("SEATMAP_STRIPE_WEBHOOK_SECRET", "whsec_1"),
                ("SEATMAP_STRIPE_API_URL", "ftp://x"),
            ])
            .is_err()
        );
    }

    #[test]
    fn the_payment_window_is_any_whole_number_of_seconds_from_one() {
        assert_eq!(settings(&[]).unwrap().window, Duration::from_secs(900));
        assert_eq!(
            settings(&[("SEATMAP_PAYMENT_WINDOW_SECS", "1")])
                .unwrap()
                .window,
            Duration::from_secs(1)
        );
        assert!(settings(&[("SEATMAP_PAYMENT_WINDOW_SECS", "0")]).is_err());
        assert!(settings(&[("SEATMAP_PAYMENT_WINDOW_SECS", "soon")]).is_err());
    }
}

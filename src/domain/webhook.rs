//! Webhooks as data: the events there are, and how a delivery is signed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hmac::{Hmac, Mac};
use ipnet::IpNet;
use rand::RngCore;
use sha2::Sha256;
use url::{Host, Url};

/// Every event a webhook endpoint can ask for.
pub const EVENT_TYPES: [&str; 6] = [
    "order.created",
    "order.refunded",
    "ticket.admitted",
    "hold.released_by_staff",
    "event.sales_closed",
    "event.cancelled",
];

pub fn is_event_type(text: &str) -> bool {
    EVENT_TYPES.contains(&text)
}

/// A new endpoint's signing secret: 192 random bits, hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", data_encoding::HEXLOWER.encode(&bytes))
}

/// How long a rotated-out secret still signs deliveries, beside the new
/// one, so receivers can switch without missing any.
pub const ROTATION_OVERLAP: time::Duration = time::Duration::hours(24);

/// The `Seatmap-Signature` header's value for `body` sent at `timestamp`
/// (Unix seconds): `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`,
/// with one more `v1=` per extra secret (the previous one, while a
/// rotation overlaps). The receiver recomputes it with the endpoint's
/// secret, accepts any `v1` that matches, and refuses an old timestamp (a
/// replay).
pub fn signature(secrets: &[&str], timestamp: i64, body: &[u8]) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        header.push_str(",v1=");
        header.push_str(&data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes()));
    }
    header
}

/// Why a webhook URL can't be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetProblem {
    /// Not an absolute http(s) URL of at most 2,000 characters with a host.
    NotAUrl,
    /// It carries a user name or password (deliveries are signed instead,
    /// and a URL is shown and logged).
    Credentials,
    /// It is, or resolves to, an address webhooks may not reach.
    NotPublic,
    /// Its host name resolves to nothing.
    Unresolved,
}

pub const MAX_URL_CHARS: usize = 2000;

/// A webhook URL as staff typed it, parsed as browsers parse URLs.
pub fn parse_target(text: &str) -> Result<Url, TargetProblem> {
    let text = text.trim();
    if text.chars().count() > MAX_URL_CHARS || text.chars().any(|c| c.is_control()) {
        return Err(TargetProblem::NotAUrl);
    }
    let url = Url::parse(text).map_err(|_| TargetProblem::NotAUrl)?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(TargetProblem::NotAUrl);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(TargetProblem::Credentials);
    }
    // What is stored must match the schema's CHECK: no spaces (the parser
    // percent-encodes them, but say so rather than rely on it).
    if url.as_str().chars().any(char::is_whitespace) {
        return Err(TargetProblem::NotAUrl);
    }
    Ok(url)
}

/// The URL as a log line may show it: scheme, host and port, never a path
/// or query that could carry a token, nor credentials.
pub fn loggable(url: &str) -> String {
    match Url::parse(url) {
        Ok(url) => match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
            (Some(host), None) => format!("{}://{host}", url.scheme()),
            _ => "(no host)".into(),
        },
        Err(_) => "(not a URL)".into(),
    }
}

/// The address literal in the URL's host, if it names one.
pub fn literal_address(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        Host::Domain(_) => None,
    }
}

/// Which addresses deliveries may reach: public ones, and any in the
/// operator's allow-list.
#[derive(Debug, Clone, Default)]
pub struct TargetPolicy {
    pub allowed: Vec<IpNet>,
}

impl TargetPolicy {
    pub fn permits(&self, ip: IpAddr) -> bool {
        is_public(ip) || self.allowed.iter().any(|net| net.contains(&ip))
    }
}

/// An address on the public internet: not loopback, private, link-local,
/// unspecified, shared (CGNAT), multicast, broadcast, reserved or set aside
/// for documentation and benchmarks. IPv4 inside IPv6 (mapped,
/// compatible, NAT64, 6to4) is judged as the IPv4 address it carries.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (18..20).contains(&b))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let first = s[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
        // Site-local (deprecated, still routed inside some networks).
        || (first & 0xffc0) == 0xfec0
        // Documentation (2001:db8::/32, and 3fff::/20, RFC 9637).
        || (first == 0x2001 && s[1] == 0x0db8)
        || (first & 0xfff0) == 0x3ff0
        // Local-use NAT64 (64:ff9b:1::/48, RFC 8215): translated to IPv4
        // by a gateway of the operator's own, to any address it chooses.
        || (first == 0x64 && s[1] == 0xff9b && s[2] == 0x0001)
        // Discard-only (100::/64).
        || (first == 0x0100 && s[1..4] == [0, 0, 0])
        // IETF protocol assignments (2001::/23), Teredo among them, which
        // carries an IPv4 address of its own.
        || (first == 0x2001 && s[1] < 0x0200))
}

/// The IPv4 address an IPv6 address carries, where it carries one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4() {
        // Mapped (::ffff:a.b.c.d) and compatible (::a.b.c.d).
        return Some(v4);
    }
    let s = ip.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        // NAT64 (64:ff9b::/96).
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(from(hi, lo)),
        // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765).
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => Some(from(hi, lo)),
        // 6to4 (2002::/16).
        [0x2002, hi, lo, ..] => Some(from(hi, lo)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_covers_the_timestamp_and_the_body() {
        let secret = new_secret();
        let sign = |secret: &str, t: i64, body: &[u8]| signature(&[secret], t, body);
        let signed = sign(&secret, 1_700_000_000, b"{\"a\":1}");
        assert!(signed.starts_with("t=1700000000,v1="));
        assert_eq!(signed.len(), "t=1700000000,v1=".len() + 64);
        assert_eq!(signed, sign(&secret, 1_700_000_000, b"{\"a\":1}"));
        assert_ne!(signed, sign(&secret, 1_700_000_001, b"{\"a\":1}"));
        assert_ne!(signed, sign(&secret, 1_700_000_000, b"{\"a\":2}"));
        assert_ne!(signed, sign(&new_secret(), 1_700_000_000, b"{\"a\":1}"));
    }

    #[test]
    fn during_a_rotation_both_secrets_sign() {
        let (new, old) = (new_secret(), new_secret());
        let both = signature(&[&new, &old], 1_700_000_000, b"{}");
        let only_new = signature(&[&new], 1_700_000_000, b"{}");
        let only_old = signature(&[&old], 1_700_000_000, b"{}");
        let old_v1 = only_old.split_once(",v1=").unwrap().1;
        assert_eq!(both, format!("{only_new},v1={old_v1}"));
    }

    #[test]
    fn urls_must_be_http_with_a_host_and_no_credentials() {
        assert!(parse_target("https://crm.example.org/hooks?x=1").is_ok());
        for bad in [
            "http://",
            "https://",
            "ftp://example.org/",
            "example.org/hook",
            "javascript:alert(1)",
            "http:// spaced.example/",
            "http://exa\0mple.org/",
        ] {
            assert_eq!(parse_target(bad), Err(TargetProblem::NotAUrl), "{bad}");
        }
        assert_eq!(
            parse_target("https://user:pass@example.org/"),
            Err(TargetProblem::Credentials)
        );
        assert_eq!(
            parse_target(&format!("https://example.org/{}", "x".repeat(2000))),
            Err(TargetProblem::NotAUrl)
        );
    }

    #[test]
    fn logs_show_scheme_host_and_port_only() {
        assert_eq!(
            loggable("https://user:secret@hooks.example.org:8443/p?token=abc"),
            "https://hooks.example.org:8443"
        );
        assert_eq!(loggable("http://example.org/x"), "http://example.org");
    }

    #[test]
    fn only_public_addresses_are_reachable_unless_allowed() {
        for inward in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::7f00:1",
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "64:ff9b:1::7f00:1",
            "64:ff9b:1:ffff::808:808",
            "100::1",
            "3fff::1",
            "3fff:fff::1",
            "2001::1",
            "2002:7f00:1::",
            "2001:db8::1",
        ] {
            let ip: IpAddr = inward.parse().unwrap();
            assert!(!is_public(ip), "{inward} is not public");
            assert!(!TargetPolicy::default().permits(ip), "{inward}");
        }
        for public in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public} is public");
        }
        let policy = TargetPolicy {
            allowed: vec!["127.0.0.0/8".parse().unwrap()],
        };
        assert!(policy.permits("127.0.0.1".parse().unwrap()));
        assert!(!policy.permits("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn only_the_listed_events_exist() {
        assert!(is_event_type("order.created"));
        assert!(!is_event_type("order.deleted"));
        assert!(new_secret().len() > 32);
    }
}

//! Apple Wallet passes (.pkpass): a zip of pass.json, images, a manifest of
//! their SHA-1 hashes and a detached CMS signature over the manifest.
//!
//! The signature is made in-process with RustCrypto (`cms`, `rsa`), so the
//! server needs neither OpenSSL nor a shell. Wallet checks it against Apple's
//! WWDR intermediate, which is why that certificate travels in the signature
//! beside the pass certificate.

use std::io::{Cursor, Write};

use anyhow::{Context, anyhow};
use cms::builder::{SignedDataBuilder, SignerInfoBuilder, create_signing_time_attribute};
use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::signed_data::{EncapsulatedContentInfo, SignerIdentifier};
use der::oid::ObjectIdentifier;
use der::{DecodePem, Encode};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
use rsa::{RsaPrivateKey, RsaPublicKey};
use serde_json::{Value, json};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use x509_cert::Certificate;
use x509_cert::spki::AlgorithmIdentifierOwned;
use zip::write::SimpleFileOptions;

use super::{PassColours, TicketFacts, check_id_part, place_part_kinds, starts_local_rfc3339};

/// RFC 5652 id-data: the signed content is plain bytes (the manifest).
const ID_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.1");
const ID_SHA_256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");

const ICON: &[u8] = include_bytes!("pass_art/icon.png");
const ICON_2X: &[u8] = include_bytes!("pass_art/icon@2x.png");
const LOGO: &[u8] = include_bytes!("pass_art/logo.png");
const LOGO_2X: &[u8] = include_bytes!("pass_art/logo@2x.png");

/// What signs passes: the pass type's certificate and key from Apple's
/// developer portal, and the WWDR intermediate that issued the certificate.
pub struct AppleWalletKeys {
    pass_type_id: String,
    team_id: String,
    signer_certificate: Certificate,
    signing_key: SigningKey<Sha256>,
    wwdr_certificate: Certificate,
}

// The key stays out of logs.
impl std::fmt::Debug for AppleWalletKeys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AppleWalletKeys")
            .field("pass_type_id", &self.pass_type_id)
            .field("team_id", &self.team_id)
            .finish_non_exhaustive()
    }
}

impl AppleWalletKeys {
    /// Reads the signing material from PEM text.
    ///
    /// The key may be PKCS#8 ("BEGIN PRIVATE KEY") or PKCS#1 ("BEGIN RSA
    /// PRIVATE KEY"); text around the PEM block (such as the "Bag Attributes"
    /// that `openssl pkcs12` writes) is ignored. Refuses a key that is not the
    /// certificate's, and a WWDR certificate that did not issue it, since
    /// Wallet would silently reject every pass signed with either.
    pub fn from_pem(
        pass_type_id: &str,
        team_id: &str,
        cert_pem: &str,
        key_pem: &str,
        wwdr_pem: &str,
    ) -> Result<AppleWalletKeys, String> {
        let pass_type_id = pass_type_id.trim();
        if !pass_type_id.starts_with("pass.") || pass_type_id.contains(char::is_whitespace) {
            return Err(format!(
                "pass type id: expected something like \"pass.com.example.tickets\", got {pass_type_id:?}"
            ));
        }
        let team_id = team_id.trim();
        if team_id.is_empty() || !team_id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!(
                "team id: expected Apple's 10-character team id, got {team_id:?}"
            ));
        }
        let signer_certificate = certificate_from_pem("pass certificate", cert_pem)?;
        let wwdr_certificate = certificate_from_pem("WWDR certificate", wwdr_pem)?;
        let private_key = private_key_from_pem(key_pem)?;

        let certificate_key_der = signer_certificate
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|error| format!("pass certificate: its public key can't be read: {error}"))?;
        let certificate_key = RsaPublicKey::from_public_key_der(&certificate_key_der)
            .map_err(|error| format!("pass certificate: its key is not an RSA key: {error}"))?;
        if RsaPublicKey::from(&private_key) != certificate_key {
            return Err(
                "private key: it is not the key of the pass certificate (public keys differ)"
                    .to_owned(),
            );
        }
        // A signature's certificate set can't hold one certificate twice.
        if signer_certificate == wwdr_certificate {
            return Err(
                "WWDR certificate: it is the pass certificate itself; use Apple's WWDR intermediate"
                    .to_owned(),
            );
        }
        if signer_certificate.tbs_certificate.issuer != wwdr_certificate.tbs_certificate.subject {
            return Err(format!(
                "WWDR certificate: it did not issue the pass certificate (pass certificate issuer \"{}\", WWDR subject \"{}\"); download the WWDR generation named in the issuer",
                signer_certificate.tbs_certificate.issuer, wwdr_certificate.tbs_certificate.subject
            ));
        }
        Ok(AppleWalletKeys {
            pass_type_id: pass_type_id.to_owned(),
            team_id: team_id.to_owned(),
            signer_certificate,
            signing_key: SigningKey::<Sha256>::new(private_key),
            wwdr_certificate,
        })
    }
}

/// The first PEM block with this label, so surrounding text and further
/// blocks (a chain pasted after the certificate) don't get in the way.
fn pem_block<'t>(text: &'t str, label: &str) -> Option<&'t str> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = text.find(&begin)?;
    let stop = text[start..].find(&end)? + start + end.len();
    Some(&text[start..stop])
}

fn certificate_from_pem(what: &str, pem: &str) -> Result<Certificate, String> {
    let block = pem_block(pem, "CERTIFICATE")
        .ok_or_else(|| format!("{what}: no \"-----BEGIN CERTIFICATE-----\" block found"))?;
    Certificate::from_pem(block.as_bytes())
        .map_err(|error| format!("{what}: the PEM block is not a valid X.509 certificate: {error}"))
}

fn private_key_from_pem(pem: &str) -> Result<RsaPrivateKey, String> {
    if let Some(block) = pem_block(pem, "PRIVATE KEY") {
        return RsaPrivateKey::from_pkcs8_pem(block).map_err(|error| {
            format!("private key: the PKCS#8 block is not an RSA private key: {error}")
        });
    }
    if let Some(block) = pem_block(pem, "RSA PRIVATE KEY") {
        return RsaPrivateKey::from_pkcs1_pem(block).map_err(|error| {
            format!("private key: the PKCS#1 block is not an RSA private key: {error}")
        });
    }
    if pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
        return Err(
            "private key: it is encrypted; export it without a passphrase (openssl pkey -in key.pem -out plain.pem)"
                .to_owned(),
        );
    }
    Err(
        "private key: no \"-----BEGIN PRIVATE KEY-----\" or \"-----BEGIN RSA PRIVATE KEY-----\" block found"
            .to_owned(),
    )
}

fn rgb_text(colour: (u8, u8, u8)) -> String {
    format!("rgb({}, {}, {})", colour.0, colour.1, colour.2)
}

fn field(key: &str, label: &str, value: &str) -> Value {
    json!({ "key": key, "label": label, "value": value })
}

fn pass_json(
    keys: &AppleWalletKeys,
    ticket: &TicketFacts,
    organization: &str,
    colours: PassColours,
) -> anyhow::Result<Value> {
    let starts = starts_local_rfc3339(ticket)?;
    let barcode = json!({
        "format": "PKBarcodeFormatQR",
        "message": ticket.code,
        "messageEncoding": "iso-8859-1",
        "altText": ticket.code_grouped,
    });
    let labels = &ticket.labels;
    let place_fields: Vec<Value> = place_part_kinds(ticket.place.len())
        .iter()
        .zip(&ticket.place)
        .map(|(kind, (label, value))| field(&kind.key(), label, value))
        .collect();
    Ok(json!({
        "formatVersion": 1,
        "passTypeIdentifier": keys.pass_type_id,
        "teamIdentifier": keys.team_id,
        "serialNumber": ticket.serial,
        "organizationName": organization,
        "description": format!("Ticket for {}", ticket.event_name),
        "relevantDate": starts,
        "backgroundColor": rgb_text(colours.background),
        "foregroundColor": rgb_text(colours.foreground),
        "labelColor": rgb_text(colours.label),
        "barcodes": [barcode.clone()],
        // iOS 8 and older read only the singular key.
        "barcode": barcode,
        "eventTicket": {
            "primaryFields": [field("event", &labels.event, &ticket.event_name)],
            "secondaryFields": place_fields,
            "auxiliaryFields": [
                {
                    "key": "date",
                    "label": labels.date,
                    "value": starts,
                    "dateStyle": "PKDateStyleMedium",
                    "timeStyle": "PKDateStyleShort",
                    // Show the venue's clock, as the printed ticket does,
                    // not the clock of wherever the phone is.
                    "ignoresTimeZone": true,
                },
                field("type", &labels.ticket_type, &ticket.kind),
            ],
            "backFields": [
                field("holder", &labels.holder, &ticket.holder_name),
                field("order", &labels.order, &ticket.order_ref),
                field("venue", &labels.venue, &ticket.venue),
                field("price", &labels.price, &ticket.price),
                field("code", &labels.code, &ticket.code_grouped),
            ],
        },
    }))
}

/// A signed Apple Wallet pass for one ticket.
pub fn pkpass(
    keys: &AppleWalletKeys,
    ticket: &TicketFacts,
    organization: &str,
    colours: PassColours,
) -> anyhow::Result<Vec<u8>> {
    check_id_part("ticket serial", &ticket.serial)?;
    let pass = serde_json::to_vec_pretty(&pass_json(keys, ticket, organization, colours)?)?;
    let files: [(&str, &[u8]); 5] = [
        ("pass.json", &pass),
        ("icon.png", ICON),
        ("icon@2x.png", ICON_2X),
        ("logo.png", LOGO),
        ("logo@2x.png", LOGO_2X),
    ];
    let manifest: serde_json::Map<String, Value> = files
        .iter()
        .map(|(name, bytes)| ((*name).to_owned(), Value::String(hex(&Sha1::digest(bytes)))))
        .collect();
    let manifest = serde_json::to_vec_pretty(&manifest)?;
    let signature = sign_manifest(keys, &manifest).context("signing the pass manifest")?;

    let mut archive = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflated =
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in files
        .iter()
        .copied()
        .chain([("manifest.json", manifest.as_slice())])
        .chain([("signature", signature.as_slice())])
    {
        // PNGs are compressed already; deflating them again only costs time.
        let options = if name.ends_with(".png") {
            stored
        } else {
            deflated
        };
        archive.start_file(name, options)?;
        archive.write_all(bytes)?;
    }
    Ok(archive.finish()?.into_inner())
}

// cms's errors don't implement std::error::Error, so anyhow can't wrap them.
fn cms_error(error: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("{error}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A DER, detached CMS SignedData over `manifest` with SHA-256 and RSA
/// PKCS#1 v1.5, as Wallet expects in the pass's `signature` file.
fn sign_manifest(keys: &AppleWalletKeys, manifest: &[u8]) -> anyhow::Result<Vec<u8>> {
    let detached = EncapsulatedContentInfo {
        econtent_type: ID_DATA,
        econtent: None,
    };
    let digest_algorithm = AlgorithmIdentifierOwned {
        oid: ID_SHA_256,
        parameters: None,
    };
    let manifest_digest = Sha256::digest(manifest);
    let signer = SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
        issuer: keys.signer_certificate.tbs_certificate.issuer.clone(),
        serial_number: keys
            .signer_certificate
            .tbs_certificate
            .serial_number
            .clone(),
    });
    let mut signer_info = SignerInfoBuilder::new(
        &keys.signing_key,
        signer,
        digest_algorithm.clone(),
        &detached,
        Some(&manifest_digest),
    )
    .map_err(cms_error)?;
    // The builder adds content type and message digest itself.
    signer_info
        .add_signed_attribute(create_signing_time_attribute().map_err(cms_error)?)
        .map_err(cms_error)?;
    let signed = SignedDataBuilder::new(&detached)
        .add_digest_algorithm(digest_algorithm)
        .map_err(cms_error)?
        .add_certificate(CertificateChoices::Certificate(
            keys.signer_certificate.clone(),
        ))
        .map_err(cms_error)?
        .add_certificate(CertificateChoices::Certificate(
            keys.wwdr_certificate.clone(),
        ))
        .map_err(cms_error)?
        .add_signer_info::<SigningKey<Sha256>, rsa::pkcs1v15::Signature>(signer_info)
        .map_err(cms_error)?
        .build()
        .map_err(cms_error)?;
    signed.to_der().map_err(cms_error)
}

#[cfg(test)]
mod tests;

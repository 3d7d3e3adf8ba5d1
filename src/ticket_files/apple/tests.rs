//! Tests of pass building and signing, with a throwaway WWDR stand-in and
//! pass certificate made here.

use std::io::Read;
use std::str::FromStr;
use std::sync::LazyLock;
use std::time::Duration;

use cms::content_info::ContentInfo;
use cms::signed_data::SignedData;
use der::{Decode, EncodePem};
use rsa::pkcs1::EncodeRsaPrivateKey;
use rsa::pkcs1v15::VerifyingKey;
use rsa::pkcs8::{EncodePrivateKey, LineEnding};
use rsa::signature::Verifier;
use x509_cert::builder::{Builder, CertificateBuilder, Profile};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoOwned;
use x509_cert::time::Validity;

use super::super::test_facts;
use super::*;

// 1024 bits only to keep unoptimised tests quick; real keys are 2048.
static WWDR_KEY: LazyLock<RsaPrivateKey> =
    LazyLock::new(|| RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).expect("test key"));
static PASS_KEY: LazyLock<RsaPrivateKey> =
    LazyLock::new(|| RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 1024).expect("test key"));
const WWDR_SUBJECT: &str = "CN=Test WWDR,OU=G4,O=Test";

fn certificate_pem(
    profile: Profile,
    subject: &str,
    subject_key: &RsaPrivateKey,
    issuer_key: &RsaPrivateKey,
) -> String {
    let signer = SigningKey::<Sha256>::new(issuer_key.clone());
    let public_der = rsa::pkcs8::EncodePublicKey::to_public_key_der(&subject_key.to_public_key())
        .expect("public key der");
    let spki = SubjectPublicKeyInfoOwned::from_der(public_der.as_bytes()).expect("spki");
    let certificate = CertificateBuilder::new(
        profile,
        SerialNumber::from(7_u32),
        Validity::from_now(Duration::from_secs(3600)).expect("validity"),
        Name::from_str(subject).expect("name"),
        spki,
        &signer,
    )
    .expect("certificate builder")
    .build::<rsa::pkcs1v15::Signature>()
    .expect("certificate");
    certificate.to_pem(LineEnding::LF).expect("certificate pem")
}

fn wwdr_pem() -> String {
    certificate_pem(Profile::Root, WWDR_SUBJECT, &WWDR_KEY, &WWDR_KEY)
}

fn pass_certificate_pem() -> String {
    let issuer = Name::from_str(WWDR_SUBJECT).expect("issuer");
    certificate_pem(
        Profile::Leaf {
            issuer,
            enable_key_agreement: false,
            enable_key_encipherment: false,
        },
        "UID=pass.test.tickets,CN=Pass Type ID: pass.test.tickets,O=Test",
        &PASS_KEY,
        &WWDR_KEY,
    )
}

fn keys() -> AppleWalletKeys {
    let key = PASS_KEY.to_pkcs8_pem(LineEnding::LF).expect("key pem");
    AppleWalletKeys::from_pem(
        "pass.test.tickets",
        "ABCDE12345",
        &pass_certificate_pem(),
        &key,
        &wwdr_pem(),
    )
    .expect("keys")
}

fn colours() -> PassColours {
    PassColours {
        background: (30, 41, 82),
        foreground: (255, 255, 255),
        label: (208, 215, 236),
    }
}

fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("zip");
    (0..archive.len())
        .map(|index| {
            let mut file = archive.by_index(index).expect("entry");
            let mut contents = Vec::new();
            file.read_to_end(&mut contents).expect("read entry");
            (file.name().to_owned(), contents)
        })
        .collect()
}

fn entry<'f>(files: &'f [(String, Vec<u8>)], name: &str) -> &'f [u8] {
    files
        .iter()
        .find(|(entry_name, _)| entry_name == name)
        .map(|(_, bytes)| bytes.as_slice())
        .unwrap_or_else(|| panic!("{name} missing"))
}

#[test]
fn keys_accept_pkcs1_and_surrounding_text() {
    let pkcs1 = PASS_KEY.to_pkcs1_pem(LineEnding::LF).expect("pkcs1");
    let with_bag = format!("Bag Attributes\n    localKeyID: 01\n{}", pkcs1.as_str());
    let chain = format!("{}{}", pass_certificate_pem(), wwdr_pem());
    let keys = AppleWalletKeys::from_pem("pass.a.b", "T1", &chain, &with_bag, &wwdr_pem());
    assert!(keys.is_ok(), "{keys:?}");
}

#[test]
fn keys_accept_windows_line_endings() {
    let crlf = |pem: &str| pem.replace('\n', "\r\n");
    let key = PASS_KEY.to_pkcs8_pem(LineEnding::LF).expect("key pem");
    let keys = AppleWalletKeys::from_pem(
        "pass.a.b",
        "T1",
        &crlf(&pass_certificate_pem()),
        &crlf(&key),
        &crlf(&wwdr_pem()),
    );
    assert!(keys.is_ok(), "{keys:?}");
}

#[test]
fn keys_refuse_wrong_inputs() {
    let certificate = pass_certificate_pem();
    let wwdr = wwdr_pem();
    let key = PASS_KEY.to_pkcs8_pem(LineEnding::LF).expect("key pem");
    let from_pem = |cert: &str, key: &str, wwdr: &str| {
        AppleWalletKeys::from_pem("pass.a.b", "T1", cert, key, wwdr).expect_err("refused")
    };
    let wrong_key = WWDR_KEY.to_pkcs8_pem(LineEnding::LF).expect("other pem");
    let error = from_pem(&certificate, &wrong_key, &wwdr);
    assert!(error.starts_with("private key:"), "{error}");
    let error = from_pem(&certificate, "", &wwdr);
    assert!(error.starts_with("private key:"), "{error}");
    let error = from_pem("nonsense", &key, &wwdr);
    assert!(error.starts_with("pass certificate:"), "{error}");
    let error = from_pem(&certificate, &key, "");
    assert!(error.starts_with("WWDR certificate:"), "{error}");
    let error = from_pem(&certificate, &key, &certificate);
    assert!(error.starts_with("WWDR certificate:"), "{error}");
    let unrelated = certificate_pem(Profile::Root, "CN=Someone else", &WWDR_KEY, &WWDR_KEY);
    let error = from_pem(&certificate, &key, &unrelated);
    assert!(error.starts_with("WWDR certificate:"), "{error}");
    let error = AppleWalletKeys::from_pem("com.a.b", "T1", &certificate, &key, &wwdr)
        .expect_err("bad pass type id");
    assert!(error.starts_with("pass type id:"), "{error}");
}

#[test]
fn pass_has_seven_files_and_a_matching_manifest() {
    let bytes = pkpass(&keys(), &test_facts::seated(), "Théâtre Test", colours()).expect("pass");
    let files = unzip(&bytes);
    let mut names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "icon.png",
            "icon@2x.png",
            "logo.png",
            "logo@2x.png",
            "manifest.json",
            "pass.json",
            "signature"
        ]
    );
    let manifest: serde_json::Map<String, Value> =
        serde_json::from_slice(entry(&files, "manifest.json")).expect("manifest json");
    assert_eq!(manifest.len(), 5);
    for (name, bytes) in &files {
        if name == "manifest.json" || name == "signature" {
            assert!(!manifest.contains_key(name));
            continue;
        }
        assert_eq!(
            manifest.get(name).and_then(Value::as_str),
            Some(hex(&Sha1::digest(bytes)).as_str()),
            "{name}"
        );
    }
}

#[test]
fn pass_json_has_the_fields_wallet_reads() {
    let bytes = pkpass(&keys(), &test_facts::seated(), "Théâtre Test", colours()).expect("pass");
    let files = unzip(&bytes);
    let pass: Value = serde_json::from_slice(entry(&files, "pass.json")).expect("pass json");
    assert_eq!(pass["formatVersion"], 1);
    assert_eq!(pass["passTypeIdentifier"], "pass.test.tickets");
    assert_eq!(pass["teamIdentifier"], "ABCDE12345");
    assert_eq!(pass["serialNumber"], "t-42.c-9f3a");
    assert_eq!(pass["organizationName"], "Théâtre Test");
    assert!(
        pass["description"]
            .as_str()
            .is_some_and(|d| d.contains("Straßenmusik"))
    );
    assert_eq!(pass["relevantDate"], "2026-12-22T20:00:00+01:00");
    assert_eq!(pass["backgroundColor"], "rgb(30, 41, 82)");
    assert_eq!(pass["foregroundColor"], "rgb(255, 255, 255)");
    assert_eq!(pass["labelColor"], "rgb(208, 215, 236)");
    for barcode in [&pass["barcodes"][0], &pass["barcode"]] {
        assert_eq!(barcode["format"], "PKBarcodeFormatQR");
        assert_eq!(barcode["message"], "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
        assert_eq!(barcode["messageEncoding"], "iso-8859-1");
        assert_eq!(
            barcode["altText"],
            "ABCD EFGH IJKL MNOP QRST UVWX YZ23 4567"
        );
    }
    let ticket = &pass["eventTicket"];
    assert_eq!(ticket["primaryFields"][0]["key"], "event");
    let place_keys: Vec<&str> = ticket["secondaryFields"]
        .as_array()
        .expect("secondary fields")
        .iter()
        .filter_map(|field| field["key"].as_str())
        .collect();
    assert_eq!(place_keys, ["section", "row", "seat"]);
    assert_eq!(ticket["secondaryFields"][1]["label"], "Reihe");
    assert_eq!(ticket["secondaryFields"][1]["value"], "C");
    let date = &ticket["auxiliaryFields"][0];
    assert_eq!(date["key"], "date");
    assert_eq!(date["value"], "2026-12-22T20:00:00+01:00");
    assert_eq!(date["dateStyle"], "PKDateStyleMedium");
    assert_eq!(date["timeStyle"], "PKDateStyleShort");
    assert_eq!(ticket["auxiliaryFields"][1]["value"], "Standard · Kind");
    let back_keys: Vec<&str> = ticket["backFields"]
        .as_array()
        .expect("back fields")
        .iter()
        .filter_map(|field| field["key"].as_str())
        .collect();
    assert_eq!(back_keys, ["holder", "order", "venue", "price", "code"]);

    let standing = pkpass(&keys(), &test_facts::standing(), "Test", colours()).expect("pass");
    let standing_files = unzip(&standing);
    let pass: Value =
        serde_json::from_slice(entry(&standing_files, "pass.json")).expect("pass json");
    assert_eq!(pass["eventTicket"]["secondaryFields"][0]["key"], "area");
}

#[test]
fn signature_is_detached_cms_over_the_manifest() {
    let bytes = pkpass(&keys(), &test_facts::seated(), "Test", colours()).expect("pass");
    let files = unzip(&bytes);
    let manifest = entry(&files, "manifest.json");
    let content = ContentInfo::from_der(entry(&files, "signature")).expect("content info");
    let signed: SignedData = content.content.decode_as().expect("signed data");
    assert!(signed.encap_content_info.econtent.is_none(), "detached");
    assert_eq!(signed.certificates.as_ref().map(|set| set.0.len()), Some(2));
    let signer = signed.signer_infos.0.get(0).expect("one signer");
    assert_eq!(signer.digest_alg.oid, ID_SHA_256);
    assert!(matches!(
        signer.sid,
        SignerIdentifier::IssuerAndSerialNumber(_)
    ));
    let attributes = signer.signed_attrs.as_ref().expect("signed attributes");
    let digest = Sha256::digest(manifest);
    let message_digest = attributes
        .iter()
        .find(|attribute| attribute.oid.to_string() == "1.2.840.113549.1.9.4")
        .and_then(|attribute| attribute.values.get(0))
        .expect("message digest attribute");
    assert_eq!(message_digest.value(), digest.as_slice());
    assert!(
        attributes
            .iter()
            .any(|attribute| attribute.oid.to_string() == "1.2.840.113549.1.9.5"),
        "signing time"
    );
    let signed_attributes_der = attributes.to_der().expect("attributes der");
    let signature =
        rsa::pkcs1v15::Signature::try_from(signer.signature.as_bytes()).expect("signature");
    VerifyingKey::<Sha256>::new(PASS_KEY.to_public_key())
        .verify(&signed_attributes_der, &signature)
        .expect("signature verifies");
}

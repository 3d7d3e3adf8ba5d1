//! The ticket as a file, checked as the real file: the PDF read back by
//! poppler (`pdftotext`, `pdfinfo`, `pdftoppm`) and its QR code by zbar
//! (`zbarimg`); the Apple pass unzipped, its manifest hashed and its
//! signature verified by `openssl smime`, under a CA made here with
//! `openssl`; the Google link's JWT verified with the key's public half.
//! And making any of them writes nothing to the database.

use std::path::{Path, PathBuf};
use std::process::Command;

use reqwest::StatusCode;
use serde_json::Value;
use sha1::Digest;

use crate::after_sale::buy;
use crate::support::{Api, TestApp, id_segment, spawn_app, spawn_app_with};

/// Runs a tool the tests need; a missing one fails the test, naming the
/// Debian package that has it.
fn run(tool: &str, package: &str, args: &[&str]) -> std::process::Output {
    let output = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "{tool} is needed (Debian package {package}; tests/run-all.sh installs it): {err}"
            )
        });
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn text(output: std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn fetch(client: &Api, path: &str) -> (StatusCode, String, Vec<u8>) {
    let response = client.raw_get(path).await;
    let status = response.status();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, kind, response.bytes().await.unwrap().to_vec())
}

fn first_code(order: &Value) -> String {
    order["tickets"][0]["code"].as_str().unwrap().to_string()
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The QR codes zbar finds on the PDF's pages, rendered at 150 dpi.
fn qr_codes_in(pdf: &Path, dir: &Path) -> Vec<String> {
    let prefix = dir.join("page");
    run(
        "pdftoppm",
        "poppler-utils",
        &[
            "-r",
            "150",
            "-png",
            pdf.to_str().unwrap(),
            prefix.to_str().unwrap(),
        ],
    );
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pages.sort();
    pages
        .iter()
        .map(|page| {
            text(run(
                "zbarimg",
                "zbar-tools",
                &["--raw", "-q", page.to_str().unwrap()],
            ))
            .trim()
            .to_string()
        })
        .collect()
}

#[tokio::test]
async fn a_ticket_pdf_carries_the_event_the_seat_and_a_qr_code_a_phone_reads() {
    let app = spawn_app().await;
    let event = app.create_event(2, 4).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[5..7], None).await;
    let code = first_code(&order);
    let (status, kind, body) = fetch(&buyer, &format!("/tickets/{code}.pdf")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/pdf");
    let dir = scratch();
    let pdf = dir.path().join("ticket.pdf");
    std::fs::write(&pdf, &body).unwrap();
    let words = text(run(
        "pdftotext",
        "poppler-utils",
        &[pdf.to_str().unwrap(), "-"],
    ));
    for wanted in [
        "Test Night",
        "Test Hall",
        "Row",
        "Seat",
        "Ada Lovelace",
        "Standard",
    ] {
        assert!(
            words.contains(wanted),
            "{wanted:?} is not in the PDF: {words}"
        );
    }
    let grouped: String = code
        .as_bytes()
        .chunks(4)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains(&grouped), "the code as text: {words}");
    assert_eq!(qr_codes_in(&pdf, dir.path()), vec![code.clone()]);
    let info = text(run("pdfinfo", "poppler-utils", &[pdf.to_str().unwrap()]));
    assert!(info.contains("(A4)"), "a UTC venue prints on A4: {info}");

    // A venue in New York prints on US Letter.
    app.sql()
        .await
        .execute(
            "UPDATE events SET time_zone = 'America/New_York' WHERE id = $1",
            &[&event.id],
        )
        .await
        .unwrap();
    let (_, _, body) = fetch(&buyer, &format!("/tickets/{code}.pdf")).await;
    std::fs::write(&pdf, &body).unwrap();
    let info = text(run("pdfinfo", "poppler-utils", &[pdf.to_str().unwrap()]));
    assert!(info.contains("(letter)"), "{info}");

    // The order's PDF: one page a ticket, by the order page's access only.
    let order_id = id_segment(&order["order_id"]);
    let (status, _, body) = fetch(&buyer, &format!("/orders/{order_id}/tickets.pdf")).await;
    assert_eq!(status, StatusCode::OK);
    std::fs::write(&pdf, &body).unwrap();
    let info = text(run("pdfinfo", "poppler-utils", &[pdf.to_str().unwrap()]));
    assert!(info.contains("Pages:           2"), "{info}");
    let (status, _, _) = fetch(&app.buyer(), &format!("/orders/{order_id}/tickets.pdf")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "another browser can't");
    // A code that isn't one is a 404, not a 500.
    let (status, _, _) = fetch(&buyer, "/tickets/NOTACODE.pdf").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The pages link it.
    assert!(
        buyer
            .get_text(&format!("/tickets/{code}"))
            .await
            .contains(&format!("/tickets/{code}.pdf"))
    );
    assert!(
        buyer
            .get_text(&format!("/orders/{order_id}"))
            .await
            .contains(&format!("/orders/{order_id}/tickets.pdf"))
    );
}

#[tokio::test]
async fn german_french_and_spanish_text_survives_into_the_pdf() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    app.sql()
        .await
        .execute(
            "UPDATE events SET name = 'Fête à l''Opéra: ¡Señor Müller grüßt!' WHERE id = $1",
            &[&event.id],
        )
        .await
        .unwrap();
    let buyer = app.buyer();
    let (_, hold) = buyer.hold(event.id, &event.seat_ids[..1]).await;
    let (status, order) = buyer
        .purchase(&hold["hold_id"], "Zoë Ñúñez", "z@example.com")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let (_, _, body) = fetch(&buyer, &format!("/tickets/{}.pdf", first_code(&order))).await;
    let dir = scratch();
    let pdf = dir.path().join("t.pdf");
    std::fs::write(&pdf, &body).unwrap();
    let words = text(run(
        "pdftotext",
        "poppler-utils",
        &[pdf.to_str().unwrap(), "-"],
    ));
    for wanted in ["Fête à l'Opéra", "¡Señor Müller grüßt!", "Zoë Ñúñez"] {
        assert!(words.contains(wanted), "{wanted:?} is not in: {words}");
    }
}

#[tokio::test]
async fn without_wallet_keys_there_is_no_button_and_the_passes_are_404_wallet_not_configured() {
    let app = spawn_app().await;
    let event = app.create_event(1, 2).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = first_code(&order);
    for path in [
        format!("/tickets/{code}.pkpass"),
        format!("/tickets/{code}/google-wallet"),
    ] {
        let response = buyer.raw_get(&path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "wallet_not_configured", "{path}");
    }
    let page = buyer.get_text(&format!("/tickets/{code}")).await;
    assert!(!page.contains("Apple Wallet") && !page.contains("Google Wallet"));
}

/// A throwaway chain like Apple's: a root, a WWDR stand-in under it, and
/// a pass certificate under that, made with `openssl` in `dir`.
fn throwaway_wallet_chain(dir: &Path) {
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .current_dir(dir)
            .args(args)
            .output()
            .expect("openssl is needed (Debian package openssl)");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    std::fs::write(
        dir.join("wwdr.ext"),
        "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pass.ext"),
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n",
    )
    .unwrap();
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "30",
        "-subj",
        "/CN=Test Root CA/O=Seatmap Test",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "wwdr.key",
        "-out",
        "wwdr.csr",
        "-subj",
        "/CN=Test WWDR Intermediate/OU=G4/O=Seatmap Test",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        "wwdr.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "wwdr.pem",
        "-days",
        "30",
        "-extfile",
        "wwdr.ext",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "pass.key",
        "-out",
        "pass.csr",
        "-subj",
        "/UID=pass.com.example.tickets/CN=Pass Type ID: pass.com.example.tickets/OU=ABCDE12345/O=Seatmap Test",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        "pass.csr",
        "-CA",
        "wwdr.pem",
        "-CAkey",
        "wwdr.key",
        "-CAcreateserial",
        "-out",
        "pass.pem",
        "-days",
        "30",
        "-extfile",
        "pass.ext",
    ]);
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        "google.key",
    ]);
    openssl(&["pkey", "-in", "google.key", "-pubout", "-out", "google.pub"]);
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// An app with both wallets configured as an operator would: the five
/// Apple settings and Google's key file and issuer id, read by the
/// app's own configuration.
async fn app_with_wallets(dir: &Path) -> TestApp {
    let google_json = serde_json::json!({
        "type": "service_account",
        "client_email": "wallet@seatmap-test.iam.gserviceaccount.com",
        "private_key": read(dir, "google.key"),
    });
    std::fs::write(dir.join("google.json"), google_json.to_string()).unwrap();
    let dir = dir.to_path_buf();
    let settings = seatmap::config::TicketFileSettings::from_lookup(&|name: &str| {
        let path = |file: &str| Some(dir.join(file).to_str().unwrap().to_string());
        match name {
            "SEATMAP_WALLET_PASS_TYPE_ID" => Some("pass.com.example.tickets".into()),
            "SEATMAP_WALLET_TEAM_ID" => Some("ABCDE12345".into()),
            "SEATMAP_WALLET_CERT" => path("pass.pem"),
            "SEATMAP_WALLET_KEY" => path("pass.key"),
            "SEATMAP_WALLET_WWDR_CERT" => path("wwdr.pem"),
            "SEATMAP_GOOGLE_WALLET_KEY" => path("google.json"),
            "SEATMAP_GOOGLE_WALLET_ISSUER_ID" => Some("3388000000012345678".into()),
            _ => None,
        }
    })
    .expect("the wallets' settings");
    spawn_app_with(move |config| config.ticket_files = settings).await
}

#[tokio::test]
async fn an_apple_wallet_pass_is_a_signed_event_ticket_openssl_verifies() {
    let dir = scratch();
    throwaway_wallet_chain(dir.path());
    let app = app_with_wallets(dir.path()).await;
    let event = app.create_event(1, 3).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[1..2], None).await;
    let code = first_code(&order);
    let page = buyer.get_text(&format!("/tickets/{code}")).await;
    assert!(
        page.contains(&format!("/tickets/{code}.pkpass")),
        "no Apple Wallet button"
    );
    assert!(
        page.contains(&format!("/tickets/{code}/google-wallet")),
        "no Google Wallet button"
    );

    let (status, kind, body) = fetch(&buyer, &format!("/tickets/{code}.pkpass")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/vnd.apple.pkpass");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(body)).unwrap();
    let mut names: Vec<String> = archive.file_names().map(str::to_string).collect();
    names.sort();
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
    let unpacked = dir.path().join("pass");
    archive.extract(&unpacked).unwrap();
    let manifest: Value = serde_json::from_str(&read(&unpacked, "manifest.json")).unwrap();
    for name in names
        .iter()
        .filter(|n| *n != "manifest.json" && *n != "signature")
    {
        let bytes = std::fs::read(unpacked.join(name)).unwrap();
        let sha1: String = sha1::Sha1::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(manifest[name.as_str()], sha1.as_str(), "{name}'s hash");
    }
    assert_eq!(manifest.as_object().unwrap().len(), 5);
    let pass: Value = serde_json::from_str(&read(&unpacked, "pass.json")).unwrap();
    assert_eq!(pass["formatVersion"], 1);
    assert_eq!(pass["passTypeIdentifier"], "pass.com.example.tickets");
    assert_eq!(pass["teamIdentifier"], "ABCDE12345");
    assert_eq!(pass["barcodes"][0]["format"], "PKBarcodeFormatQR");
    assert_eq!(pass["barcodes"][0]["message"], code.as_str());
    assert!(pass["relevantDate"].is_string());
    assert!(pass["eventTicket"]["primaryFields"][0]["value"] == "Test Night");
    let secondary = pass["eventTicket"]["secondaryFields"].to_string();
    assert!(
        secondary.contains("\"seat\"") && secondary.contains("\"row\""),
        "{secondary}"
    );
    // The signature: detached CMS over the manifest, verified to the root.
    let unpacked_path = unpacked.to_str().unwrap();
    let verified = Command::new("openssl")
        .current_dir(&unpacked)
        .args([
            "smime",
            "-verify",
            "-inform",
            "DER",
            "-binary",
            "-content",
            "manifest.json",
            "-in",
            "signature",
            "-CAfile",
            dir.path().join("ca.pem").to_str().unwrap(),
            "-out",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "openssl smime -verify in {unpacked_path}: {}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let printed = text(run(
        "openssl",
        "openssl",
        &[
            "cms",
            "-cmsout",
            "-print",
            "-inform",
            "DER",
            "-in",
            unpacked.join("signature").to_str().unwrap(),
        ],
    ));
    assert!(
        printed.contains("Test WWDR Intermediate"),
        "the WWDR certificate is included"
    );
    // A changed manifest no longer verifies: the check can fail.
    std::fs::write(unpacked.join("manifest.json"), "{}").unwrap();
    let tampered = Command::new("openssl")
        .current_dir(&unpacked)
        .args([
            "smime",
            "-verify",
            "-inform",
            "DER",
            "-binary",
            "-content",
            "manifest.json",
            "-in",
            "signature",
            "-noverify",
            "-out",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(!tampered.status.success(), "a tampered manifest verified");
}

#[tokio::test]
async fn add_to_google_wallet_redirects_with_a_jwt_the_public_key_verifies() {
    let dir = scratch();
    throwaway_wallet_chain(dir.path());
    let app = app_with_wallets(dir.path()).await;
    let event = app.create_event(1, 3).await;
    let (_, order) = buy(&app, event.id, &event.seat_ids[..1], None).await;
    let code = first_code(&order);
    let client = crate::support::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client
        .get(format!("{}/tickets/{code}/google-wallet", app.base))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_redirection(), "{}", response.status());
    let location = response.headers()["location"].to_str().unwrap().to_string();
    let jwt = location
        .strip_prefix("https://pay.google.com/gp/v/save/")
        .unwrap_or_else(|| panic!("not a save link: {location}"));
    let key =
        jsonwebtoken::DecodingKey::from_rsa_pem(read(dir.path(), "google.pub").as_bytes()).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&["google"]);
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Value>(jwt, &key, &validation)
        .expect("the JWT verifies with the key's public half")
        .claims;
    assert_eq!(claims["iss"], "wallet@seatmap-test.iam.gserviceaccount.com");
    assert_eq!(claims["typ"], "savetowallet");
    let object = &claims["payload"]["eventTicketObjects"][0];
    let class = &claims["payload"]["eventTicketClasses"][0];
    assert_eq!(object["barcode"]["type"], "QR_CODE");
    assert_eq!(object["barcode"]["value"], code.as_str());
    assert_eq!(object["classId"], class["id"]);
    assert!(
        object["id"]
            .as_str()
            .unwrap()
            .starts_with("3388000000012345678.")
    );
    assert_eq!(object["state"], "ACTIVE");
    assert_eq!(class["eventName"]["defaultValue"]["value"], "Test Night");
    assert_eq!(object["ticketHolderName"], "Ada Lovelace");
    // A key other than the service account's does not verify it.
    let other = jsonwebtoken::DecodingKey::from_rsa_pem(
        &run(
            "openssl",
            "openssl",
            &[
                "pkey",
                "-in",
                dir.path().join("ca.key").to_str().unwrap(),
                "-pubout",
            ],
        )
        .stdout,
    )
    .unwrap();
    assert!(jsonwebtoken::decode::<Value>(jwt, &other, &validation).is_err());
}

/// A PDF, a pass and a Google link cost no database write: served by an
/// instance whose every connection is read-only, they still work (and a
/// hold, which writes, fails there: the check can fail).
#[tokio::test]
async fn making_a_pdf_or_a_pass_writes_nothing_to_the_database() {
    let dir = scratch();
    throwaway_wallet_chain(dir.path());
    let app = app_with_wallets(dir.path()).await;
    let event = app.create_event(1, 3).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..2], None).await;
    let code = first_code(&order);
    let order_id = id_segment(&order["order_id"]);

    let mut config = app.config.clone();
    config.addr = "127.0.0.1:0".parse().unwrap();
    let mut database = seatmap::db::database::Database::connect(&config)
        .await
        .unwrap();
    database.pool =
        seatmap::db::build_named_pool(database.pg_config.clone(), &config.db, "seatmap").unwrap();
    let instance = seatmap::startup::Application::build(config, &database)
        .await
        .unwrap();
    let db_name = app.db.pg_config().get_dbname().unwrap().to_string();
    app.sql()
        .await
        .batch_execute(&format!(
            "ALTER DATABASE \"{db_name}\" SET default_transaction_read_only = on"
        ))
        .await
        .unwrap();
    // Connections opened from now on are read-only; the instance lets go
    // of the ones it opened while starting, so it has only such.
    instance.state.pool.retain(|_, _| false);
    let base = format!("http://{}", instance.addr);
    tokio::spawn(instance.run_until(std::future::pending()));
    let reader = buyer.on(&base);

    for path in [
        format!("/tickets/{code}.pdf"),
        format!("/orders/{order_id}/tickets.pdf"),
        format!("/tickets/{code}.pkpass"),
    ] {
        let (status, _, body) = fetch(&reader, &path).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{path}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let no_redirect = crate::support::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let google = no_redirect
        .get(format!("{base}/tickets/{code}/google-wallet"))
        .send()
        .await
        .unwrap();
    assert!(google.status().is_redirection(), "{}", google.status());
    let (status, refused) = reader.hold(event.id, &event.seat_ids[2..3]).await;
    assert!(
        status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
        "a write went through a read-only connection: {status} {refused}"
    );
    // Back to writable, so the cluster's other tests' cleanup is unaffected.
    let owner = app.own_connection().await;
    // (A statement of its own: one sent with it would run in the same
    // read-only transaction.)
    owner
        .batch_execute("SET default_transaction_read_only = off")
        .await
        .unwrap();
    owner
        .batch_execute(&format!(
            "ALTER DATABASE \"{db_name}\" RESET default_transaction_read_only"
        ))
        .await
        .unwrap();
}

/// With `SEATMAP_MAIL_ATTACH_PDF`, the confirmation carries the PDF.
#[tokio::test]
async fn the_confirmation_attaches_the_pdf_when_asked_to() {
    let sink = crate::mail::SmtpSink::start("attach").await;
    let url = sink.url();
    let app = spawn_app_with(|config| {
        config.mail.smtp_url = Some(seatmap::config::Secret::new(url));
        config.mail.poll_every = std::time::Duration::from_millis(50);
        config.mail.attach_pdf = true;
    })
    .await;
    let event = app.create_event(1, 2).await;
    buy(&app, event.id, &event.seat_ids[..1], None).await;
    let mail = crate::mail::wait_for_mail_to(&sink, "ada@example.com").await;
    assert!(mail.contains("application/pdf"), "{mail}");
    assert!(mail.contains("tickets.pdf"), "{mail}");
}

#[tokio::test]
async fn an_order_pdf_is_made_once_for_the_order_as_it_stands_and_anew_when_it_changes() {
    use crate::api_keys::make_staff_key;
    use seatmap::domain::role::Role;
    let app = spawn_app().await;
    let key = make_staff_key(&app, "manager-key", Role::Manager).await;
    let event = app.create_event(1, 4).await;
    let (buyer, order) = buy(&app, event.id, &event.seat_ids[..3], None).await;
    let order_id = id_segment(&order["order_id"]);
    let path = format!("/orders/{order_id}/tickets.pdf");
    let dir = scratch();
    let pdf = dir.path().join("order.pdf");
    let pages = |body: &[u8]| {
        std::fs::write(&pdf, body).unwrap();
        text(run("pdfinfo", "poppler-utils", &[pdf.to_str().unwrap()]))
            .lines()
            .find_map(|line| line.strip_prefix("Pages:").map(|n| n.trim().to_string()))
            .unwrap()
    };
    let made = || app.state.files.made();
    let before = made();
    let (status, _, first) = fetch(&buyer, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(pages(&first), "3");
    // Asked again (a reload, a second tab, a script): the same file, made
    // once.
    for _ in 0..5 {
        let (status, _, again) = fetch(&buyer, &path).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(again, first);
    }
    assert_eq!(made() - before, 1, "made once for six asks");

    // One ticket refunded: the order changed, so its PDF is made anew and
    // leaves the refunded ticket out.
    let ticket_id: i64 = app
        .sql()
        .await
        .query_one(
            "SELECT min(id) FROM tickets WHERE order_id = $1::text::uuid",
            &[&order["order_id"].as_str().unwrap()],
        )
        .await
        .unwrap()
        .get(0);
    let (status, refunded) = crate::promo_codes::staff_call(
        &app,
        &key,
        reqwest::Method::POST,
        &format!("/api/staff/events/{}/orders/{order_id}/refund", event.id),
        Some(serde_json::json!({"ticket_ids": [ticket_id]})),
    )
    .await;
    assert!(status.is_success(), "{refunded}");
    let (status, _, after) = fetch(&buyer, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(pages(&after), "2", "the refunded ticket is not in it");
    assert_eq!(made() - before, 2);
}

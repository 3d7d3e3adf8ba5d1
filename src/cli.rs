//! The commands besides `serve`: `demo`, `staff add|list`, `apikey
//! add|list|revoke`, `venue check|import`. Each opens the configured database (or the embedded
//! one) through `db::database::Database`, does one thing, and shuts it down.

use crate::config::Config;
use crate::db::database::Database;
use crate::db::{self};
use anyhow::Context;

/// `seatmap demo`: seeds the demo events into the configured database, as
/// the embedded one is seeded (the hall's Demo Night, the 20,000-seat
/// arena, the Family Matinee that sells the offer): their ids, in that
/// order. Seeding again finds them.
pub async fn demo(config: Config) -> anyhow::Result<Vec<crate::domain::ids::EventId>> {
    let database = Database::connect(&config).await?;
    let pool = &database.pool;
    let seeded = async {
        Ok::<_, crate::error::AppError>(vec![
            db::demo::seed_demo(pool).await?,
            db::demo::seed_arena(pool, &config.queue).await?,
            db::demo::seed_offer_demo(pool).await?,
        ])
    }
    .await;
    // The season's concerts are events too; their ids are the season's.
    let season = match &seeded {
        Ok(_) => db::demo::seed_season_demo(pool).await.map(Some),
        Err(_) => Ok(None),
    };
    database.shutdown().await;
    season?;
    Ok(seeded?)
}

/// The role `--role` names, or manager without it.
pub fn role_option(args: &[String]) -> anyhow::Result<crate::domain::role::Role> {
    use crate::domain::role::Role;
    match args {
        [] => Ok(Role::Manager),
        [flag, name] if flag == "--role" => Role::parse(name).ok_or_else(|| {
            anyhow::anyhow!("{name:?} is not a role: door, box_office, manager or admin")
        }),
        _ => anyhow::bail!("usage: seatmap staff add NAME [--role door|box_office|manager|admin]"),
    }
}

/// `seatmap staff add NAME [--role ROLE]`: creates a staff account. The
/// password comes from the terminal (asked twice, not echoed) or, when
/// stdin is not a terminal, from its first line.
pub async fn staff_add(
    config: Config,
    name: &str,
    role: crate::domain::role::Role,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    anyhow::ensure!(
        crate::domain::password::valid_staff_name(name),
        "a staff name is 1 to 64 letters, digits or . _ @ -"
    );
    let password = if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("Password for {name}: "))?;
        let again = rpassword::prompt_password("Same password again: ")?;
        anyhow::ensure!(first == again, "the passwords differ");
        first
    } else {
        // Piped: no prompt to show, so say what is being read.
        eprintln!("Reading the password for {name} from standard input (its first line).");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        line.trim_end_matches(['\r', '\n']).to_string()
    };
    let hash =
        tokio::task::spawn_blocking(move || crate::domain::password::hash(&password)).await??;
    let database = Database::connect(&config).await?;
    let created = async {
        let mut client = database.pool.get().await?;
        let tx = client.transaction().await?;
        let id = db::staff::create(&tx, name, &hash, role).await?;
        db::staff::audit(
            &tx,
            None,
            id,
            "staff_created",
            &format!("{name} created as {role} (command line)"),
        )
        .await?;
        tx.commit().await?;
        Ok::<_, crate::error::AppError>(id)
    }
    .await;
    database.shutdown().await;
    created.map_err(|err| anyhow::anyhow!(crate::words::message(&err)))?;
    println!("staff account {name} created ({role})");
    Ok(())
}

/// `seatmap staff list`: one account a line, with when it was made.
pub async fn staff_list(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    let listed = async {
        let client = database.pool.get().await?;
        db::staff::list(&client).await
    }
    .await;
    database.shutdown().await;
    for account in listed.map_err(|err| anyhow::anyhow!("{err}"))? {
        println!(
            "{}\t{}\t{}{}",
            account.name,
            account.role.as_str(),
            crate::words::display_time(account.created_at),
            if account.disabled_at.is_some() {
                "\tdisabled"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// `seatmap staff role NAME ROLE`: changes an account's role from the
/// command line (how the first admin is made on an upgraded install, where
/// every account became a manager). Audited, with no staff actor.
pub async fn staff_role(config: Config, name: &str, role: &str) -> anyhow::Result<()> {
    let role = crate::domain::role::Role::parse(role).ok_or_else(|| {
        anyhow::anyhow!("{role:?} is not a role: door, box_office, manager or admin")
    })?;
    let database = Database::connect(&config).await?;
    let changed = async {
        let mut client = database.pool.get().await?;
        let tx = client.transaction().await?;
        let id = db::staff::id_of(&tx, name)
            .await?
            .ok_or(crate::error::AppError::NotFound(
                crate::error::Missing::StaffAccount,
            ))?;
        db::staff::set_role_from_command_line(&tx, id, role).await?;
        db::staff::audit(
            &tx,
            None,
            id,
            "staff_role",
            &format!("{name}: → {role} (command line)"),
        )
        .await?;
        tx.commit().await?;
        Ok::<_, crate::error::AppError>(())
    }
    .await;
    database.shutdown().await;
    changed.map_err(|err| anyhow::anyhow!(crate::words::message(&err)))?;
    println!("{name} is now {role}");
    Ok(())
}

/// Reads and validates a layout file; prints every problem (and returns
/// None) if it has any.
fn read_layout(
    path: &std::path::Path,
) -> anyhow::Result<Option<crate::domain::venue::VenueLayout>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    match crate::domain::venue::for_saving(crate::domain::venue::from_file(
        &path.to_string_lossy(),
        &text,
    )) {
        Ok(layout) => Ok(Some(layout)),
        Err(errors) => {
            eprintln!(
                "{}: {}",
                path.display(),
                crate::words::count(errors.len(), "problem", "problems")
            );
            for error in errors {
                eprintln!("  {error}");
            }
            Ok(None)
        }
    }
}

/// `seatmap venue check FILE`: validates a layout file (.json, or .csv for
/// simple grids) whole, and prints either what it describes or every
/// problem with where it is. Touches no database.
pub fn venue_check(path: &std::path::Path) -> anyhow::Result<bool> {
    let Some(layout) = read_layout(path)? else {
        return Ok(false);
    };
    println!(
        "{}: {} seats in {} sections, {} general-admission places in {} areas, {} price tiers",
        layout.name,
        layout.seat_count(),
        layout.sections.len(),
        layout.ga_capacity(),
        layout.ga_areas.len(),
        layout.tiers.len()
    );
    Ok(true)
}

/// `seatmap venue import FILE`: validates the whole file, then stores the
/// venue in one statement; a file with any problem writes nothing.
pub async fn venue_import(config: Config, path: &std::path::Path) -> anyhow::Result<bool> {
    let Some(layout) = read_layout(path)? else {
        return Ok(false);
    };
    let database = Database::connect(&config).await?;
    let imported = async {
        let client = database.pool.get().await?;
        db::venues::import(&client, &layout, None).await
    }
    .await;
    database.shutdown().await;
    let venue_id = imported.map_err(|err| anyhow::anyhow!(crate::words::message(&err)))?;
    println!(
        "{} (venue {venue_id})",
        crate::words::imported_message(&layout)
    );
    Ok(true)
}

/// `seatmap apikey add NAME SCOPE [--role ROLE]`: makes a key and prints
/// it, once; only its hash is kept. A staff (box-office) key has a role
/// from the staff ladder, box_office unless `--role` says otherwise.
pub async fn apikey_add(
    config: Config,
    name: &str,
    scope: &str,
    options: &[String],
) -> anyhow::Result<()> {
    use crate::domain::api_key::{self, Scope};
    anyhow::ensure!(
        crate::domain::password::valid_staff_name(name),
        "a key's name is 1 to 64 letters, digits or . _ @ -"
    );
    let scope = Scope::parse(scope)
        .with_context(|| format!("scope {scope:?}: choose read, sell or box-office"))?;
    let scope = match (scope, options) {
        (scope, []) => scope,
        (Scope::Staff(_), [flag, _]) if flag == "--role" => Scope::Staff(role_option(options)?),
        (Scope::Staff(_), _) => anyhow::bail!(
            "usage: seatmap apikey add NAME box-office [--role door|box_office|manager|admin]"
        ),
        (other, _) => anyhow::bail!(
            "a {} key has no role: only a box-office (staff) key takes --role",
            other.as_str()
        ),
    };
    let (key, hash) = api_key::generate();
    let database = Database::connect(&config).await?;
    let created = async {
        let client = database.pool.get().await?;
        db::api_keys::create(&client, name, scope, &hash).await
    }
    .await;
    database.shutdown().await;
    created.map_err(|err| anyhow::anyhow!(crate::words::message(&err)))?;
    eprintln!(
        "API key {name} ({}) created. It is shown this once; send it as \"Authorization: Bearer <key>\":",
        scope.label()
    );
    println!("{key}");
    Ok(())
}

/// `seatmap apikey role NAME ROLE`: a staff key's new role, at once (a
/// key made before key roles is box office; a manager's integration gets
/// its rights back so, without a new key).
pub async fn apikey_role(config: Config, name: &str, role: &str) -> anyhow::Result<()> {
    let role = crate::domain::role::Role::parse(role).ok_or_else(|| {
        anyhow::anyhow!("{role:?} is not a role: door, box_office, manager or admin")
    })?;
    let database = Database::connect(&config).await?;
    let changed = async {
        let client = database.pool.get().await?;
        db::api_keys::set_role(&client, name, role).await
    }
    .await;
    database.shutdown().await;
    if !changed.map_err(|err| anyhow::anyhow!("{err}"))? {
        anyhow::bail!("no live staff (box-office) key is named {name:?}");
    }
    eprintln!("API key {name} now acts as {}.", role.as_str());
    Ok(())
}

/// `seatmap apikey list`: name, scope, made, and whether revoked.
pub async fn apikey_list(config: Config) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    let listed = async {
        let client = database.pool.get().await?;
        db::api_keys::list(&client).await
    }
    .await;
    database.shutdown().await;
    for key in listed.map_err(|err| anyhow::anyhow!("{err}"))? {
        let state = match key.revoked_at {
            Some(at) => format!("revoked {}", crate::words::display_time(at)),
            None => "live".to_string(),
        };
        println!(
            "{}\t{}\tcreated {}\t{state}",
            key.name,
            key.scope,
            crate::words::display_time(key.created_at)
        );
    }
    Ok(())
}

/// `seatmap apikey revoke NAME`: the key stops working at once.
pub async fn apikey_revoke(config: Config, name: &str) -> anyhow::Result<()> {
    let database = Database::connect(&config).await?;
    let revoked = async {
        let client = database.pool.get().await?;
        db::api_keys::revoke(&client, name).await
    }
    .await;
    database.shutdown().await;
    anyhow::ensure!(
        revoked.map_err(|err| anyhow::anyhow!("{err}"))?,
        "no live API key named {name:?}"
    );
    println!("API key {name} revoked");
    Ok(())
}

//! A private PostgreSQL cluster run from the system's binaries.
//!
//! The app uses it when no `DATABASE_URL` is given, and the tests use it
//! when no `TEST_DATABASE_URL` is given. No crate does this without
//! downloading PostgreSQL builds (which this project must not do), so it is
//! written here: find `initdb`/`postgres`, initialise a data folder once,
//! run the server as a child listening only on a Unix socket inside that
//! folder, and stop it on shutdown.
//!
//! `initdb` refuses to run as root, so when we are root the cluster runs as
//! the unprivileged `postgres` user and the data folder is handed to it.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, User};

/// The port only names the socket file (`.s.PGSQL.<port>`); there is no TCP listener.
const SOCKET_PORT: u16 = 5432;
/// Unix socket paths are limited to 107 bytes on Linux.
const MAX_SOCKET_PATH: usize = 107;
pub const SUPERUSER: &str = "postgres";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync on: the app's own data must survive a power cut.
    Durable,
    /// fsync off: throwaway test clusters, where speed matters and loss doesn't.
    Throwaway,
}

/// A running cluster. Dropping it does not stop the server; call [`PgCluster::stop`].
/// If this process dies without stopping it, the kernel sends the server
/// SIGTERM (parent-death signal), so no orphan outlives us.
pub struct PgCluster {
    data_dir: PathBuf,
    /// The server we started, or None when we attached to one already
    /// running on this data folder (say, the app's, while `seatmap staff
    /// add` runs beside it); that one is not ours to stop.
    server: Option<Server>,
}

struct Server {
    pid: Pid,
    exited: Mutex<mpsc::Receiver<()>>,
}

impl PgCluster {
    /// Initialises `data_dir` if it holds no cluster yet, then starts the
    /// server and waits until it accepts connections. Blocking: call it from
    /// `spawn_blocking` in async code.
    pub fn start(data_dir: &Path, durability: Durability) -> anyhow::Result<PgCluster> {
        PgCluster::start_with(data_dir, durability, &[])
    }

    /// [`start`](Self::start) with server settings of the caller's
    /// (`name=value`, as `postgres -c` takes them), such as
    /// `shared_preload_libraries=pg_stat_statements` for a benchmark.
    pub fn start_with(
        data_dir: &Path,
        durability: Durability,
        extra_settings: &[&str],
    ) -> anyhow::Result<PgCluster> {
        let bin_dir = find_bin_dir()?;
        let run_as = RunAs::detect()?;
        let data_dir = absolute(data_dir)?;
        let socket_path_len = data_dir.as_os_str().len() + "/.s.PGSQL.5432".len();
        if socket_path_len > MAX_SOCKET_PATH {
            bail!(
                "the data folder path {} is too long for a Unix socket ({} > {} bytes); \
                 set SEATMAP_DATA_DIR to a shorter path",
                data_dir.display(),
                socket_path_len,
                MAX_SOCKET_PATH
            );
        }
        if let Some(blocked) = run_as.unreachable_ancestor(&data_dir) {
            bail!(
                "the PostgreSQL server runs as '{SUPERUSER}' (initdb refuses root), and that user \
                 cannot enter {} on the way to the data folder {}. Set SEATMAP_DATA_DIR to a \
                 folder it can reach, such as /var/tmp/seatmap",
                blocked.display(),
                data_dir.display()
            );
        }
        if !data_dir.join("PG_VERSION").exists() {
            init_data_dir(&bin_dir, &data_dir, &run_as)?;
        } else if accepts_connections(&bin_dir, &data_dir) {
            return Ok(PgCluster {
                data_dir,
                server: None,
            });
        }

        let log_path = data_dir.join("server.log");
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .with_context(|| format!("opening {}", log_path.display()))?;
        let mut settings = vec![
            "listen_addresses=".to_string(),
            format!("unix_socket_directories={}", data_dir.display()),
            "max_connections=200".to_string(),
        ];
        settings.extend(extra_settings.iter().map(|s| s.to_string()));
        if durability == Durability::Throwaway {
            settings.extend(
                [
                    "fsync=off",
                    "synchronous_commit=off",
                    "full_page_writes=off",
                ]
                .map(String::from),
            );
        }
        let mut command = Command::new(bin_dir.join("postgres"));
        command
            .arg("-D")
            .arg(&data_dir)
            .arg("-p")
            .arg(SOCKET_PORT.to_string());
        for setting in &settings {
            command.arg("-c").arg(setting);
        }
        command
            .current_dir(&data_dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        run_as.apply(&mut command);
        // SAFETY: prctl is async-signal-safe and touches no memory of ours.
        // (The workspace denies unsafe code; this is its one exception.)
        #[allow(unsafe_code)]
        unsafe {
            command.pre_exec(|| {
                nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).map_err(io::Error::from)
            });
        }

        // The parent-death signal fires when the *thread* that forked the
        // child ends, so the child is spawned from a thread that lives exactly
        // as long as the server does (it waits on it).
        let (pid_tx, pid_rx) = mpsc::channel();
        let (exited_tx, exited_rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("postgres-supervisor".into())
            .spawn(move || match command.spawn() {
                Ok(mut child) => {
                    let _ = pid_tx.send(Ok(child.id()));
                    let _ = child.wait();
                    let _ = exited_tx.send(());
                }
                Err(err) => {
                    let _ = pid_tx.send(Err(err));
                }
            })?;
        let pid = pid_rx
            .recv()?
            .with_context(|| format!("starting {}", bin_dir.join("postgres").display()))?;
        let cluster = PgCluster {
            data_dir,
            server: Some(Server {
                pid: Pid::from_raw(pid as i32),
                exited: Mutex::new(exited_rx),
            }),
        };
        cluster.wait_until_ready(&bin_dir, &log_path)?;
        Ok(cluster)
    }

    fn wait_until_ready(&self, bin_dir: &Path, log_path: &Path) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if self.has_exited() {
                bail!(
                    "PostgreSQL exited during start-up. Its log ({}) ends with:\n{}",
                    log_path.display(),
                    tail(log_path, 20)
                );
            }
            if accepts_connections(bin_dir, &self.data_dir) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!(
                    "PostgreSQL did not accept connections within 60 s. Its log ({}) ends with:\n{}",
                    log_path.display(),
                    tail(log_path, 20)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn has_exited(&self) -> bool {
        let Some(server) = &self.server else {
            return false;
        };
        let exited = server.exited.lock().unwrap_or_else(|e| e.into_inner());
        !matches!(exited.try_recv(), Err(mpsc::TryRecvError::Empty))
    }

    /// Makes `replica_dir` a streaming replica of this server: a base backup
    /// (`pg_basebackup -R`, which writes `standby.signal` and the
    /// `primary_conninfo` pointing at this server's socket). Start it with
    /// [`start_with`](Self::start_with). Blocking.
    pub fn base_backup(&self, replica_dir: &Path) -> anyhow::Result<()> {
        let bin_dir = find_bin_dir()?;
        let run_as = RunAs::detect()?;
        let replica_dir = absolute(replica_dir)?;
        run_as.prepare(&replica_dir)?;
        let mut command = Command::new(bin_dir.join("pg_basebackup"));
        command
            .arg("-D")
            .arg(&replica_dir)
            .arg("-h")
            .arg(&self.data_dir)
            .arg("-p")
            .arg(SOCKET_PORT.to_string())
            .args(["-U", SUPERUSER, "-R", "-X", "stream", "--checkpoint=fast"])
            .current_dir(&replica_dir)
            .stdin(Stdio::null());
        run_as.apply(&mut command);
        let output = command
            .output()
            .with_context(|| format!("running {}", bin_dir.join("pg_basebackup").display()))?;
        if !output.status.success() {
            bail!(
                "pg_basebackup failed for {}:\n{}{}",
                replica_dir.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // The primary's socket lives in its data folder, so the backup
        // copied its lock (the replica would refuse to start, naming the
        // primary's pid) and its log (which would pass for the replica's).
        for copied in [format!(".s.PGSQL.{SOCKET_PORT}.lock"), "server.log".into()] {
            let path = replica_dir.join(copied);
            if path.exists() {
                fs::remove_file(&path)
                    .with_context(|| format!("removing the copied {}", path.display()))?;
            }
        }
        Ok(())
    }

    /// Connection settings for `dbname` as the superuser, over the socket.
    pub fn connect_config(&self, dbname: &str) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config
            .host_path(&self.data_dir)
            .port(SOCKET_PORT)
            .user(SUPERUSER)
            .dbname(dbname);
        config
    }

    /// Whether this process attached to a server already running on the
    /// data folder (the app's, under `seatmap staff`) rather than starting it.
    pub fn attached(&self) -> bool {
        self.server.is_none()
    }

    /// Kills the postmaster with SIGKILL, as a machine dying would (its
    /// backends notice and exit; nothing is checkpointed), and waits for it
    /// to be gone. For failover tests. Blocking.
    pub fn kill_hard(&self) -> anyhow::Result<()> {
        let Some(server) = &self.server else {
            bail!("this cluster was attached to, not started here: not ours to kill");
        };
        kill(server.pid, Signal::SIGKILL).context("killing PostgreSQL")?;
        let exited = server.exited.lock().unwrap_or_else(|e| e.into_inner());
        let _ = exited.recv_timeout(Duration::from_secs(30));
        Ok(())
    }

    /// Fast shutdown (SIGINT: roll back open transactions, checkpoint, exit),
    /// waiting up to 30 s. Blocking. A cluster this process only attached
    /// to is left running.
    pub fn stop(&self) -> anyhow::Result<()> {
        let Some(server) = &self.server else {
            return Ok(());
        };
        if self.has_exited() {
            return Ok(());
        }
        kill(server.pid, Signal::SIGINT).context("signalling PostgreSQL to stop")?;
        let exited = server.exited.lock().unwrap_or_else(|e| e.into_inner());
        match exited.recv_timeout(Duration::from_secs(30)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => Ok(()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                bail!("PostgreSQL did not stop within 30 s")
            }
        }
    }
}

/// The user the server runs as when it isn't this process's: `postgres`
/// when running as root (initdb refuses root), else None.
pub fn server_user() -> anyhow::Result<Option<String>> {
    Ok(RunAs::detect()?.user.map(|user| user.name))
}

/// Whether a server is answering on the data folder's socket.
fn accepts_connections(bin_dir: &Path, data_dir: &Path) -> bool {
    // As the cluster's own superuser: pg_isready logs in to ask, and with
    // the OS user (root) the server would log "role does not exist".
    Command::new(bin_dir.join("pg_isready"))
        .arg("-q")
        .args(["-U", SUPERUSER])
        .arg("-h")
        .arg(data_dir)
        .arg("-p")
        .arg(SOCKET_PORT.to_string())
        .status()
        .is_ok_and(|status| status.success())
}

/// Who runs `initdb` and `postgres`: ourselves, or `postgres` when we are root.
struct RunAs {
    user: Option<User>,
}

impl RunAs {
    fn detect() -> anyhow::Result<RunAs> {
        if !nix::unistd::geteuid().is_root() {
            return Ok(RunAs { user: None });
        }
        let user = User::from_name(SUPERUSER)?.with_context(|| {
            "running as root, and initdb refuses root: create an unprivileged \
             'postgres' user (installing Debian's postgresql package does), \
             or set DATABASE_URL"
        })?;
        Ok(RunAs { user: Some(user) })
    }

    fn apply(&self, command: &mut Command) {
        if let Some(user) = &self.user {
            command
                .uid(user.uid.as_raw())
                .gid(user.gid.as_raw())
                .env("HOME", &user.dir)
                .env("USER", &user.name);
        }
    }

    /// The first existing folder above `path` that the server user may not
    /// enter (ignoring ACLs): the cluster can't live below it.
    fn unreachable_ancestor(&self, path: &Path) -> Option<PathBuf> {
        let user = self.user.as_ref()?;
        path.ancestors()
            .skip(1)
            .filter_map(|dir| fs::metadata(dir).ok().map(|meta| (dir, meta)))
            .find(|(_, meta)| {
                use std::os::unix::fs::MetadataExt;
                let mode = meta.mode();
                let searchable = if meta.uid() == user.uid.as_raw() {
                    mode & 0o100 != 0
                } else if meta.gid() == user.gid.as_raw() {
                    mode & 0o010 != 0
                } else {
                    mode & 0o001 != 0
                };
                !searchable
            })
            .map(|(dir, _)| dir.to_path_buf())
    }

    /// Gives the unprivileged user the data folder, and makes its parent
    /// traversable so the server can reach it.
    fn prepare(&self, data_dir: &Path) -> anyhow::Result<()> {
        fs::create_dir_all(data_dir)
            .with_context(|| format!("creating the data folder {}", data_dir.display()))?;
        if let Some(user) = &self.user {
            nix::unistd::chown(data_dir, Some(user.uid), Some(user.gid))
                .with_context(|| format!("handing {} to {}", data_dir.display(), user.name))?;
            if let Some(parent) = data_dir.parent() {
                let mut perms = fs::metadata(parent)?.permissions();
                if perms.mode() & 0o001 == 0 {
                    perms.set_mode(perms.mode() | 0o011);
                    fs::set_permissions(parent, perms)?;
                }
            }
        }
        fs::set_permissions(data_dir, fs::Permissions::from_mode(0o700))?;
        Ok(())
    }
}

fn init_data_dir(bin_dir: &Path, data_dir: &Path, run_as: &RunAs) -> anyhow::Result<()> {
    run_as.prepare(data_dir)?;
    let mut command = Command::new(bin_dir.join("initdb"));
    command
        .arg("-D")
        .arg(data_dir)
        .args(["--auth=trust", "--encoding=UTF8", "--locale=C"])
        .arg(format!("--username={SUPERUSER}"))
        .current_dir(data_dir)
        .stdin(Stdio::null());
    run_as.apply(&mut command);
    let output = command
        .output()
        .with_context(|| format!("running {}", bin_dir.join("initdb").display()))?;
    if !output.status.success() {
        bail!(
            "initdb failed for {}:\n{}{}",
            data_dir.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// The folder holding `initdb` and `postgres`: on PATH, else the newest
/// `/usr/lib/postgresql/*/bin`.
pub fn find_bin_dir() -> anyhow::Result<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut versioned: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versioned.sort_by_key(|(version, _)| std::cmp::Reverse(*version));
    on_path
        .into_iter()
        .chain(versioned.into_iter().map(|(_, dir)| dir))
        .find(|dir| {
            ["initdb", "postgres", "pg_isready"]
                .iter()
                .all(|bin| dir.join(bin).is_file())
        })
        .context(
            "no PostgreSQL server binaries (initdb, postgres) on PATH or under \
             /usr/lib/postgresql/*/bin. Install them (Debian: apt-get install postgresql) \
             or set DATABASE_URL to an existing database",
        )
}

/// Where the app keeps its cluster when SEATMAP_DATA_DIR is unset:
/// `.seatmap/pgdata` here, unless the server user can't reach this folder
/// (say, a checkout under /root while running as root); then a folder named
/// after this one under /var/tmp.
pub fn default_data_dir() -> anyhow::Result<PathBuf> {
    let local = absolute(Path::new(".seatmap"))?.join("pgdata");
    if RunAs::detect()?.unreachable_ancestor(&local).is_none() {
        return Ok(local);
    }
    let cwd = std::env::current_dir()?;
    let mut name: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.len() > 40 {
        name = name.split_off(name.len() - 40);
    }
    Ok(PathBuf::from(format!("/var/tmp/seatmap-{name}")).join("pgdata"))
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Ok(std::env::current_dir()?.join(path))
    }
}

fn tail(path: &Path, lines: usize) -> String {
    let mut text = String::new();
    if let Ok(mut file) = fs::File::open(path) {
        let _ = file.read_to_string(&mut text);
    }
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

//! A proxy between the app and PostgreSQL that counts round trips: each
//! time a client sends something after the server has answered it, that
//! is one more trip over the wire. Statements pipelined together (sent
//! before any answer) are one trip, which is what they cost in latency;
//! a statement awaited before the next is sent is a trip of its own.
//!
//! Only the connections whose `application_name` is the app's pool
//! ("seatmap") are counted: the live feed's polls ("seatmap-live") and the
//! test's own connections pass through uncounted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone)]
pub struct WireCounter {
    /// While false, the live feed's connections ("seatmap-live") are held
    /// at the door: the feed can't take its first snapshot.
    live_feed_through: Arc<tokio::sync::watch::Sender<bool>>,
    round_trips: Arc<AtomicU64>,
    /// Statements sent: each Execute of the extended protocol, and each
    /// simple query (`BEGIN`, `COMMIT`, a `SET LOCAL`).
    statements: Arc<AtomicU64>,
    /// What each counted trip began with, to say what a budget was spent on.
    trips: Arc<Mutex<Vec<String>>>,
    pub port: u16,
}

impl WireCounter {
    /// Listens on an ephemeral loopback port, forwarding to `upstream`.
    pub async fn start(upstream: tokio_postgres::Config) -> WireCounter {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let counter = WireCounter {
            live_feed_through: Arc::new(tokio::sync::watch::channel(true).0),
            round_trips: Arc::default(),
            statements: Arc::default(),
            trips: Arc::default(),
            port,
        };
        let shared = counter.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let shared = shared.clone();
                tokio::spawn(async move {
                    let _ = relay(client, &upstream, shared).await;
                });
            }
        });
        counter
    }

    /// A connection string for the app that goes through this counter to
    /// `upstream`'s database.
    pub fn conninfo(&self, upstream: &tokio_postgres::Config) -> String {
        let mut conninfo = format!(
            "host=127.0.0.1 port={} dbname={}",
            self.port,
            upstream.get_dbname().unwrap()
        );
        if let Some(user) = upstream.get_user() {
            conninfo.push_str(&format!(" user={user}"));
        }
        if let Some(password) = upstream.get_password() {
            conninfo.push_str(&format!(" password={}", String::from_utf8_lossy(password)));
        }
        conninfo
    }

    /// Holds the live feed's connections at the door until
    /// [`let_the_live_feed_through`](Self::let_the_live_feed_through).
    pub fn hold_the_live_feed(&self) {
        self.live_feed_through.send_replace(false);
    }

    pub fn let_the_live_feed_through(&self) {
        self.live_feed_through.send_replace(true);
    }

    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::SeqCst)
    }

    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::SeqCst)
    }

    /// The trips counted after the first `from`, each as the SQL it began with.
    pub fn trips_since(&self, from: u64) -> Vec<String> {
        self.trips.lock().unwrap()[from as usize..].to_vec()
    }
}

async fn relay(
    mut client: TcpStream,
    upstream: &tokio_postgres::Config,
    counter: WireCounter,
) -> std::io::Result<()> {
    // The startup message: length (4 bytes, itself included), then protocol
    // and name/value pairs. It says which connection this is.
    let mut length = [0u8; 4];
    client.read_exact(&mut length).await?;
    let mut startup = vec![0u8; u32::from_be_bytes(length) as usize - 4];
    client.read_exact(&mut startup).await?;
    let name = application_name(&startup);
    let counted = name.as_deref() == Some("seatmap");
    if name.as_deref() == Some("seatmap-live") {
        let mut through = counter.live_feed_through.subscribe();
        let _ = through.wait_for(|through| *through).await;
    }
    let port = *upstream.get_ports().first().unwrap_or(&5432);
    let server: Box<dyn Stream> = match upstream.get_hosts().first() {
        Some(tokio_postgres::config::Host::Unix(dir)) => {
            Box::new(tokio::net::UnixStream::connect(dir.join(format!(".s.PGSQL.{port}"))).await?)
        }
        Some(tokio_postgres::config::Host::Tcp(host)) => {
            Box::new(TcpStream::connect((host.as_str(), port)).await?)
        }
        None => Box::new(TcpStream::connect(("127.0.0.1", port)).await?),
    };
    let (mut server_read, mut server_write) = tokio::io::split(server);
    server_write.write_all(&length).await?;
    server_write.write_all(&startup).await?;
    let (mut client_read, mut client_write) = client.into_split();
    // Whether the server has answered since the client last sent anything.
    let answered = Arc::new(AtomicBool::new(true));
    let answered_up = answered.clone();
    let up = async move {
        let mut buffer = vec![0u8; 64 * 1024];
        let mut messages = Messages::default();
        loop {
            let read = client_read.read(&mut buffer).await?;
            if read == 0 {
                return Ok::<_, std::io::Error>(());
            }
            let statements = messages.statements_in(&buffer[..read]);
            if counted {
                counter.statements.fetch_add(statements, Ordering::SeqCst);
            }
            if answered_up.swap(false, Ordering::SeqCst) && counted {
                let mut trips = counter.trips.lock().unwrap();
                trips.push(describe(&buffer[..read]));
                counter.round_trips.fetch_add(1, Ordering::SeqCst);
            }
            server_write.write_all(&buffer[..read]).await?;
        }
    };
    let down = async move {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let read = server_read.read(&mut buffer).await?;
            if read == 0 {
                return Ok::<_, std::io::Error>(());
            }
            client_write.write_all(&buffer[..read]).await?;
            answered.store(true, Ordering::SeqCst);
        }
    };
    tokio::select! {
        outcome = up => outcome,
        outcome = down => outcome,
    }
}

/// The client's messages after startup, each a type byte and a length
/// (itself included), split across reads as TCP pleases.
#[derive(Default)]
struct Messages {
    /// Bytes of a message header not yet complete.
    header: Vec<u8>,
    /// Bytes of the current message's body still to come.
    body_left: usize,
}

impl Messages {
    /// How many statements begin in `bytes`: Execute ('E') and simple
    /// Query ('Q') messages.
    fn statements_in(&mut self, mut bytes: &[u8]) -> u64 {
        let mut statements = 0;
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len());
                self.body_left -= skip;
                bytes = &bytes[skip..];
                continue;
            }
            let need = 5 - self.header.len();
            let take = need.min(bytes.len());
            self.header.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.header.len() == 5 {
                if matches!(self.header[0], b'E' | b'Q') {
                    statements += 1;
                }
                let length = u32::from_be_bytes(self.header[1..5].try_into().unwrap()) as usize;
                self.body_left = length.saturating_sub(4);
                self.header.clear();
            }
        }
        statements
    }
}

trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

fn application_name(startup: &[u8]) -> Option<String> {
    let fields: Vec<&[u8]> = startup.get(4..)?.split(|b| *b == 0).collect();
    fields
        .chunks(2)
        .find(|pair| pair[0] == b"application_name")
        .and_then(|pair| pair.get(1))
        .map(|value| String::from_utf8_lossy(value).into_owned())
}

/// The printable start of a trip's messages: enough to see its statements.
fn describe(bytes: &[u8]) -> String {
    let text: String = bytes
        .iter()
        .map(|b| match b {
            b' '..=b'~' => *b as char,
            _ => ' ',
        })
        .collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    words.join(" ").chars().take(160).collect()
}

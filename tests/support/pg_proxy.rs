//! A TCP proxy on 127.0.0.1 in front of a PostgreSQL server, for tests that cut a
//! connection part-way through a transaction. It reads the client's side as the protocol
//! frames it (an untyped start-up message, then a type byte and a length per message) and,
//! at the `nth` `COMMIT` a client sends through it (counted over every connection), resets
//! the client's connection (a TCP RST): before passing the `COMMIT` on (the server sees
//! its connection reset mid-transaction and rolls it back), or once the server has
//! answered it (the commit made, its answer lost on the way).

#![allow(dead_code)] // Each test file uses its own share of these.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Where the connection is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The `COMMIT` never reaches the server.
    BeforeCommit,
    /// The server makes the commit; its answer never reaches the client.
    AfterCommit,
}

pub struct Proxy {
    pub port: u16,
    /// `COMMIT`s seen so far, over every connection.
    commits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// A proxy to the server on `server_port` cutting at its `nth` `COMMIT` as `cut` says.
    pub async fn start(server_port: u16, cut: Cut, nth: usize) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let commits = Arc::new(AtomicUsize::new(0));
        let seen = commits.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let server = TcpStream::connect(("127.0.0.1", server_port)).await;
                    if let Ok(server) = server {
                        let _ = relay(client, server, cut, nth, &seen).await;
                    }
                });
            }
        });
        Proxy {
            port,
            commits,
            task,
        }
    }

    /// The URL of `database` through the proxy.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://postgres:{}@127.0.0.1:{}/{database}",
            super::postgres::PASSWORD,
            self.port
        )
    }

    /// Whether the cut has been made.
    pub fn cut(&self, nth: usize) -> bool {
        self.commits.load(Ordering::SeqCst) >= nth
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Passes bytes both ways until either side closes, or until the cut.
async fn relay(
    mut client: TcpStream,
    mut server: TcpStream,
    cut: Cut,
    nth: usize,
    commits: &AtomicUsize,
) -> std::io::Result<()> {
    let mut frames = Frames::default();
    let (mut up, mut down) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        tokio::select! {
            read = client.read(&mut up) => {
                let n = read?;
                if n == 0 {
                    return Ok(());
                }
                let (pass, commit) = frames.feed(&up[..n], commits, nth);
                server.write_all(&pass).await?;
                if let Some(commit) = commit {
                    if cut == Cut::AfterCommit {
                        server.write_all(&commit).await?;
                        // The server's answer to it: read, and never passed on.
                        let _ = server.read(&mut down).await?;
                    }
                    client.set_zero_linger()?;
                    return Ok(()); // Both dropped: the client's connection reset.
                }
            }
            read = server.read(&mut down) => {
                let n = read?;
                if n == 0 {
                    return Ok(());
                }
                client.write_all(&down[..n]).await?;
            }
        }
    }
}

/// The client's side of a connection, cut into whole messages.
#[derive(Default)]
struct Frames {
    pending: Vec<u8>,
    /// Whether the start-up message has gone by (the messages after it have a type byte).
    started: bool,
}

/// The start-up message's protocol version 3.0 (an SSL or GSS request, or a cancel,
/// carries another code there).
const PROTOCOL_3: u32 = 196_608;

impl Frames {
    /// Takes `bytes`: gives the whole messages to pass on, and the `nth` `COMMIT` (held
    /// back) when it is among them.
    fn feed(
        &mut self,
        bytes: &[u8],
        commits: &AtomicUsize,
        nth: usize,
    ) -> (Vec<u8>, Option<Vec<u8>>) {
        self.pending.extend_from_slice(bytes);
        let mut pass = Vec::new();
        while let Some(len) = self.next_len() {
            let message: Vec<u8> = self.pending.drain(..len).collect();
            if !self.started {
                let code = u32::from_be_bytes(message[4..8].try_into().unwrap());
                self.started = code == PROTOCOL_3;
            } else if message[0] == b'Q' && message[5..] == *b"COMMIT\0" {
                let count = commits.fetch_add(1, Ordering::SeqCst) + 1;
                if count == nth {
                    return (pass, Some(message));
                }
            }
            pass.extend_from_slice(&message);
        }
        (pass, None)
    }

    /// The length of the next message when all of it is pending.
    fn next_len(&self) -> Option<usize> {
        let at = usize::from(self.started);
        let len = self.pending.get(at..at + 4)?;
        let len = at + u32::from_be_bytes(len.try_into().unwrap()) as usize;
        (self.pending.len() >= len && len >= at + 4).then_some(len)
    }
}

//! TLS to PostgreSQL with libpq's meaning, on rustls and its `ring` provider: the
//! configuration a [`Tls`] asks for (the roots from a file or the system's store, the
//! client's certificate and key, SNI, the `postgresql` ALPN libpq 17 sends), the driver's
//! TLS connector over it with channel binding, the attempts a mode makes (`allow`: without
//! TLS, then with it; `prefer`: with it when offered, then without after a TLS failure;
//! every other mode TLS or nothing), and a refusal that names the server, the mode and
//! what failed. `verify-ca` and `verify-full` are never weakened: no attempt without TLS,
//! no certificate let through unchecked.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::config::SslMode as DriverMode;
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect};
use tokio_postgres::{Client, Config, Connection, Socket};

use super::certificate::{self, Verifier};
use super::libpq::{Roots, SslMode, Tls, Verify};

/// The driver's TLS connector: one rustls configuration, and what messages say of it.
#[derive(Clone)]
pub struct Connector {
    config: Arc<ClientConfig>,
    mode: SslMode,
    /// `sslnegotiation=direct`, for messages.
    direct: bool,
    /// Where the roots come from (`sslrootcert=ca.pem`), for messages.
    roots: String,
    /// Set once a handshake has begun (`prefer` goes on without TLS after one failed).
    tried: Arc<AtomicBool>,
}

impl Connector {
    /// The configuration `tls` asks for, its files read; a refusal names the file and
    /// what is wrong with it.
    pub fn new(tls: &Tls) -> Result<Connector, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = match (&tls.roots, tls.verify()) {
            (_, Verify::Nothing) | (None, _) => None,
            (Some(roots), _) => Some(Arc::new(root_store(roots)?)),
        };
        let verifier = Verifier::new(
            roots,
            tls.verify() == Verify::ChainAndName,
            provider.signature_verification_algorithms,
        );
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier));
        let mut config = match &tls.client {
            Some((cert, key)) => {
                let chain = certificates("sslcert", cert)?;
                builder
                    .with_client_auth_cert(chain, private_key(key)?)
                    .map_err(|e| {
                        format!(
                            "sslcert {} and sslkey {}: {e}",
                            cert.display(),
                            key.display()
                        )
                    })?
            }
            None => builder.with_no_client_auth(),
        };
        config.enable_sni = tls.sni;
        config.alpn_protocols = vec![b"postgresql".to_vec()];
        Ok(Connector {
            config: Arc::new(config),
            mode: tls.mode,
            direct: tls.direct,
            roots: match &tls.roots {
                Some(Roots::File(path)) => format!("sslrootcert={}", path.display()),
                Some(Roots::System) => "the system's store (sslrootcert=system)".into(),
                None => "no root certificate".into(),
            },
            tried: Arc::new(AtomicBool::new(false)),
        })
    }

    fn tried(&self) -> bool {
        self.tried.load(Ordering::SeqCst)
    }
}

/// The roots `roots` names.
fn root_store(roots: &Roots) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::File(path) => {
            for cert in certificates("sslrootcert", path)? {
                store
                    .add(cert)
                    .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            }
        }
        Roots::System => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(
                    "sslrootcert=system: the system's store holds no certificate authority \
                     (SSL_CERT_FILE and SSL_CERT_DIR name another)"
                        .into(),
                );
            }
        }
    }
    Ok(store)
}

/// The PEM certificates of the file `what` names (one at least).
fn certificates(what: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let refused = |e: String| format!("{what} {}: {e}", path.display());
    let found: Vec<_> = CertificateDer::pem_file_iter(path)
        .map_err(|e| refused(e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| refused(e.to_string()))?;
    if found.is_empty() {
        return Err(refused(
            "holds no certificate (PEM: -----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    Ok(found)
}

/// The client's key: readable by its owner alone (libpq's rule: or by root's group too,
/// for a key root owns), not encrypted.
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let refused = |e: &str| format!("sslkey {}: {e}", path.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).map_err(|e| refused(&e.to_string()))?;
        let others = if meta.uid() == 0 { 0o037 } else { 0o077 };
        if meta.mode() & others != 0 {
            return Err(refused(&format!(
                "others can read it (mode {:o}); make it readable by you alone: chmod 600",
                meta.mode() & 0o777
            )));
        }
    }
    let text = std::fs::read(path).map_err(|e| refused(&e.to_string()))?;
    let encrypted = |marker: &[u8]| text.windows(marker.len()).any(|w| w == marker);
    if encrypted(b"ENCRYPTED PRIVATE KEY") || encrypted(b"Proc-Type: 4,ENCRYPTED") {
        return Err(refused(
            "the key is encrypted (it needs a passphrase), which this tool does not read; \
             write it out decrypted, readable by you alone (openssl pkey -in KEY -out \
             KEY.plain; chmod 600 KEY.plain)",
        ));
    }
    PrivateKeyDer::from_pem_slice(&text).map_err(|e| {
        refused(&format!(
            "no private key read ({e}; PEM: -----BEGIN PRIVATE KEY----- or an RSA or EC key)"
        ))
    })
}

impl<S> MakeTlsConnect<S> for Connector
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type TlsConnect = Handshake;
    type Error = Refused;

    fn make_tls_connect(&mut self, host: &str) -> Result<Handshake, Refused> {
        Ok(Handshake {
            connector: self.clone(),
            host: host.to_string(),
        })
    }
}

/// A TLS handshake with one host.
pub struct Handshake {
    connector: Connector,
    host: String,
}

impl<S> TlsConnect<S> for Handshake
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type Error = Refused;
    type Future = Pin<Box<dyn Future<Output = Result<Stream<S>, Refused>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let Handshake { connector, host } = self;
            connector.tried.store(true, Ordering::SeqCst);
            let refused = |what: String| {
                Refused(format!(
                    "TLS with {host} (sslmode={}): {what}",
                    connector.mode.name()
                ))
            };
            let name = ServerName::try_from(host.clone())
                .map_err(|_| refused("no host name or address to check".into()))?;
            let tls = tokio_rustls::TlsConnector::from(connector.config.clone());
            match tls.connect(name, stream).await {
                Ok(stream) => Ok(Stream(stream)),
                Err(e) => Err(refused(match rustls_error(&e) {
                    Some(e) => certificate::explain(e, &connector.roots),
                    None if connector.direct => format!(
                        "the server did not answer a direct TLS handshake ({e}): \
                         sslnegotiation=direct takes PostgreSQL 17 or later; leave it out \
                         for an older server"
                    ),
                    None => e.to_string(),
                })),
            }
        })
    }
}

/// The rustls error an I/O error carries.
fn rustls_error(e: &io::Error) -> Option<&rustls::Error> {
    e.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Why TLS failed, in words.
#[derive(Debug)]
pub struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A TLS connection to the server.
pub struct Stream<S>(tokio_rustls::client::TlsStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> tokio_postgres::tls::TlsStream for Stream<S> {
    /// `tls-server-end-point`: the hash of the certificate the server showed.
    fn channel_binding(&self) -> ChannelBinding {
        let (_, session) = self.0.get_ref();
        let cert = session.peer_certificates().and_then(|c| c.first());
        match cert.and_then(|c| certificate::end_point_hash(c)) {
            Some(hash) => ChannelBinding::tls_server_end_point(hash),
            None => ChannelBinding::none(),
        }
    }
}

/// A connection the driver made, and its task.
pub type Connected = (Client, Connection<Socket, Stream<Socket>>);

/// Why connecting failed: the last attempt's error, and the TLS failure before it that
/// `prefer` went on from without TLS.
pub struct Failed {
    pub error: tokio_postgres::Error,
    pub before: Option<String>,
}

/// Connects as `tls.mode` does: `allow` without TLS first, then with it when the server
/// refused that; `prefer` with TLS when the server offers it, then without when the TLS
/// connection failed (libpq's behaviour); any other mode as `config` says (TLS or none).
pub async fn connect(
    config: &Config,
    tls: &Tls,
    connector: &Connector,
) -> Result<Connected, Failed> {
    let first = config.connect(connector.clone()).await;
    let again = match (tls.mode, &first) {
        (SslMode::Allow, Err(e)) if e.as_db_error().is_some() => DriverMode::Require,
        (SslMode::Prefer, Err(_)) if connector.tried() => DriverMode::Disable,
        _ => {
            return first.map_err(|error| Failed {
                error,
                before: None,
            });
        }
    };
    let before = first.err().map(|e| crate::sync::libpq::with_causes(&e));
    let mut config = config.clone();
    config.ssl_mode(again);
    config
        .connect(connector.clone())
        .await
        .map_err(|error| Failed {
            error,
            before: before.filter(|_| again == DriverMode::Disable),
        })
}

/// What went wrong connecting to `hosts`, in words where TLS is the cause: the handshake
/// failed (the server's certificate refused, said by [`Refused`]); the server offered no
/// TLS where the mode needs it; it ended the session with an alert (a client certificate
/// it asks for or refuses).
pub fn refusal(failed: &Failed, tls: &Tls, hosts: &str) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&failed.error);
    while let Some(e) = cause {
        if let Some(refused) = e.downcast_ref::<Refused>() {
            return Some(refused.0.clone());
        }
        if e.to_string() == "server does not support TLS" {
            return Some(format!(
                "{hosts} offers no TLS, which sslmode={} requires",
                tls.mode.name()
            ));
        }
        if let Some(rustls::Error::AlertReceived(alert)) =
            e.downcast_ref::<io::Error>().and_then(rustls_error)
        {
            return Some(format!("{hosts}: {}", certificate::alert_received(*alert)));
        }
        cause = e.source();
    }
    None
}

//! The server's certificate as libpq checks it, on rustls: nothing (the connection is
//! encrypted, the server unauthenticated), its chain up to the roots (`verify-ca`), or the
//! chain and the host name (`verify-full`: the subject alternative names, or, as libpq,
//! the common name of a certificate that has none); its hash for channel binding
//! (`tls-server-end-point`); and a refusal in words (an unknown authority, a name not on
//! the certificate, an expired one).

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::verify_server_cert_signed_by_trust_anchor;
use rustls::crypto::{WebPkiSupportedAlgorithms, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, DigitallySignedStruct, Error, RootCertStore, SignatureScheme};

/// The check of the server's certificate a mode asks for.
#[derive(Debug)]
pub struct Verifier {
    /// None: the certificate is not checked (the handshake's signatures still are).
    roots: Option<Arc<RootCertStore>>,
    /// Whether the host name is checked too.
    name: bool,
    algorithms: WebPkiSupportedAlgorithms,
}

impl Verifier {
    pub fn new(
        roots: Option<Arc<RootCertStore>>,
        name: bool,
        algorithms: WebPkiSupportedAlgorithms,
    ) -> Verifier {
        Verifier {
            roots,
            name,
            algorithms,
        }
    }
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            roots,
            intermediates,
            now,
            self.algorithms.all,
        )?;
        if self.name {
            match rustls::client::verify_server_name(&cert, server_name) {
                // No host name or address among the subject alternative names: libpq
                // reads the common name.
                Err(Error::InvalidCertificate(CertificateError::NotValidForNameContext {
                    presented,
                    ..
                })) if !presented.iter().any(|n| host_name(n).is_some()) => {
                    by_common_name(end_entity, server_name)?
                }
                other => other?,
            }
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A certificate without subject alternative names is for `server_name` when one of its
/// common names is (`*.example.com` standing for one label, as libpq reads it).
fn by_common_name(cert: &CertificateDer<'_>, server_name: &ServerName<'_>) -> Result<(), Error> {
    let host = server_name.to_str();
    let names = common_names(cert).unwrap_or_default();
    if names.iter().any(|n| name_matches(n, &host)) {
        return Ok(());
    }
    Err(Error::InvalidCertificate(
        CertificateError::NotValidForNameContext {
            expected: server_name.to_owned(),
            presented: names,
        },
    ))
}

/// A subject alternative name as rustls shows it (`DnsName("db.local")`,
/// `IpAddress(10.0.0.1)`): the host name or address, when it is one.
fn host_name(presented: &str) -> Option<&str> {
    if let Some(name) = presented.strip_prefix("DnsName(\"") {
        return name.strip_suffix("\")");
    }
    presented.strip_prefix("IpAddress(")?.strip_suffix(')')
}

/// Whether the certificate's `pattern` names `host` (letters in either case; a leading
/// `*.` for one whole label).
fn name_matches(pattern: &str, host: &str) -> bool {
    let (pattern, host) = (pattern.to_ascii_lowercase(), host.to_ascii_lowercase());
    match pattern.strip_prefix("*.") {
        Some(suffix) => host
            .split_once('.')
            .is_some_and(|(label, rest)| !label.is_empty() && rest == suffix),
        None => pattern == host,
    }
}

/// The server certificate's hash for `tls-server-end-point` channel binding (RFC 5929):
/// by the hash of its signature algorithm, SHA-256 for MD5 and SHA-1; none for an
/// algorithm without one (the binding is then not offered, as the server does).
pub fn end_point_hash(cert: &[u8]) -> Option<Vec<u8>> {
    use ring::digest::{SHA256, SHA384, SHA512, digest};
    // 1.2.840.113549.1.1.x (RSA: 4 MD5, 5 SHA-1, 11 to 13 SHA-256 to SHA-512) and
    // 1.2.840.10045.4.1 (ECDSA with SHA-1), 1.2.840.10045.4.3.x (2 to 4: SHA-256 to 512).
    let algorithm = match signature_algorithm(cert)? {
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, x] => match x {
            0x04 | 0x05 | 0x0b => &SHA256,
            0x0c => &SHA384,
            0x0d => &SHA512,
            _ => return None,
        },
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01] => &SHA256,
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, x] => match x {
            0x02 => &SHA256,
            0x03 => &SHA384,
            0x04 => &SHA512,
            _ => return None,
        },
        _ => return None,
    };
    Some(digest(algorithm, cert).as_ref().to_vec())
}

/// A refusal of the server's certificate in words (`roots`: where the roots came from).
pub fn explain(e: &Error, roots: &str) -> String {
    let Error::InvalidCertificate(c) = e else {
        return match e {
            Error::AlertReceived(alert) => alert_received(*alert),
            other => other.to_string(),
        };
    };
    match c {
        CertificateError::UnknownIssuer => {
            format!("its certificate is not issued by an authority of {roots} (unknown authority)")
        }
        CertificateError::NotValidForName => "its certificate is not for that name".into(),
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => {
            let names: Vec<&str> = presented
                .iter()
                .map(|n| host_name(n).unwrap_or(n))
                .collect();
            let names = match names.as_slice() {
                [] => "no name".to_string(),
                names => names.join(", "),
            };
            format!(
                "its certificate is not for the name `{}` (it names {names})",
                expected.to_str()
            )
        }
        CertificateError::Expired => "its certificate has expired".into(),
        CertificateError::ExpiredContext { not_after, .. } => {
            format!("its certificate expired on {}", time(not_after))
        }
        CertificateError::NotValidYet => "its certificate is not valid yet".into(),
        CertificateError::NotValidYetContext { not_before, .. } => {
            format!("its certificate is valid from {} only", time(not_before))
        }
        other => format!(
            "its certificate is refused: {}",
            Error::InvalidCertificate(other.clone())
        ),
    }
}

/// An alert the server ended the handshake with, in words.
pub fn alert_received(alert: rustls::AlertDescription) -> String {
    use rustls::AlertDescription as A;
    let client = match alert {
        A::CertificateRequired => "; it asks for a client certificate (sslcert, sslkey)",
        A::BadCertificate | A::UnknownCA | A::CertificateUnknown | A::AccessDenied => {
            "; it did not accept the client certificate (sslcert)"
        }
        A::NoApplicationProtocol => "; it does not take direct TLS (sslnegotiation=direct)",
        _ => "",
    };
    format!("the server ended TLS with the alert `{alert:?}`{client}")
}

/// `2026-11-29 08:30:00 UTC`.
fn time(t: &UnixTime) -> String {
    let secs = i64::try_from(t.as_secs()).unwrap_or(i64::MAX);
    match chrono::DateTime::from_timestamp(secs, 0) {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        None => format!("{secs} s after 1970"),
    }
}

/// The certificate's signature algorithm (its object identifier's bytes): `Certificate
/// ::= SEQUENCE { tbsCertificate, signatureAlgorithm SEQUENCE { algorithm OID, ... }, ... }`.
fn signature_algorithm(cert: &[u8]) -> Option<&[u8]> {
    let (_, cert, _) = element(cert)?;
    let (_, _, after_tbs) = element(cert)?;
    let (_, algorithm, _) = element(after_tbs)?;
    let (tag, oid, _) = element(algorithm)?;
    (tag == OID).then_some(oid)
}

/// The subject's common names: `tbsCertificate ::= SEQUENCE { [0] version OPTIONAL,
/// serialNumber, signature, issuer, validity, subject Name, ... }`, a name a sequence of
/// sets of (type, value).
fn common_names(cert: &[u8]) -> Option<Vec<String>> {
    const COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];
    let (_, cert, _) = element(cert)?;
    let (_, mut fields, _) = element(cert)?;
    if fields.first() == Some(&0xa0) {
        fields = element(fields)?.2;
    }
    for _ in 0..4 {
        fields = element(fields)?.2;
    }
    let (_, mut sets, _) = element(fields)?;
    let mut names = Vec::new();
    while !sets.is_empty() {
        let (_, mut set, rest) = element(sets)?;
        sets = rest;
        while !set.is_empty() {
            let (_, pair, rest) = element(set)?;
            set = rest;
            let (tag, kind, value) = element(pair)?;
            if tag == OID && kind == COMMON_NAME {
                let (_, text, _) = element(value)?;
                names.push(String::from_utf8_lossy(text).into_owned());
            }
        }
    }
    Some(names)
}

/// DER's tag of an object identifier.
const OID: u8 = 0x06;

/// The first DER element of `input`: its tag, its contents and what follows it (none when
/// it is cut short or its length takes more than four bytes).
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (len, rest) = rest.split_at(n);
        (len.iter().fold(0, |a, &b| (a << 8) | usize::from(b)), rest)
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_as_libpq_matches_them() {
        assert!(name_matches("db.example.com", "DB.example.com"));
        assert!(name_matches("*.example.com", "db.example.com"));
        assert!(!name_matches("*.example.com", "a.db.example.com"));
        assert!(!name_matches("*.example.com", "example.com"));
        assert!(!name_matches("*.example.com", ".example.com"));
        assert!(!name_matches("db.example.com", "db.example.org"));
    }

    #[test]
    fn der_that_is_cut_short_or_malformed_reads_as_nothing() {
        assert_eq!(element(&[0x30]), None);
        assert_eq!(element(&[0x30, 0x03, 0x01]), None);
        assert_eq!(element(&[0x30, 0x85, 1, 1, 1, 1, 1]), None);
        assert_eq!(element(&[0x30, 0x80]), None);
        assert_eq!(
            element(&[0x04, 0x01, 0xaa, 0xbb]),
            Some((0x04, &[0xaa][..], &[0xbb][..]))
        );
        for cut in 0..40 {
            let bytes: Vec<u8> = (0..cut).map(|i| (i * 37 % 256) as u8).collect();
            assert_eq!(end_point_hash(&bytes), None);
            let _ = common_names(&bytes);
        }
    }

    #[test]
    fn refusals_say_what_failed() {
        let unknown = Error::InvalidCertificate(CertificateError::UnknownIssuer);
        let said = explain(&unknown, "sslrootcert=ca.pem");
        assert!(
            said.contains("unknown authority") && said.contains("ca.pem"),
            "{said}"
        );
        let name = Error::InvalidCertificate(CertificateError::NotValidForNameContext {
            expected: ServerName::try_from("127.0.0.1").unwrap(),
            presented: vec![
                "DnsName(\"localhost\")".into(),
                "IpAddress(10.0.0.1)".into(),
                "DirectoryName".into(),
            ],
        });
        assert_eq!(
            explain(&name, ""),
            "its certificate is not for the name `127.0.0.1` (it names localhost, 10.0.0.1, \
             DirectoryName)"
        );
        let expired = Error::InvalidCertificate(CertificateError::ExpiredContext {
            time: UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_800_000_000)),
            not_after: UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_577_923_200)),
        });
        assert_eq!(
            explain(&expired, ""),
            "its certificate expired on 2020-01-02 00:00:00 UTC"
        );
        let alert = Error::AlertReceived(rustls::AlertDescription::CertificateRequired);
        assert!(explain(&alert, "").contains("client certificate"));
    }
}

//! Certificates for TLS tests, made with the machine's `openssl`: an authority, and
//! certificates it issues (a server's for `localhost`, a client's for a user, one without
//! subject alternative names, one that expired in 2020), each key readable by its owner
//! alone. EC P-256 keys: made in milliseconds.

#![allow(dead_code)] // Each test file uses its own share of these.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A certificate and its key.
#[derive(Clone, Debug)]
pub struct Issued {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// A certificate authority in its own folder.
pub struct Authority {
    dir: PathBuf,
    pub root: Issued,
}

impl Authority {
    /// A new self-signed authority named `name` in `dir/name/`.
    pub fn new(dir: &Path, name: &str) -> Authority {
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let root = Issued {
            cert: dir.join("ca.crt"),
            key: dir.join("ca.key"),
        };
        openssl(
            Command::new("openssl")
                .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
                .args(["ec_paramgen_curve:prime256v1", "-nodes", "-days", "30"])
                .arg("-subj")
                .arg(format!("/CN={name}"))
                .arg("-keyout")
                .arg(&root.key)
                .arg("-out")
                .arg(&root.cert),
        );
        std::fs::write(dir.join("index.txt"), "").unwrap();
        std::fs::write(dir.join("serial"), "1000\n").unwrap();
        let config = format!(
            "[ca]\ndefault_ca = test\n[test]\ndatabase = {0}/index.txt\nnew_certs_dir = {0}\n\
             serial = {0}/serial\ndefault_md = sha256\npolicy = any\nunique_subject = no\n\
             [any]\ncommonName = supplied\n",
            dir.display()
        );
        std::fs::write(dir.join("ca.cnf"), config).unwrap();
        Authority { dir, root }
    }

    /// A server's certificate for `localhost` (and nothing else).
    pub fn server(&self, name: &str) -> Issued {
        self.issue(name, "localhost", Some("DNS:localhost"), "serverAuth", None)
    }

    /// A client's certificate for the user `user` (PostgreSQL's `clientcert=verify-full`
    /// compares its common name with the user's).
    pub fn client(&self, name: &str, user: &str) -> Issued {
        self.issue(name, user, None, "clientAuth", None)
    }

    /// A certificate issued for `common_name`, with these subject alternative names (none:
    /// no such extension), this extended key usage, valid from and to these
    /// `YYYYMMDDHHMMSSZ` dates (30 days from now when none).
    pub fn issue(
        &self,
        name: &str,
        common_name: &str,
        alt_names: Option<&str>,
        usage: &str,
        dates: Option<(&str, &str)>,
    ) -> Issued {
        let issued = Issued {
            cert: self.dir.join(format!("{name}.crt")),
            key: self.dir.join(format!("{name}.key")),
        };
        let request = self.dir.join(format!("{name}.csr"));
        openssl(
            Command::new("openssl")
                .args(["req", "-new", "-newkey", "ec", "-pkeyopt"])
                .args(["ec_paramgen_curve:prime256v1", "-nodes"])
                .arg("-subj")
                .arg(format!("/CN={common_name}"))
                .arg("-keyout")
                .arg(&issued.key)
                .arg("-out")
                .arg(&request),
        );
        let mut extensions = format!("extendedKeyUsage = {usage}\n");
        if let Some(alt) = alt_names {
            extensions.push_str(&format!("subjectAltName = {alt}\n"));
        }
        let extfile = self.dir.join(format!("{name}.ext"));
        std::fs::write(&extfile, extensions).unwrap();
        let mut ca = Command::new("openssl");
        ca.args(["ca", "-batch", "-notext", "-config"])
            .arg(self.dir.join("ca.cnf"))
            .arg("-cert")
            .arg(&self.root.cert)
            .arg("-keyfile")
            .arg(&self.root.key)
            .arg("-in")
            .arg(&request)
            .arg("-out")
            .arg(&issued.cert)
            .arg("-extfile")
            .arg(&extfile);
        match dates {
            Some((from, to)) => ca.args(["-startdate", from, "-enddate", to]),
            None => ca.args(["-days", "30"]),
        };
        openssl(&mut ca);
        owner_only(&issued.key);
        issued
    }
}

/// The key encrypted with a passphrase, beside it.
pub fn encrypted(key: &Path) -> PathBuf {
    let out = key.with_extension("encrypted.key");
    openssl(
        Command::new("openssl")
            .args(["pkey", "-aes256", "-passout", "pass:test-only"])
            .arg("-in")
            .arg(key)
            .arg("-out")
            .arg(&out),
    );
    owner_only(&out);
    out
}

/// Readable by its owner alone, as a key must be.
pub fn owner_only(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn openssl(command: &mut Command) {
    let out = command
        .output()
        .expect("openssl runs (install it to run the TLS tests)");
    assert!(
        out.status.success(),
        "openssl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

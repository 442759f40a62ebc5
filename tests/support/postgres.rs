//! A real PostgreSQL server for a test: Debian's binaries (`.ci/run` installs them when
//! missing), a data folder under `target/postgres/`, a free loopback port, a password for
//! TCP logins (scram-sha-256), stopped and removed when dropped. Run as root, the server
//! runs as the `postgres` user the package creates (PostgreSQL refuses root).

#![allow(dead_code)] // Each test file uses its own share of these.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The superuser's password in every test server.
pub const PASSWORD: &str = "test-only-s3cret";

pub struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
    as_postgres: bool,
}

impl Postgres {
    /// A new server, named `name` in its folder.
    pub fn start(name: &str) -> Postgres {
        let server = Postgres::init(name);
        server.launch("");
        server
    }

    /// A new server that takes TLS connections only (`hostssl` lines alone in
    /// `pg_hba.conf`), showing the certificate `cert` (its key `key`), and checking
    /// clients' certificates against `client_ca`: the database `clientcert` requires one
    /// whose common name is the user's (`clientcert=verify-full`).
    pub fn start_tls(name: &str, cert: &Path, key: &Path, client_ca: &Path) -> Postgres {
        let server = Postgres::init(name);
        server.install("client_ca.crt", client_ca);
        server.install("server.crt", cert);
        server.install("server.key", key);
        let hba = "local all all trust\n\
                   hostssl clientcert all 127.0.0.1/32 scram-sha-256 clientcert=verify-full\n\
                   hostssl clientcert all ::1/128 scram-sha-256 clientcert=verify-full\n\
                   hostssl all all 127.0.0.1/32 scram-sha-256\n\
                   hostssl all all ::1/128 scram-sha-256\n";
        std::fs::write(server.dir.join("data/pg_hba.conf"), hba).unwrap();
        let files = server.dir.display();
        server.launch(&format!(
            " -c ssl=on -c ssl_cert_file={files}/server.crt -c ssl_key_file={files}/server.key \
             -c ssl_ca_file={files}/client_ca.crt"
        ));
        server
    }

    /// The server shows the certificate `cert` (its key `key`) from now on: restarted.
    pub fn use_certificate(&self, cert: &Path, key: &Path) {
        self.install("server.crt", cert);
        self.install("server.key", key);
        let data = self.dir.join("data").display().to_string();
        // Its log named again: a server writing to pg_ctl's output would hold it open.
        let log = self.dir.join("log").display().to_string();
        self.run(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-m", "fast", "-w", "restart"],
        );
    }

    /// Copies `from` into the server's folder as `name`, the server's own and readable by
    /// it alone (PostgreSQL refuses a key others can read).
    fn install(&self, name: &str, from: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let to = self.dir.join(name);
        std::fs::copy(from, &to).unwrap();
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600)).unwrap();
        if self.as_postgres {
            let status = Command::new("chown").arg("postgres:").arg(&to).status();
            assert!(status.unwrap().success());
        }
    }

    /// A server's data folder, made (not started).
    fn init(name: &str) -> Postgres {
        let bin = binaries().unwrap_or_else(|| {
            panic!(
                "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin: \
                 install Debian's `postgresql` package (`.ci/run` does)"
            )
        });
        let as_postgres = is_root();
        let dir = folder(as_postgres).join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pwfile = dir.join("pwfile");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if as_postgres {
            assert!(
                Command::new("chown")
                    .args(["-R", "postgres:"])
                    .arg(&dir)
                    .status()
                    .unwrap()
                    .success()
            );
        }
        let data = dir.join("data");
        let server = Postgres {
            dir: dir.clone(),
            bin,
            port: free_port(),
            as_postgres,
        };
        server.run(
            "initdb",
            &[
                "-D",
                &data.display().to_string(),
                "-U",
                "postgres",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                &format!("--pwfile={}", pwfile.display()),
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        server
    }

    /// Starts the server with its options and `more`.
    fn launch(&self, more: &str) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40{more}",
            self.port,
            self.dir.display()
        );
        let data = self.dir.join("data").display().to_string();
        let log = self.dir.join("log").display().to_string();
        self.run(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-o", &options, "-w", "start"],
        );
    }

    /// `postgres://postgres:PASSWORD@127.0.0.1:PORT/database`.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://postgres:{PASSWORD}@127.0.0.1:{}/{database}",
            self.port
        )
    }

    /// The same without the password (given by `PGPASSWORD` or a password file).
    pub fn url_without_password(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates `database`.
    pub fn create_database(&self, database: &str) {
        self.psql("postgres", &format!("CREATE DATABASE \"{database}\""));
    }

    /// Runs `sql` in `database` and gives its rows, one line each (unaligned, tuples only).
    /// The statements go through psql's input (they can be longer than an argument).
    pub fn psql(&self, database: &str, sql: &str) -> String {
        use std::io::Write;
        let port = self.port.to_string();
        let mut child = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
            ])
            .args(["-p", &port, "-U", "postgres", "-d", database, "-f", "-"])
            .env("PGPASSWORD", PASSWORD)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(sql.as_bytes()).unwrap();
        input.write_all(b";\n").unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "psql: {}: {}",
            sql.chars().take(300).collect::<String>(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// One of the server's tools, run as the `postgres` user when the tests run as root.
    fn tool(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    /// Stops every process of the server (the postmaster first, so that it starts no
    /// other) with SIGSTOP: the server is frozen, its system still answers TCP.
    pub fn freeze(&self) {
        let postmaster = self.postmaster();
        signal("STOP", &[postmaster]);
        signal("STOP", &children(postmaster));
    }

    /// Lets the server's processes go on (SIGCONT).
    pub fn thaw(&self) {
        let postmaster = self.postmaster();
        let mut all = children(postmaster);
        all.push(postmaster);
        signal("CONT", &all);
    }

    /// How many server processes serve `database` (`pg_stat_activity`).
    pub fn sessions(&self, database: &str) -> usize {
        let sql = format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{database}'");
        self.psql("postgres", &sql).trim().parse().unwrap()
    }

    /// Waits (up to a minute) until no server process serves `database`: those of a run
    /// that ended while the server was frozen or cut off see their connection gone once
    /// they go on, and end (their transactions rolled back, their locks released).
    pub fn wait_for_no_sessions(&self, database: &str) {
        let start = std::time::Instant::now();
        while self.sessions(database) > 0 {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "a session of {database} is still there after a minute"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// The postmaster's process id (the first line of `postmaster.pid`).
    fn postmaster(&self) -> u32 {
        let pid = std::fs::read_to_string(self.dir.join("data/postmaster.pid")).unwrap();
        pid.lines().next().unwrap().trim().parse().unwrap()
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let out = self.tool(tool).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{tool} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // A test that failed while the server was frozen leaves no stopped process.
        if self.dir.join("data/postmaster.pid").exists() {
            self.thaw();
        }
        let data = self.dir.join("data").display().to_string();
        let _ = self
            .tool("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where the servers' folders go: `target/postgres/`, unless the `postgres` user (run as
/// root) could not reach it (a checkout under a private home), then the temporary folder.
fn folder(as_postgres: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let _ = std::fs::create_dir_all(&target);
    let reachable = target.canonicalize().is_ok_and(|t| {
        t.ancestors()
            .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    });
    if as_postgres && !reachable {
        return std::env::temp_dir().join("inspection-postgres");
    }
    target.join("postgres")
}

/// The newest PostgreSQL's `bin` folder (Debian keeps each version apart).
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// The processes whose parent is `parent` (from `/proc`).
fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // `pid (name) state ppid ...`: the name may hold spaces, not `)`.
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// Sends SIGname to `pids` (one that has ended meanwhile is passed over).
fn signal(name: &str, pids: &[u32]) {
    if pids.is_empty() {
        return;
    }
    let _ = Command::new("kill")
        .arg(format!("-{name}"))
        .args(pids.iter().map(u32::to_string))
        .stderr(std::process::Stdio::null())
        .status();
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

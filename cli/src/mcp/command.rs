//! `inspection mcp <interface>`: its flags, and the options they make.

use std::net::SocketAddr;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use super::{BUDGET, Options, Selection};
use crate::exit::Failure;

/// `mcp`, with a subcommand per interface given as its name and title.
pub fn command(interfaces: impl Iterator<Item = (&'static str, &'static str)>) -> Command {
    let mut mcp = Command::new("mcp")
        .about("Serve an interface's operations as MCP tools to an AI assistant: read-only unless allowed, every call checked first, answers sized for a context window")
        .subcommand_required(true);
    for (name, about) in interfaces {
        mcp = mcp.subcommand(flags(Command::new(name).about(about)));
    }
    mcp
}

fn flags(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("allow-writes")
            .long("allow-writes")
            .action(ArgAction::SetTrue)
            .help("Offer the operations that change the service too (creates, updates, deletes)"),
    )
    .arg(
        Arg::new("allow")
            .long("allow")
            .value_name("OP,...")
            .value_delimiter(',')
            .action(ArgAction::Append)
            .help("Offer these operations that change the service (by name: create_task)"),
    )
    .arg(
        Arg::new("tools")
            .long("tools")
            .value_name("OP,...|read|all")
            .help("Offer only these operations (default `read`: every read-only one, and those allowed)"),
    )
    .arg(
        Arg::new("dynamic")
            .long("dynamic")
            .action(ArgAction::SetTrue)
            .help("Offer three tools (list_operations, describe_operation, call_operation) instead of one per operation"),
    )
    .arg(
        Arg::new("listen")
            .long("listen")
            .value_name("ADDR")
            .value_parser(value_parser!(SocketAddr))
            .help("Serve the streamable HTTP transport on this loopback address (127.0.0.1:8931) instead of stdio"),
    )
    .arg(
        Arg::new("allow-origin")
            .long("allow-origin")
            .value_name("ORIGIN")
            .action(ArgAction::Append)
            .help("With --listen: let the web page at ORIGIN (https://app.example) call the server, with the CORS answers a browser needs; repeatable"),
    )
    .arg(
        Arg::new("token-file")
            .long("token-file")
            .value_name("PATH")
            .help("With --listen: every request must carry `Authorization: Bearer <the file's token>` (the file readable by its owner only)"),
    )
    .arg(
        Arg::new("describe")
            .long("describe")
            .action(ArgAction::SetTrue)
            .help("Print the tool list and its size in bytes, serve nothing"),
    )
}

/// The options of `mcp <interface>`'s matches.
pub fn options(m: &ArgMatches) -> Result<Options, Failure> {
    let list = |id: &str| -> Vec<String> {
        m.get_many::<String>(id)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let only = match m.get_one::<String>("tools").map(String::as_str) {
        None | Some("read") | Some("all") => None,
        Some(names) => Some(
            names
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect(),
        ),
    };
    let listen = m.get_one::<SocketAddr>("listen").copied();
    if let Some(addr) = listen
        && !addr.ip().is_loopback()
    {
        return Err(Failure::usage(format!(
            "--listen {addr}: a loopback address only (127.0.0.1, [::1]); the server acts with your credentials"
        )));
    }
    let allow_origins = list("allow-origin")
        .iter()
        .map(|o| normalize_origin(o).map_err(|e| Failure::usage(format!("--allow-origin {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    if !allow_origins.is_empty() && listen.is_none() {
        return Err(Failure::usage(
            "--allow-origin: only with --listen (stdio has no origins)".to_string(),
        ));
    }
    let token = match m.get_one::<String>("token-file") {
        None => None,
        Some(_) if listen.is_none() => {
            return Err(Failure::usage(
                "--token-file: only with --listen (stdio has no requests to check)".to_string(),
            ));
        }
        Some(path) => Some(read_token(std::path::Path::new(path))?),
    };
    Ok(Options {
        token,
        allow_origins,
        describe: m.get_flag("describe"),
        selection: Selection {
            only,
            writes: m.get_flag("allow-writes"),
            allowed: list("allow"),
        },
        dynamic: m.get_flag("dynamic"),
        listen,
        budget: BUDGET,
    })
}

/// The token in `path`: a file only its owner may read (else refused, as a key file is
/// by ssh), its text trimmed, not empty. Nothing of the token is ever printed.
fn read_token(path: &std::path::Path) -> Result<super::Secret, Failure> {
    let shown = path.display();
    let fail = |why: String| Failure::usage(format!("--token-file {shown}: {why}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(fail(
                "others may read it: make it readable by its owner only (chmod 600)".into(),
            ));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let token = text.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(fail("it must hold one token, without spaces".into()));
    }
    Ok(super::Secret(token.to_string()))
}

/// An origin as a browser sends it (`scheme://host[:port]`, lower case, no path), or why
/// it is not one.
fn normalize_origin(origin: &str) -> Result<String, String> {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Err(format!(
            "`{origin}` is not an origin: write scheme://host[:port]"
        ));
    };
    let valid = matches!(scheme, "http" | "https")
        && !rest.is_empty()
        && !rest.contains(['/', '?', '#', '@', ' ']);
    if valid {
        Ok(origin)
    } else {
        Err(format!(
            "`{origin}` is not an origin: write http(s)://host[:port], without a path"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allowed_origin_is_an_origin_without_a_path() {
        assert_eq!(
            normalize_origin("HTTPS://App.Example/").unwrap(),
            "https://app.example"
        );
        assert_eq!(
            normalize_origin("http://localhost:5173").unwrap(),
            "http://localhost:5173"
        );
        for bad in [
            "null",
            "app.example",
            "https://app.example/mcp",
            "ftp://x",
            "https://",
        ] {
            assert!(normalize_origin(bad).is_err(), "{bad}");
        }
    }
}

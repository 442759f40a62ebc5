//! Each record's document, written whole beside the records: from the record's pre-signed
//! link when it carries a live one (no credential, a pace of its own, several at once),
//! else through the API's form of the document; a link that fails (expired, refused,
//! missing, not the document, cut short) falls back to the API once.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Arg, ArgMatches, Command, value_parser};
use futures_util::StreamExt;
use inspection_runtime::Pacer;
use serde_json::Value;

use super::folder::{self, Folder};
use super::progress::{Progress, Way};
use super::{Link, Source};
use crate::exit::{Class, Failure};
use crate::output::Watched;

/// The flags of a tool (the export, the sync's `--documents`) whose records carry a
/// pre-signed link to their document.
pub fn link_flags(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("documents-from")
            .long("documents-from")
            .value_name("WAY")
            .value_parser(DocumentsFrom::NAMES.map(|(name, _)| name))
            .default_value("auto")
            .help("Where documents come from: the record's pre-signed link while it lives, else the API (auto), only links (link), only the API (api)"),
    )
    .arg(
        Arg::new("link-rate")
            .long("link-rate")
            .value_name("N/SECS")
            .help("The pace of link requests (e.g. 50/1), apart from the API's quota; unpaced unless given"),
    )
    .arg(
        Arg::new("link-concurrency")
            .long("link-concurrency")
            .value_name("N")
            .value_parser(value_parser!(u16).range(1..=256))
            .help(format!(
                "Links fetched at once (default {})",
                LINKS_AT_ONCE
            )),
    )
}

/// `--documents-from`, `--link-rate` and `--link-concurrency`, where the command has them.
pub fn link_options(m: &ArgMatches) -> Result<LinkOptions, Failure> {
    let mut options = LinkOptions::default();
    if let Ok(Some(way)) = m.try_get_one::<String>("documents-from") {
        options.from = DocumentsFrom::parse(way)
            .map_err(|e| Failure::usage(format!("--documents-from: {e}")))?;
    }
    if let Ok(Some(rate)) = m.try_get_one::<String>("link-rate") {
        options.rate = match crate::pace::RateLimit::parse(rate) {
            Ok(crate::pace::RateLimit::Off) => None,
            Ok(crate::pace::RateLimit::Limit(n, window)) => Some((n, window)),
            Err(e) => return Err(Failure::usage(format!("--link-rate: {e}"))),
        };
    }
    if let Ok(Some(n)) = m.try_get_one::<u16>("link-concurrency") {
        options.concurrency = usize::from(*n);
    }
    Ok(options)
}

/// Where documents come from (`--documents-from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DocumentsFrom {
    /// The record's link while it lives, the API otherwise or when the link fails.
    #[default]
    Auto,
    /// Only links: a record without a live link, or a link that fails, stops the export.
    Link,
    /// Only the API's form of the document; links are never touched.
    Api,
}

impl DocumentsFrom {
    /// Each way by the name `--documents-from` takes.
    pub const NAMES: [(&'static str, DocumentsFrom); 3] = [
        ("auto", DocumentsFrom::Auto),
        ("link", DocumentsFrom::Link),
        ("api", DocumentsFrom::Api),
    ];

    pub fn parse(text: &str) -> Result<DocumentsFrom, String> {
        DocumentsFrom::NAMES
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, way)| *way)
            .ok_or_else(|| format!("`{text}` is not `auto`, `link` or `api`"))
    }
}

/// How links are fetched: `--link-rate`, `--link-concurrency`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkOptions {
    pub from: DocumentsFrom,
    /// Requests per window to the links' host; `None`: unpaced (a 429 still waits).
    pub rate: Option<(u32, Duration)>,
    /// Documents fetched at once.
    pub concurrency: usize,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            from: DocumentsFrom::Auto,
            rate: None,
            concurrency: LINKS_AT_ONCE,
        }
    }
}

/// Links fetched at once unless `--link-concurrency` says otherwise: enough to hide a
/// storage host's latency, few enough to stay polite to it.
pub const LINKS_AT_ONCE: usize = 8;

/// Documents fetched at once through the API: a document that is still being prepared (a
/// 202) is waited out while others are fetched; the client's pacing still holds every
/// request to the quota.
pub const API_AT_ONCE: usize = 4;

/// A link is taken for dead this long before its lifetime ends (clocks and queues).
const LINK_MARGIN: Duration = Duration::from_secs(300);

/// One record's document to write: its id, and its link when it carries one.
pub struct Wanted {
    pub id: String,
    pub link: Option<String>,
}

impl Wanted {
    /// The record's id and, when the export reads links, its link.
    pub fn of(id: String, record: &Value, link: Option<&Link>) -> Wanted {
        let link = link
            .and_then(|l| record.get(l.field))
            .and_then(Value::as_str)
            .filter(|url| !url.is_empty())
            .map(str::to_string);
        Wanted { id, link }
    }
}

/// What one page's documents share while they are written.
pub struct Saver<'a> {
    pub source: &'a dyn Source,
    pub folder: &'a Folder,
    pub options: &'a LinkOptions,
    pub pacer: &'a Pacer,
    /// 429 answers from the links' host: whether links count against a rate limit is not
    /// documented, so the summary says what this run met.
    pub link_rate_limited: AtomicU64,
}

impl Saver<'_> {
    /// Writes each record's document whole (`.part`, synced, checked, renamed), a few at
    /// once; a document already there from an interrupted run is whole, so it is kept.
    /// `received` is when the page carrying the links was answered (their lifetime runs
    /// from then).
    pub async fn page(
        &self,
        wanted: Vec<Wanted>,
        received: Instant,
        progress: &mut Progress,
    ) -> Result<(), Failure> {
        let extension = self.source.about().document_extension.unwrap_or("bin");
        let dir = self.folder.file(folder::DOCUMENTS);
        let missing: Vec<(Wanted, PathBuf)> = wanted
            .into_iter()
            .map(|w| {
                let path = dir.join(folder::document_name(&w.id, extension));
                (w, path)
            })
            .filter(|(_, path)| !path.exists())
            .collect();
        let written = !missing.is_empty();
        let at_once = match self.options.from {
            DocumentsFrom::Api => API_AT_ONCE,
            DocumentsFrom::Auto | DocumentsFrom::Link => self.options.concurrency.max(1),
        };
        let mut saving = futures_util::stream::iter(missing)
            .map(|(wanted, path)| self.save(wanted, path, received))
            .buffer_unordered(at_once);
        let mut first_error = None;
        while let Some(saved) = saving.next().await {
            match saved {
                Ok(way) => progress.document(way, self.source.core().requests_sent()),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        drop(saving);
        if let Some(e) = first_error {
            return Err(e);
        }
        if written {
            crate::state::sync_dir(&dir)?;
        }
        Ok(())
    }

    /// One document, by the way `--documents-from` and its link's life allow.
    async fn save(&self, wanted: Wanted, path: PathBuf, received: Instant) -> Result<Way, Failure> {
        let link = match self.options.from {
            DocumentsFrom::Api => None,
            DocumentsFrom::Auto | DocumentsFrom::Link => {
                wanted.link.as_deref().filter(|_| self.alive(received))
            }
        };
        let Some(url) = link else {
            if self.options.from == DocumentsFrom::Link {
                return Err(self.no_link(&wanted.id, wanted.link.is_some()));
            }
            self.write(&path, Via::Api(&wanted.id)).await?;
            return Ok(Way::Api);
        };
        match (self.write(&path, Via::Link(url)).await, self.options.from) {
            (Ok(()), _) => Ok(Way::Link),
            // The disk refused it (full, read-only): the API's copy would fare no better.
            (Err(Broke::Here(e)), _) => Err(e),
            (Err(Broke::There(e)), DocumentsFrom::Link) => Err(Failure::new(
                e.class,
                format!("the document of {} from its link: {}", wanted.id, e.message),
            )),
            (Err(Broke::There(_)), _) => {
                self.write(&path, Via::Api(&wanted.id)).await?;
                Ok(Way::Fallback)
            }
        }
    }

    /// Whether links answered at `received` still live, with a margin.
    fn alive(&self, received: Instant) -> bool {
        self.source
            .about()
            .document_link
            .is_some_and(|link| received.elapsed() + LINK_MARGIN < link.lifetime)
    }

    fn no_link(&self, id: &str, expired: bool) -> Failure {
        let about = self.source.about();
        let field = about.document_link.map_or("link", |l| l.field);
        let why = if expired { "expired" } else { "missing" };
        Failure::new(
            Class::Failure,
            format!(
                "--documents-from link: the `{field}` of {id} is {why}; \
                 `--documents-from auto` takes the API's form of such a document"
            ),
        )
    }

    /// Writes a document whole: to `.part`, synced, checked to be the document when it
    /// came from a link, then renamed into place; nothing is left under its name if not.
    async fn write(&self, path: &Path, via: Via<'_>) -> Result<(), Broke> {
        let part = crate::output::part_path(path);
        let file = tokio::fs::File::create(&part)
            .await
            .map_err(|e| Broke::Here(Failure::io("create", &part, e)))?;
        let mut file = Watched::new(file);
        let fetched = match via {
            Via::Api(id) => self.source.document(id, &mut file).await.map(|_| None),
            Via::Link(url) => {
                let core = self.source.core();
                let fetched = core.fetch_presigned_paced_to(url, &mut file, self.pacer);
                let fetched = fetched.await;
                let limited = match &fetched {
                    Ok(f) => u64::from(f.rate_limited),
                    Err(e) => u64::from(e.status() == Some(429)),
                };
                self.link_rate_limited.fetch_add(limited, Ordering::Relaxed);
                fetched.map(|f| Some(f.content_type))
            }
        };
        let synced = match fetched {
            Ok(content_type) => file
                .get_mut()
                .sync_all()
                .await
                .map(|()| content_type)
                .map_err(|e| Broke::Here(Failure::io("write", &part, e))),
            Err(e) => Err(file
                .failure(&part)
                .map_or_else(|| Broke::There(Failure::from(e)), Broke::Here)),
        };
        drop(file);
        let checked = synced.and_then(|content_type| match (content_type, self.media()) {
            (Some(content_type), Some(media)) => check(&part, media, content_type.as_deref())
                .map_err(|why| Broke::There(Failure::new(Class::Failure, why))),
            _ => Ok(()),
        });
        if let Err(e) = checked {
            let _ = std::fs::remove_file(&part);
            return Err(e);
        }
        std::fs::rename(&part, path).map_err(|e| Broke::Here(Failure::io("create", path, e)))
    }

    /// The media type a link's document must be.
    fn media(&self) -> Option<&'static str> {
        self.source.about().document_link.map(|l| l.media_type)
    }
}

/// Why a document was not written: here (the disk refused it) or there (the link or the
/// API did not give it whole).
enum Broke {
    Here(Failure),
    There(Failure),
}

impl From<Broke> for Failure {
    fn from(broke: Broke) -> Failure {
        match broke {
            Broke::Here(e) | Broke::There(e) => e,
        }
    }
}

/// How a document is fetched.
#[derive(Clone, Copy)]
enum Via<'a> {
    /// The API's form, by the record's id.
    Api(&'a str),
    /// A pre-signed link.
    Link(&'a str),
}

/// Whether the file at `path`, answered with `content_type`, is a document of `media`:
/// a content type that names it (or says only "bytes"), and for a PDF its first bytes
/// and its end marker, so an HTML login page or a body cut short is not taken for it.
fn check(path: &Path, media: &str, content_type: Option<&str>) -> Result<(), String> {
    if let Some(content_type) = content_type {
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let generic = ["application/octet-stream", "binary/octet-stream"];
        if essence != media && !generic.contains(&essence.as_str()) {
            return Err(format!("the link answered {essence}, not {media}"));
        }
    }
    if media != "application/pdf" {
        return Ok(());
    }
    let (head, tail) = ends(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !head.starts_with(b"%PDF-") {
        return Err("the link answered something that does not start as a PDF".into());
    }
    if !tail.windows(5).any(|w| w == b"%%EOF") {
        return Err("the link's PDF has no end marker: it was cut short".into());
    }
    Ok(())
}

/// The first 8 and the last 1,024 bytes of a file (a PDF's end marker is within them).
fn ends(path: &Path) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut head = Vec::new();
    (&mut file).take(8).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(len.saturating_sub(1024)))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    Ok((head, tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("inspection-doc-{name}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_document_from_a_link_is_checked_to_be_one() {
        let pdf = file("pdf", b"%PDF-1.4\nbody\n%%EOF\n");
        assert_eq!(
            check(&pdf, "application/pdf", Some("application/pdf")),
            Ok(())
        );
        assert_eq!(
            check(&pdf, "application/pdf", Some("Binary/Octet-Stream")),
            Ok(())
        );
        assert_eq!(check(&pdf, "application/pdf", None), Ok(()));
        let html = check(&pdf, "application/pdf", Some("text/html; charset=utf-8")).unwrap_err();
        assert!(html.contains("text/html"), "{html}");
        let page = file("html", b"<html>sign in</html>");
        let refused = check(&page, "application/pdf", Some("application/pdf")).unwrap_err();
        assert!(refused.contains("does not start as a PDF"), "{refused}");
        let cut = file("cut", b"%PDF-1.4\nbody that stops");
        let refused = check(&cut, "application/pdf", None).unwrap_err();
        assert!(refused.contains("cut short"), "{refused}");
        for path in [pdf, page, cut] {
            std::fs::remove_file(path).unwrap();
        }
    }

    #[test]
    fn documents_from_reads_its_three_ways() {
        assert_eq!(DocumentsFrom::parse("auto"), Ok(DocumentsFrom::Auto));
        assert_eq!(DocumentsFrom::parse("link"), Ok(DocumentsFrom::Link));
        assert_eq!(DocumentsFrom::parse("api"), Ok(DocumentsFrom::Api));
        assert!(DocumentsFrom::parse("both").unwrap_err().contains("`both`"));
    }

    #[test]
    fn a_record_gives_its_link_only_when_the_export_reads_links() {
        let link = Link {
            field: "pdf_share_url",
            lifetime: Duration::from_secs(60),
            media_type: "application/pdf",
        };
        let record = serde_json::json!({"id": "a", "pdf_share_url": "https://s.test/a.pdf"});
        let wanted = Wanted::of("a".into(), &record, Some(&link));
        assert_eq!(wanted.link.as_deref(), Some("https://s.test/a.pdf"));
        assert_eq!(Wanted::of("a".into(), &record, None).link, None);
        let empty = serde_json::json!({"id": "a", "pdf_share_url": ""});
        assert_eq!(Wanted::of("a".into(), &empty, Some(&link)).link, None);
    }
}

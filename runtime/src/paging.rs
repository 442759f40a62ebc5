//! Pagination as streams: one page in memory at a time, until the service says there is
//! no next page. A walk always ends: a page met twice, or too many empty pages in a row,
//! is an error; and a walk that fails part-way can resume at the page that failed.

use std::collections::HashSet;

use futures_util::{StreamExt, TryStreamExt, stream};
use reqwest::Url;
use serde::de::DeserializeOwned;

use crate::error::{Error, Resume};
use crate::origin;
use crate::request::Request;
use crate::transport::{BoxStream, Core};

/// A page of a list, however it pages: its records.
pub trait Page: DeserializeOwned + Send + 'static {
    /// The type of the records the page lists.
    type Item: Send + 'static;
    /// The page's records, in order.
    fn into_items(self) -> Vec<Self::Item>;
    /// How many records the page holds.
    fn len(&self) -> usize;
    /// Whether the page holds no records.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A page of a cursor-paged list, as the generated envelope type describes it.
pub trait CursorPage: Page {
    /// An absolute (or base-relative) URL of the next page, when the service gives one.
    fn next_url(&self) -> Option<&str>;
    /// The raw cursor, sent back as the page parameter, when the service gives one.
    fn next_cursor(&self) -> Option<&str>;
    /// Whether the paging object marks this page the last: a property that leads on (the
    /// next link, the cursor) is there and `null`.
    fn marked_last(&self) -> bool;
    /// The page size the paging object echoes, if it does.
    fn page_size(&self) -> Option<u64>;
    /// What the page held, for an error: how many records, and the paging object.
    fn held(&self) -> String;
}

/// The record count and the paging object's property names, as [`CursorPage::held`] says
/// them: `20 records and paging {per_page, total}`.
pub fn describe_held(
    records: usize,
    paging_name: &str,
    paging: Option<serde_json::Value>,
) -> String {
    let paging = match paging {
        Some(serde_json::Value::Object(map)) if map.is_empty() => {
            format!("an empty `{paging_name}` object")
        }
        Some(serde_json::Value::Object(map)) => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            format!("`{paging_name}` {{{}}}", keys.join(", "))
        }
        Some(other) => format!("`{paging_name}` {other}"),
        None => format!("no `{paging_name}` object"),
    };
    format!("{records} records and {paging}")
}

/// Every page, starting with `first`. A next-page URL is preferred (it carries the
/// filters as the service means them) and is followed only within the base URL's origin;
/// otherwise the cursor is sent back as `page_param`.
///
/// `first` is the first request, or why it could not be built (a validation error),
/// which the stream then yields as its only item.
///
/// A page with records but neither a next link nor a cursor ends the walk only when it
/// shows it is the last (a `null` next link or cursor, or fewer records than the page
/// size); otherwise the walk fails with [`Error::PagingStalled`] saying what the page held,
/// rather than ending quietly as if the list were complete.
pub fn pages<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
    per_page_param: &'static str,
) -> BoxStream<P> {
    without_resume(pages_resumable(core, first, page_param, per_page_param))
}

/// Like [`pages`], each page with where the walk goes after it (`None`: it was the
/// last): a program that stores the page's records can store this beside them, and a
/// later walk started there with the builder's `resume` fetches nothing twice.
pub fn pages_resumable<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
    per_page_param: &'static str,
) -> BoxStream<(P, Option<Resume>)> {
    walk(core, first, move |core: &Core, req: &Request, page: &P| {
        if let Some(link) = page.next_url().filter(|l| !l.is_empty()) {
            return follow(core, req, link).map(Some);
        }
        if let Some(cursor) = page.next_cursor().filter(|c| !c.is_empty()) {
            let resume = Resume::Cursor(cursor.to_string());
            let mut next = req.clone();
            next.absolute = None;
            next.query.retain(|(k, _)| *k != page_param);
            next.query.push((page_param, cursor.to_string()));
            next.resumed = Some(resume.clone());
            return Ok(Some((next, resume)));
        }
        if page.is_empty() || page.marked_last() {
            return Ok(None);
        }
        let requested = req
            .query
            .iter()
            .find(|(k, _)| *k == per_page_param)
            .and_then(|(_, v)| v.parse::<u64>().ok());
        match page.page_size().or(requested) {
            Some(size) if (page.len() as u64) < size => Ok(None),
            _ => Err(Error::PagingStalled {
                path: req.describe(),
                reason: format!(
                    "the page held {}, but no next link, no cursor, and nothing saying it \
                         is the last (a null link, or fewer records than the page size); the \
                         list may go on, so the walk stops rather than end as if complete",
                    page.held()
                ),
            }),
        }
    })
}

/// Every item of every page.
pub fn items<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
    per_page_param: &'static str,
) -> BoxStream<P::Item> {
    flatten(pages::<P>(core, first, page_param, per_page_param))
}

/// A page of a list with `next` / `prev` links (the legacy interface).
pub trait LinksPage: Page {
    /// The `next` link (later records), when there is one.
    fn next_link(&self) -> Option<&str>;
    /// The `prev` link (earlier records), when there is one.
    fn prev_link(&self) -> Option<&str>;
}

/// Which link to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `next` links: later records.
    Forward,
    /// `prev` links: earlier records.
    Backward,
}

/// Every page, following `next` (or `prev`) links within the base URL's origin until
/// there is none, or a page comes back empty.
pub fn links_pages<P: LinksPage>(
    core: Core,
    first: Result<Request, Error>,
    direction: Direction,
) -> BoxStream<P> {
    without_resume(links_pages_resumable(core, first, direction))
}

/// Like [`links_pages`], each page with the link the walk follows after it (`None`: it
/// was the last), to store beside the page's records (see [`pages_resumable`]).
pub fn links_pages_resumable<P: LinksPage>(
    core: Core,
    first: Result<Request, Error>,
    direction: Direction,
) -> BoxStream<(P, Option<Resume>)> {
    walk(core, first, move |core: &Core, req: &Request, page: &P| {
        let link = match direction {
            Direction::Forward => page.next_link(),
            Direction::Backward => page.prev_link(),
        };
        match link.filter(|l| !l.is_empty() && !page.is_empty()) {
            Some(link) => follow(core, req, link).map(Some),
            None => Ok(None),
        }
    })
}

/// Every item of every linked page, in the order the pages come.
pub fn links_items<P: LinksPage>(
    core: Core,
    first: Result<Request, Error>,
    direction: Direction,
) -> BoxStream<P::Item> {
    flatten(links_pages::<P>(core, first, direction))
}

fn without_resume<P: Send + 'static>(pages: BoxStream<(P, Option<Resume>)>) -> BoxStream<P> {
    Box::pin(pages.map_ok(|(page, _)| page))
}

fn flatten<P: Page>(pages: BoxStream<P>) -> BoxStream<P::Item> {
    let s = pages
        .map_ok(|page| stream::iter(page.into_items().into_iter().map(Ok)))
        .try_flatten();
    Box::pin(s.boxed())
}

impl Walk {
    /// The step after a page, given what comes after it: the next page, unless the walk
    /// would go round in circles (a link or cursor met before: A -> B -> A) or has met too
    /// many empty pages in a row; with where the next page resumes from.
    fn then(
        mut self,
        next: Result<Option<(Request, Resume)>, Error>,
        max_empty: u32,
    ) -> (Step, Option<Resume>) {
        match next {
            Ok(Some((next, _))) if self.empty_in_a_row > max_empty => {
                let reason = format!(
                    "{} empty pages in a row, each pointing to another",
                    self.empty_in_a_row
                );
                let path = next.describe();
                (Step::Fail(Error::PagingStalled { path, reason }), None)
            }
            Ok(Some((next, key))) if self.seen.insert(key.clone()) => {
                (Step::Fetch(Box::new(next), self), Some(key))
            }
            Ok(Some((next, _))) => {
                let reason = "the service gave a next page it had already given".into();
                let path = next.describe();
                (Step::Fail(Error::PagingStalled { path, reason }), None)
            }
            Ok(None) => (Step::Done, None),
            Err(e) => (Step::Fail(e), None),
        }
    }
}

/// Fetches page after page; `next` says what comes after a page (a request and where it
/// resumes from), or `None` at the end.
fn walk<P, F>(core: Core, first: Result<Request, Error>, next: F) -> BoxStream<(P, Option<Resume>)>
where
    P: Page,
    F: Fn(&Core, &Request, &P) -> Result<Option<(Request, Resume)>, Error> + Send + Sync + 'static,
{
    let first = match first {
        Ok(first) => first,
        Err(e) => return Box::pin(stream::once(async move { Err(e) })),
    };
    let max_empty = core.config().max_empty_pages;
    let next = std::sync::Arc::new(next);
    let start = Walk {
        seen: HashSet::new(),
        empty_in_a_row: 0,
        pages: 0,
    };
    let s = stream::try_unfold(Step::Fetch(Box::new(first), start), move |step| {
        let core = core.clone();
        let next = next.clone();
        async move {
            let (req, mut walk) = match step {
                Step::Fetch(req, walk) => (req, walk),
                Step::Fail(e) => return Err(e),
                Step::Done => return Ok(None),
            };
            let page: P = match core.json(&req).await {
                Ok(page) => page,
                // Past the start, the walk can come back to this page.
                Err(e) => {
                    return Err(match req.resumed {
                        Some(resume) => Error::Interrupted {
                            resume,
                            source: Box::new(e),
                        },
                        None => e,
                    });
                }
            };
            walk.pages += 1;
            let items = page.len();
            tracing::debug!(
                inspection.event = "page",
                inspection.operation = req.operation,
                inspection.page = walk.pages,
                inspection.items = items,
                "page {} of {}: {items} records",
                walk.pages,
                req.describe()
            );
            walk.empty_in_a_row = if items == 0 {
                walk.empty_in_a_row.saturating_add(1)
            } else {
                0
            };
            // A bad next step is reported after this page, so its records are not lost.
            let (step, onward) = walk.then(next(&core, &req, &page), max_empty);
            Ok(Some(((page, onward), step)))
        }
    });
    Box::pin(s)
}

/// The request for a link: absolute, or relative to the base URL, and on its origin.
fn follow(core: &Core, req: &Request, link: &str) -> Result<(Request, Resume), Error> {
    let base = core.base_url();
    let url = Url::parse(link)
        .or_else(|_| base.join(link))
        .map_err(|e| Error::Config(format!("the next-page link is not a URL: {e}")))?;
    if !origin::same_origin(&url, base) {
        return Err(Error::ForeignOrigin {
            what: "a next-page link",
            origin: origin::origin(&url),
        });
    }
    let resume = Resume::Link(url.to_string());
    let mut next = req.clone();
    next.absolute = Some(url);
    next.resumed = Some(resume.clone());
    Ok((next, resume))
}

/// Where paging goes next: fetch a page, report an error, or stop.
enum Step {
    Fetch(Box<Request>, Walk),
    Fail(Error),
    Done,
}

/// What a walk remembers: the links and cursors already followed (a few bytes per page)
/// and how many pages in a row came back empty.
struct Walk {
    seen: HashSet<Resume>,
    empty_in_a_row: u32,
    /// Pages read so far, for the `page` event.
    pages: u64,
}

//! Pagination as streams: one page in memory at a time, until the service says there is
//! no next page.

use std::collections::HashSet;
use std::pin::Pin;

use futures_util::{Stream, StreamExt, TryStreamExt, stream};
use reqwest::Url;
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::origin;
use crate::request::Request;
use crate::transport::Core;

/// A stream of results, boxed so that callers can name it and call `try_next` on it.
pub type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Error>> + Send>>;

/// A page of a cursor-paged list, as the generated envelope type describes it.
pub trait CursorPage: DeserializeOwned + Send + 'static {
    type Item: Send + 'static;
    /// An absolute (or base-relative) URL of the next page, when the service gives one.
    fn next_url(&self) -> Option<&str>;
    /// The raw cursor, sent back as the page parameter, when the service gives one.
    fn next_cursor(&self) -> Option<&str>;
    fn into_items(self) -> Vec<Self::Item>;
}

/// Every page, starting with `first`. A next-page URL is preferred (it carries the
/// filters as the service means them) and is followed only within the base URL's origin;
/// otherwise the cursor is sent back as `page_param`.
///
/// `first` is the first request, or why it could not be built (a validation error),
/// which the stream then yields as its only item.
pub fn pages<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
) -> BoxStream<P> {
    walk(core, first, move |core: &Core, req: &Request, page: &P| {
        if let Some(link) = page.next_url().filter(|l| !l.is_empty()) {
            return follow(core, req, link).map(Some);
        }
        Ok(page.next_cursor().filter(|c| !c.is_empty()).map(|cursor| {
            let mut next = req.clone();
            next.absolute = None;
            next.query.retain(|(k, _)| *k != page_param);
            next.query.push((page_param, cursor.to_string()));
            (next, cursor.to_string())
        }))
    })
}

/// Every item of every page.
pub fn items<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
) -> BoxStream<P::Item> {
    flatten(pages::<P>(core, first, page_param), P::into_items)
}

/// A page of a list with `next` / `prev` links (the legacy interface).
pub trait LinksPage: DeserializeOwned + Send + 'static {
    type Item: Send + 'static;
    fn next_link(&self) -> Option<&str>;
    fn prev_link(&self) -> Option<&str>;
    fn into_items(self) -> Vec<Self::Item>;
    fn is_empty(&self) -> bool;
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
    flatten(links_pages::<P>(core, first, direction), P::into_items)
}

fn flatten<P: Send + 'static, T: Send + 'static>(
    pages: BoxStream<P>,
    into_items: fn(P) -> Vec<T>,
) -> BoxStream<T> {
    let s = pages
        .map_ok(move |page| stream::iter(into_items(page).into_iter().map(Ok)))
        .try_flatten();
    Box::pin(s.boxed())
}

/// Fetches page after page; `next` says what comes after a page (a request and a key that
/// changes as paging advances), or `None` at the end.
fn walk<P, F>(core: Core, first: Result<Request, Error>, next: F) -> BoxStream<P>
where
    P: DeserializeOwned + Send + 'static,
    F: Fn(&Core, &Request, &P) -> Result<Option<(Request, String)>, Error> + Send + Sync + 'static,
{
    let first = match first {
        Ok(first) => first,
        Err(e) => return Box::pin(stream::once(async move { Err(e) })),
    };
    let next = std::sync::Arc::new(next);
    let s = stream::try_unfold(Step::Fetch(first, HashSet::new()), move |step| {
        let core = core.clone();
        let next = next.clone();
        async move {
            let (req, mut seen) = match step {
                Step::Fetch(req, seen) => (req, seen),
                Step::Fail(e) => return Err(e),
                Step::Done => return Ok(None),
            };
            let page: P = core.json(&req).await?;
            // A bad next step is reported after this page, so its records are not lost.
            let step = match next(&core, &req, &page) {
                // A link or cursor met before would loop forever (A -> B -> A).
                Ok(Some((next, key))) => {
                    if seen.insert(key) {
                        Step::Fetch(next, seen)
                    } else {
                        Step::Fail(Error::PagingStalled {
                            path: next.describe(),
                        })
                    }
                }
                Ok(None) => Step::Done,
                Err(e) => Step::Fail(e),
            };
            Ok(Some((page, step)))
        }
    });
    Box::pin(s)
}

/// The request for a link: absolute, or relative to the base URL, and on its origin.
fn follow(core: &Core, req: &Request, link: &str) -> Result<(Request, String), Error> {
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
    let key = url.to_string();
    let mut next = req.clone();
    next.absolute = Some(url);
    Ok((next, key))
}

/// Where paging goes next: fetch a page (with the links or cursors already followed, a
/// few bytes per page), report an error, or stop.
enum Step {
    Fetch(Request, HashSet<String>),
    Fail(Error),
    Done,
}

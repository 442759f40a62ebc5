//! Pagination as streams: one page in memory at a time, until the service says there is
//! no next page.

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
    let first = match first {
        Ok(first) => first,
        Err(e) => return Box::pin(stream::once(async move { Err(e) })),
    };
    let s = stream::try_unfold(Step::Fetch(first, None), move |step| {
        let core = core.clone();
        async move {
            let (req, previous) = match step {
                Step::Fetch(req, previous) => (req, previous),
                Step::Fail(e) => return Err(e),
                Step::Done => return Ok(None),
            };
            let page: P = core.json(&req).await?;
            // A bad next step is reported after this page, so its records are not lost.
            let next = match next_request(&core, &req, &page, page_param) {
                Ok(Some((next, key))) if previous.as_deref() == Some(key.as_str()) => {
                    Step::Fail(Error::PagingStalled {
                        path: next.describe(),
                    })
                }
                Ok(Some((next, key))) => Step::Fetch(next, Some(key)),
                Ok(None) => Step::Done,
                Err(e) => Step::Fail(e),
            };
            Ok(Some((page, next)))
        }
    });
    Box::pin(s)
}

/// Where paging goes next: fetch a page (with the key of the one before), report an
/// error, or stop.
enum Step {
    Fetch(Request, Option<String>),
    Fail(Error),
    Done,
}

/// Every item of every page.
pub fn items<P: CursorPage>(
    core: Core,
    first: Result<Request, Error>,
    page_param: &'static str,
) -> BoxStream<P::Item> {
    let s = pages::<P>(core, first, page_param)
        .map_ok(|page| stream::iter(page.into_items().into_iter().map(Ok)))
        .try_flatten();
    Box::pin(s.boxed())
}

/// The request for the page after `page`, with a key that changes as paging advances.
fn next_request<P: CursorPage>(
    core: &Core,
    req: &Request,
    page: &P,
    page_param: &'static str,
) -> Result<Option<(Request, String)>, Error> {
    if let Some(link) = page.next_url().filter(|l| !l.is_empty()) {
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
        return Ok(Some((next, key)));
    }
    if let Some(cursor) = page.next_cursor().filter(|c| !c.is_empty()) {
        let mut next = req.clone();
        next.absolute = None;
        next.query.retain(|(k, _)| *k != page_param);
        next.query.push((page_param, cursor.to_string()));
        return Ok(Some((next, cursor.to_string())));
    }
    Ok(None)
}

//! A request as the generated code describes it, before the transport sends it.

use reqwest::Method;
use reqwest::Url;

/// Method, path, query, `Accept` and body of one call. Path segments are kept unencoded
/// and percent-encoded one by one when the URL is built, so an id holding `/`, spaces or
/// unicode stays one segment. `Debug` leaves the body out (it may hold a password).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct Request {
    /// The HTTP method.
    pub method: Method,
    /// The spec's operation name (`get_unit`), for traces; empty for a request made by hand.
    pub operation: &'static str,
    /// The spec's path template (`/units/{unit_id}`), for logs and errors.
    pub template: &'static str,
    /// The path after the base URL, one unencoded segment each (an id stays one segment).
    pub segments: Vec<String>,
    /// Query parameters in the order sent, values unencoded.
    pub query: Vec<(&'static str, String)>,
    /// `Accept`; the client's default (`Config::default_accept`) when `None`.
    pub accept: Option<&'static str>,
    /// The body: JSON, unless `content_type` says otherwise.
    pub body: Option<Vec<u8>>,
    /// The body's media type; `application/json` when `None`.
    pub content_type: Option<String>,
    /// An absolute URL to call instead of base + segments (a next-page link).
    pub absolute: Option<Url>,
    /// Sent without credentials (a login).
    pub anonymous: bool,
    /// What a 403 most likely means for this operation (e.g. the manager role it needs).
    pub hint: Option<&'static str>,
    /// The page of a walk this request fetches, when it is not the walk's own start: a
    /// failure to fetch it is `Error::Interrupted`, naming where to resume.
    pub resumed: Option<crate::error::Resume>,
    /// Settings of this request only, over the client's.
    pub options: RequestOptions,
}

/// Settings for one request (every request of a walk, for a list), over the client's
/// `Config`: `client.get_unit(id).request_options(RequestOptions::new().timeout(d))`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Time for one attempt, body included; the client's `Config::timeout` when `None`.
    pub timeout: Option<std::time::Duration>,
    /// Retries of this request; the client's `Config::retry` when `None`.
    pub retry: Option<crate::RetryPolicy>,
    /// Extra headers (a correlation id, a tracing header). They never replace what the
    /// client sets itself: credentials, `Accept`, `Content-Type`, `User-Agent`.
    pub headers: reqwest::header::HeaderMap,
}

impl RequestOptions {
    /// No settings of its own: everything as the client's `Config` says.
    pub fn new() -> Self {
        Self::default()
    }

    /// The time one attempt may take, body included.
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How this request is retried.
    pub fn retry(mut self, retry: crate::RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Adds a header; a name or value HTTP does not allow is an `Error::Config`.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, crate::Error> {
        let bad = |what: &str| crate::Error::Config(format!("the header {what} is not valid HTTP"));
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| bad(&format!("name {name:?}")))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|_| bad(&format!("value for `{name}`")))?;
        self.headers.append(name, value);
        Ok(self)
    }
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("template", &self.template)
            .field("segments", &self.segments)
            .field("query", &self.query)
            .field("accept", &self.accept)
            .field(
                "body",
                &self.body.as_ref().map(|b| format!("<{} bytes>", b.len())),
            )
            .field("anonymous", &self.anonymous)
            .finish()
    }
}

impl Request {
    /// A path value that cannot be sent as one segment: URLs drop `.` and `..` segments
    /// and tabs or newlines, and an empty one changes the path, so the request would go to
    /// another endpoint.
    pub fn unsendable_segment(&self) -> Option<&str> {
        self.segments
            .iter()
            .map(String::as_str)
            .find(|s| s.is_empty() || *s == "." || *s == ".." || s.contains(['\t', '\n', '\r']))
    }

    /// A request for `method` on the path `template`, with no segments, query or body yet.
    pub fn new(method: Method, template: &'static str) -> Self {
        Request {
            method,
            operation: "",
            template,
            segments: Vec::new(),
            query: Vec::new(),
            accept: None,
            body: None,
            content_type: None,
            absolute: None,
            anonymous: false,
            hint: None,
            resumed: None,
            options: RequestOptions::default(),
        }
    }

    /// The spec's operation this request calls, named in its traces.
    pub fn operation(mut self, name: &'static str) -> Self {
        self.operation = name;
        self
    }

    /// This request's own settings.
    pub fn options(mut self, options: RequestOptions) -> Self {
        self.options = options;
        self
    }

    /// Appends one path segment (encoded when sent).
    pub fn segment(mut self, segment: impl Into<String>) -> Self {
        self.segments.push(segment.into());
        self
    }

    /// Adds a query parameter when it has a value.
    pub fn query(mut self, name: &'static str, value: Option<String>) -> Self {
        if let Some(v) = value {
            self.query.push((name, v));
        }
        self
    }

    /// `Accept` for this request, instead of the client's default.
    pub fn accept(mut self, accept: &'static str) -> Self {
        self.accept = Some(accept);
        self
    }

    /// Sends the request without credentials.
    pub fn anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    /// Explains a 403 answer (e.g. "only users with the manager role may call it").
    pub fn hint(mut self, hint: &'static str) -> Self {
        self.hint = Some(hint);
        self
    }

    /// Starts at the page `from` names (a walk's [`Error::Interrupted`](crate::Error)
    /// resume point) instead of the first: a cursor is sent as `page_param`, a link is
    /// called as it is. `None` leaves the request as it is.
    pub fn resume_at(
        mut self,
        from: Option<&crate::error::Resume>,
        page_param: Option<&'static str>,
    ) -> Result<Self, crate::Error> {
        use crate::error::Resume;
        let Some(from) = from else {
            return Ok(self);
        };
        match (from, page_param) {
            (Resume::Cursor(cursor), Some(param)) => {
                self.query.retain(|(k, _)| *k != param);
                self.query.push((param, cursor.clone()));
            }
            (Resume::Cursor(_), None) => {
                return Err(crate::Error::Config(format!(
                    "{} pages by links: a cursor cannot resume it",
                    self.describe()
                )));
            }
            (Resume::Link(link), _) => {
                let url = Url::parse(link).map_err(|e| {
                    crate::Error::Config(format!("the resume link is not a URL: {e}"))
                })?;
                self.absolute = Some(url);
            }
        }
        self.resumed = Some(from.clone());
        Ok(self)
    }

    /// Serialises `body` as the JSON body.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, body: &T) -> Result<Self, crate::Error> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| crate::Error::Config(format!("cannot serialise the request body: {e}")))?;
        self.body = Some(bytes);
        Ok(self)
    }

    /// Sends `body` as it is, as `content_type` (a body whose format the service leaves
    /// open, such as a device log).
    pub fn bytes(mut self, body: Vec<u8>, content_type: &str) -> Result<Self, crate::Error> {
        if reqwest::header::HeaderValue::from_str(content_type).is_err() || content_type.is_empty()
        {
            return Err(crate::Error::Config(format!(
                "the content type {content_type:?} cannot be sent as a Content-Type header"
            )));
        }
        self.body = Some(body);
        self.content_type = Some(content_type.to_string());
        Ok(self)
    }

    /// The URL this request goes to under `base`.
    pub fn url(&self, base: &Url) -> Url {
        if let Some(url) = &self.absolute {
            return url.clone();
        }
        let mut url = base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            for s in &self.segments {
                path.push(s);
            }
        }
        if !self.query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (k, v) in &self.query {
                pairs.append_pair(k, v);
            }
        }
        url
    }

    /// Whether repeating the request cannot apply it twice (RFC 9110 idempotent methods).
    pub fn is_idempotent(&self) -> bool {
        matches!(
            self.method,
            Method::GET | Method::HEAD | Method::PUT | Method::DELETE | Method::OPTIONS
        )
    }

    /// `GET /units/{unit_id}`: what logs and errors show instead of the full URL.
    pub fn describe(&self) -> String {
        format!("{} {}", self.method, self.template)
    }
}

/// Formats a date-time query value as ISO 8601 in UTC (`2026-03-01T00:00:00Z`).
pub fn format_date_time(value: &chrono::DateTime<chrono::Utc>) -> String {
    value.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded_one_by_one() {
        let base = Url::parse("https://example.test/v3/").unwrap();
        let r = Request::new(Method::GET, "/units/by_reference_number/{reference_number}")
            .segment("units")
            .segment("by_reference_number")
            .segment("A/1 ü?#")
            .query("per_page", Some("5".into()))
            .query("page", None);
        assert_eq!(
            r.url(&base).as_str(),
            "https://example.test/v3/units/by_reference_number/A%2F1%20%C3%BC%3F%23?per_page=5"
        );
    }
}

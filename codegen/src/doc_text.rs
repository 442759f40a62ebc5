//! Doc text for generated items, in every language: the spec's doc plus what a user must
//! know about its provenance, gaps and limits. Backends only wrap it in their comment syntax.

use crate::ir::{
    Auth, Constraints, CursorPaging, Interface, LinksPaging, Operation, Pagination, RateLimit,
    Source,
};

/// An exactly-one-of choice's groups as the docs list them: each group's fields joined by
/// ` + `, the groups by commas (`` `vin` + `make`, `unit_id` ``).
pub fn one_of_groups(one: &crate::ir::OneOf) -> String {
    let group = |v: &crate::ir::OneOfVariant| {
        let fields: Vec<String> = v.fields.iter().map(|f| format!("`{}`", f.name)).collect();
        fields.join(" + ")
    };
    one.variants
        .iter()
        .map(group)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What an error of a manager-only operation adds to the service's message, in every client.
pub const MANAGER_ONLY_HINT: &str = "only users with the manager role may call it";

/// Builds a doc from paragraphs, skipping empty ones.
#[derive(Default)]
pub struct Doc {
    paragraphs: Vec<String>,
}

impl Doc {
    pub fn new(main: &str) -> Self {
        let mut d = Doc::default();
        d.push(main.trim().to_string());
        d
    }

    pub fn push(&mut self, paragraph: String) -> &mut Self {
        if !paragraph.trim().is_empty() {
            self.paragraphs.push(paragraph);
        }
        self
    }

    pub fn not_shown(&mut self, text: Option<&str>) -> &mut Self {
        if let Some(t) = text {
            self.push(format!(
                "*Not shown by the interface document:* {}",
                t.trim()
            ));
        }
        self
    }

    pub fn source(&mut self, source: Source) -> &mut Self {
        let note = match source {
            Source::Seed => return self,
            Source::PublicDocs => "*Source: the service's public documentation.*",
            Source::Inferred => {
                "*Inferred, not documented: the client only tolerates it, never requires it.*"
            }
            Source::ThirdParty => {
                "*Seen in third-party code only: the client tolerates it, never requires it.*"
            }
        };
        self.push(note.to_string())
    }

    pub fn text(&self) -> String {
        self.paragraphs.join("\n\n")
    }
}

/// The limits in words (`at most 255 characters`), or `None` when there are none.
pub fn describe_limits(c: &Constraints) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = c.length {
        parts.push(format!("exactly {n} characters"));
    }
    if let Some(n) = c.max_length {
        parts.push(format!("at most {n} characters"));
    }
    if let Some(rule) = &c.chars {
        let class = rule.allow.description();
        if rule.forbid.is_empty() {
            parts.push(format!("only {class}"));
        } else {
            let forbidden: Vec<String> = rule.forbid.chars().map(|c| format!("`{c}`")).collect();
            parts.push(format!("only {class}, never {}", forbidden.join(", ")));
        }
    }
    match (c.min, c.max) {
        (Some(min), Some(max)) => parts.push(format!("from {min} to {max}")),
        (Some(min), None) => parts.push(format!("at least {min}")),
        (None, Some(max)) => parts.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(n) = c.min_items {
        parts.push(format!("at least {n} items"));
    }
    if let Some(n) = c.max_items {
        parts.push(format!("at most {n} items"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The doc of an operation: its text, then what a caller must know about its answers.
pub fn operation(i: &Interface, op: &Operation) -> Doc {
    let mut d = Doc::new(&op.doc);
    d.push(format!("`{:?} {}`", op.method, op.path));
    if op.manager_only {
        d.push("Only users with the manager role may call it; others get a 403.".to_string());
    }
    if op.internal {
        d.push("Internal to the service: not meant for integrations.".to_string());
    }
    let answers: Vec<String> = op
        .responses
        .iter()
        .map(|r| {
            let mut line = format!("- {} ({}): {}", r.status, r.content_type, r.doc.trim());
            if let Some(n) = &r.not_shown {
                line.push_str(&format!(" *Not shown:* {}", n.trim()));
            }
            line
        })
        .collect();
    d.push(format!("Answers:\n\n{}", answers.join("\n")));
    if !op.errors.is_empty() {
        let errors: Vec<String> = op
            .errors
            .iter()
            .map(|e| format!("- {}: {}", e.status, e.doc.trim()))
            .collect();
        d.push(format!(
            "Errors beyond those of every operation ({}):\n\n{}",
            i.errors
                .iter()
                .map(|e| e.status.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            errors.join("\n")
        ));
    }
    d.not_shown(op.not_shown.as_deref()).source(op.source);
    d
}

/// The doc of a TypeScript or Python client's login constructor: what it does, then the
/// spec's doc of the interface's token auth.
pub fn login(auth_doc: &str) -> String {
    format!(
        "Logs in and returns a client that sends the token on every request and logs in \
         again, once, when the service answers 401.\n\n{}",
        auth_doc.trim()
    )
}

/// The doc of an interface's client: what it is a client of, `about` (what the language
/// adds, or nothing), and what it does with every request (the runtimes behave alike):
/// `turn_off` tells how validation is turned off, `pacing` who shares the pacing.
pub fn client(i: &Interface, about: &str, turn_off: &str, pacing: &str) -> String {
    format!(
        "A client of the {}.\n\n{about}Every request is checked against the documented limits before it is sent \
         ({turn_off}), paced under the rate limit ({pacing}), and retried when that is safe: \
         any method after a 429 (after `Retry-After`), GET/PUT/DELETE after a 5xx, a timeout \
         or a broken connection, never a POST or PATCH that may have been applied.",
        i.title
    )
}

/// How a language names what the doc of its webhook reader mentions.
pub struct WebhookWords<'a> {
    /// What an unknown event type becomes: ``is `Event::Unknown`, kept whole``.
    pub unknown: &'a str,
    /// What a body that does not fit gives: ``raises `DecodeError` ``.
    pub failure: &'a str,
    /// The signature check to call first.
    pub verify: &'a str,
}

/// The doc of a client's webhook reader: what it reads (`event`, the event type, as a link
/// where the language has them: ``an [`Event`]``), the spec's doc of the deliveries, and
/// what it never fails on.
pub fn parse_event(doc: &str, event: &str, words: WebhookWords) -> String {
    let WebhookWords {
        unknown,
        failure,
        verify,
    } = words;
    format!(
        "Reads a webhook delivery's JSON body as {event}.\n\n{}\n\nAn event type this spec \
         does not list {unknown}, never an error; a body that is not JSON, or a known event \
         whose payload does not fit, {failure} with its JSON path. Check the delivery's \
         authentication header first with {verify}.",
        doc.trim()
    )
}

/// The doc of a scalar union (`doc`, then the JSON types it may be, which the
/// languages without such a union keep as the JSON value).
pub fn scalar_union(doc: &str, kinds: &[crate::ir::ScalarKind]) -> String {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.json_type()).collect();
    let mut d = Doc::new(doc);
    d.push(format!(
        "One of: {}; the JSON value is kept as it came.",
        kinds.join(", ")
    ));
    d.text()
}

/// The doc of an enum's value: the spec's, or the wire value in code when it gives none.
pub fn enum_value(v: &crate::ir::EnumValue) -> String {
    if v.doc.trim().is_empty() {
        format!("`{}`.", v.wire)
    } else {
        v.doc.clone()
    }
}

/// The doc of a union's member: the spec's, or its tag value and the spec's name of its
/// shape (`shape`) when it gives none.
pub fn union_member(v: &crate::ir::Variant, shape: &str) -> String {
    if v.doc.trim().is_empty() {
        format!("The `{}` member: a `{shape}`.", v.tag_value)
    } else {
        v.doc.clone()
    }
}

/// The doc of an id type: the spec's, then that it is opaque and a type of its own (`kind`:
/// how the language makes it one) made with `make`.
pub fn opaque_id(doc: &str, max_length: Option<u32>, kind: &str, make: &str) -> String {
    let limit = max_length
        .map(|n| format!(" of at most {n} characters"))
        .unwrap_or_default();
    let mut d = Doc::new(doc);
    d.push(format!(
        "An opaque, case-sensitive id{limit}. {kind}, so it cannot be passed where another \
         resource's id is expected: make one with {make}."
    ));
    d.text()
}

pub fn interface(i: &Interface) -> String {
    let mut d = Doc::new(&format!("{}\n\n{}", i.title, i.doc.trim()));
    d.push(format!(
        "Base URL: `{}`, for example `{}`. {}",
        i.base_url.placeholder,
        i.base_url.example,
        i.base_url.doc.trim()
    ));
    d.push(authentication(&i.auth));
    if let Some(p) = &i.pagination {
        let text = match p {
            Pagination::Cursor(CursorPaging { doc, .. })
            | Pagination::Links(LinksPaging { doc, .. }) => doc,
        };
        d.push(format!("Paging: {}", text.trim()));
    }
    if let Some(r) = &i.rate_limit {
        d.push(rate_limit(r));
    }
    if !i.limits.is_empty() {
        let lines: Vec<String> = i
            .limits
            .iter()
            .map(|l| format!("- {}: {}. {}", l.name, l.value, l.doc.trim()))
            .collect();
        d.push(format!("Limits:\n\n{}", lines.join("\n")));
    }
    if !i.errors.is_empty() {
        let lines: Vec<String> = i
            .errors
            .iter()
            .map(|e| format!("- {}: {}", e.status, e.doc.trim()))
            .collect();
        d.push(format!(
            "Errors every operation may answer:\n\n{}",
            lines.join("\n")
        ));
    }
    d.push(format!("Versioning: {}", i.versioning.trim()));
    if !i.not_shown.is_empty() {
        let lines: Vec<String> = i
            .not_shown
            .iter()
            .map(|n| format!("- {}", n.trim()))
            .collect();
        d.push(format!(
            "Not shown by the interface document (the generated types stay tolerant):\n\n{}",
            lines.join("\n")
        ));
    }
    d.text()
}

/// How a request authenticates: the headers it sends, or the login's token.
fn authentication(auth: &Auth) -> String {
    match auth {
        Auth::ApiKeyHeaders { doc, headers, .. } => {
            let names: Vec<String> = headers.iter().map(|h| format!("`{}`", h.name)).collect();
            format!(
                "Authentication: headers {}. {}",
                names.join(" and "),
                doc.trim()
            )
        }
        Auth::TokenLogin {
            doc,
            header,
            scheme,
            ..
        } => format!(
            "Authentication: `{header}: {scheme} <token>`. {}",
            doc.trim()
        ),
    }
}

fn rate_limit(r: &RateLimit) -> String {
    format!(
        "Rate limit: {} requests per {} s per {}{}; above it the service answers {}{}. {}",
        r.requests,
        r.window_seconds,
        r.scope,
        r.max_requests
            .map(|m| format!(" (up to {m} on request)"))
            .unwrap_or_default(),
        r.status,
        r.retry_after_header
            .as_ref()
            .map(|h| format!(" with `{h}`"))
            .unwrap_or_default(),
        r.doc.trim()
    )
}
/// `text` with its prose lines wrapped at `width` columns, as Markdown reads them: a list
/// item's continuation lines indented under its text, and code fences, tables and headings
/// left as they are. A word longer than `width` stays whole. Every language's doc comments
/// use it, so no generated doc line runs on.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
        }
        let keep = fenced
            || trimmed.starts_with("```")
            || trimmed.starts_with('|')
            || trimmed.starts_with('#')
            || line.chars().count() <= width;
        if keep {
            out.push(line.to_string());
            continue;
        }
        let indent = line.len() - trimmed.len();
        let marker = list_marker(trimmed);
        let first = &line[..indent + marker];
        let hang = " ".repeat(indent + marker);
        let mut current = first.to_string();
        let mut empty = true;
        for word in trimmed[marker..].split(' ').filter(|w| !w.is_empty()) {
            let len = current.chars().count() + usize::from(!empty) + word.chars().count();
            if !empty && len > width {
                out.push(current);
                current = hang.clone();
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push(current);
    }
    out.join("\n")
}

/// The width of a list item's marker and its space (`- `, `* `, `12. `), or 0.
fn list_marker(line: &str) -> usize {
    if line.starts_with("- ") || line.starts_with("* ") {
        return 2;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(". ") {
        return digits + 2;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn prose_wraps_lists_hang_and_code_stays() {
        let text = "one two three four five six\n- alpha beta gamma delta\n```\nlong code line here\n```\n| a | b | c | d |";
        assert_eq!(
            wrap(text, 12),
            "one two\nthree four\nfive six\n- alpha beta\n  gamma\n  delta\n```\nlong code line here\n```\n| a | b | c | d |"
        );
        assert_eq!(wrap("short", 12), "short");
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            "averyveryverylongword\nx"
        );
    }
}

//! What changed between two IRs, classified for the users of the generated clients: a
//! change that can break their code, one that only adds, or one that changes docs only.
//! The rules are the table in README.md ("The maintainer's loop"); each has a test.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{
    Api, Constraints, Enum, Field, Interface, Object, Operation, TypeDef, TypeKind, Union, Usage,
};

/// How a change reaches the users of the clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    /// Code written against the old clients may stop compiling or working.
    Breaking,
    /// Something new; existing code keeps working.
    Additive,
    /// Documentation only.
    Docs,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub interface: String,
    pub impact: Impact,
    pub what: String,
}

impl Change {
    /// What the change is about, as the first name its text quotes: a type (`Unit`), a
    /// field (`Unit.vin`), an operation or a sync list; `None` for the interface's own
    /// settings.
    pub fn subject(&self) -> Option<&str> {
        let (_, rest) = self.what.split_once('`')?;
        rest.split_once('`').map(|(name, _)| name)
    }

    /// The type a change of a type, field, value or member is about (`Unit` of
    /// `Unit.vin`); `None` for operations, sync lists and the interface.
    pub fn type_name(&self) -> Option<&str> {
        let about_type = [
            "type", "field", "required", "id", "enum", "union", "record", "scalar",
        ]
        .iter()
        .any(|w| self.what.starts_with(w))
            || self.what.starts_with('`');
        let subject = self.subject()?;
        about_type.then(|| subject.split('.').next().unwrap_or(subject))
    }
}

/// Every change from `old` to `new`, interface by interface, in a stable order.
pub fn diff(old: &Api, new: &Api) -> Vec<Change> {
    let mut out = Out::default();
    let old_by: BTreeMap<&str, &Interface> = old
        .interfaces
        .iter()
        .map(|i| (i.name.as_str(), i))
        .collect();
    let new_by: BTreeMap<&str, &Interface> = new
        .interfaces
        .iter()
        .map(|i| (i.name.as_str(), i))
        .collect();
    for (name, o) in &old_by {
        out.interface = name.to_string();
        match new_by.get(name) {
            None => out.breaking(format!("interface `{name}` removed")),
            Some(n) => interface(&mut out, o, n),
        }
    }
    for name in new_by.keys().filter(|n| !old_by.contains_key(*n)) {
        out.interface = name.to_string();
        out.additive(format!("interface `{name}` added"));
    }
    out.changes
}

#[derive(Default)]
struct Out {
    interface: String,
    changes: Vec<Change>,
}

impl Out {
    fn push(&mut self, impact: Impact, what: String) {
        self.changes.push(Change {
            interface: self.interface.clone(),
            impact,
            what,
        });
    }
    fn breaking(&mut self, what: String) {
        self.push(Impact::Breaking, what)
    }
    fn additive(&mut self, what: String) {
        self.push(Impact::Additive, what)
    }
    fn docs(&mut self, what: String) {
        self.push(Impact::Docs, what)
    }
}

/// The pagination, with its paging type by name (ids differ between two IRs).
fn pagination(i: &Interface) -> Option<serde_json::Value> {
    let mut value = serde_json::to_value(&i.pagination).ok()?;
    if let Some(cursor) = i.cursor_paging()
        && let Some(map) = value.as_object_mut()
    {
        map.insert(
            "paging_type".into(),
            i.ty(cursor.paging_type).name.clone().into(),
        );
    }
    Some(value)
}

/// The parts of an interface that only say how the clients behave or where they connect.
fn interface(out: &mut Out, o: &Interface, n: &Interface) {
    if behaviour(json(&o.auth)) != behaviour(json(&n.auth)) {
        out.breaking("authentication changed".into());
    } else if json(&o.auth) != json(&n.auth) {
        out.docs("authentication docs changed".into());
    }
    if behaviour(pagination(o)) != behaviour(pagination(n)) {
        out.breaking("pagination changed".into());
    } else if pagination(o) != pagination(n) {
        out.docs("pagination docs changed".into());
    }
    let hooks = |i: &Interface| i.webhooks.as_ref().map(|w| i.ty(w.event).name.clone());
    match (hooks(o), hooks(n)) {
        (None, Some(_)) => out.additive("webhook events added".into()),
        (Some(_), None) => out.breaking("webhook events removed".into()),
        (Some(a), Some(b)) if a != b => out.breaking(format!("webhook events are now `{b}`")),
        _ => {}
    }
    if let (Some(a), Some(b)) = (&o.webhooks, &n.webhooks)
        && (a.doc != b.doc || a.source != b.source)
    {
        out.docs("webhook docs changed".into());
    }
    if o.error_message_field != n.error_message_field || o.default_accept != n.default_accept {
        out.breaking("the error body or the default Accept changed".into());
    }
    if behaviour(json(&o.rate_limit)) != behaviour(json(&n.rate_limit)) {
        out.additive("the rate limit (the clients' default pacing) changed".into());
    } else if json(&o.rate_limit) != json(&n.rate_limit) {
        out.docs("rate limit docs changed".into());
    }
    if o.doc != n.doc || o.title != n.title || json(&o.base_url) != json(&n.base_url) {
        out.docs("interface docs changed".into());
    }
    if json(&o.limits) != json(&n.limits)
        || json(&o.errors) != json(&n.errors)
        || o.not_shown != n.not_shown
        || json(&o.headers) != json(&n.headers)
        || o.versioning != n.versioning
    {
        out.docs("interface notes (limits, errors, headers, gaps) changed".into());
    }
    sync(out, o, n);
    types(out, o, n);
    operations(out, o, n);
}

/// The lists the command-line tool's sync walks: a list added is a new table, one removed
/// a table gone, one that stays current another way changes what a run reads.
fn sync(out: &mut Out, o: &Interface, n: &Interface) {
    let lists = |i: &Interface| -> BTreeMap<String, String> {
        i.sync
            .iter()
            .flat_map(|s| &s.lists)
            .map(|l| {
                let current = json(&l.current).map(|c| c.to_string()).unwrap_or_default();
                (
                    l.list.clone(),
                    format!("{} {}", i.ty(l.record).name, current),
                )
            })
            .collect()
    };
    let (ol, nl) = (lists(o), lists(n));
    for (list, was) in &ol {
        match nl.get(list) {
            None => out.breaking(format!("sync list `{list}` removed")),
            Some(now) if now != was => out.additive(format!("sync list `{list}` changed")),
            Some(_) => {}
        }
    }
    for list in nl.keys().filter(|l| !ol.contains_key(*l)) {
        out.additive(format!("sync list `{list}` added"));
    }
    let doc = |i: &Interface| i.sync.as_ref().map(|s| s.doc.clone());
    if doc(o) != doc(n) && o.sync.is_some() && n.sync.is_some() {
        out.docs("sync docs changed".into());
    }
}

fn types(out: &mut Out, o: &Interface, n: &Interface) {
    let new_by: BTreeMap<&str, &TypeDef> = n.types.iter().map(|t| (t.name.as_str(), t)).collect();
    let old_by: BTreeMap<&str, &TypeDef> = o.types.iter().map(|t| (t.name.as_str(), t)).collect();
    for (name, ot) in &old_by {
        let Some(nt) = new_by.get(name) else {
            out.breaking(format!("type `{name}` removed"));
            continue;
        };
        if ot.doc != nt.doc {
            out.docs(format!("type `{name}`: docs changed"));
        }
        type_kind(out, name, o, n, ot, nt);
    }
    for name in new_by.keys().filter(|n| !old_by.contains_key(*n)) {
        out.additive(format!("type `{name}` added"));
    }
}

/// A type on both sides: what changed in what it is (a record, an enum, a union, ...).
fn type_kind(out: &mut Out, name: &str, o: &Interface, n: &Interface, ot: &TypeDef, nt: &TypeDef) {
    match (&ot.kind, &nt.kind) {
        (TypeKind::Object(oo), TypeKind::Object(no)) => object(out, name, o, n, oo, no, nt.usage),
        (TypeKind::Enum(oe), TypeKind::Enum(ne)) => enumeration(out, name, oe, ne),
        (TypeKind::Union(ou), TypeKind::Union(nu)) => union(out, name, o, n, ou, nu),
        (
            TypeKind::Id {
                max_length: a,
                accepts_integers: ai,
            },
            TypeKind::Id {
                max_length: b,
                accepts_integers: bi,
            },
        ) if a != b || ai != bi => {
            // Clients send ids as strings and read either form, so only the export and the
            // sandbox see whether an integer is taken.
            if ai != bi {
                let now = if *bi { "takes" } else { "no longer takes" };
                out.docs(format!("id `{name}` {now} a JSON integer"));
            }
            limit_change(
                out,
                &format!("id `{name}`"),
                &Constraints {
                    max_length: *a,
                    ..Default::default()
                },
                &Constraints {
                    max_length: *b,
                    ..Default::default()
                },
                nt.usage.request,
            );
        }
        (TypeKind::RecordRef(a), TypeKind::RecordRef(b)) => {
            let shape = |i: &Interface, r: &super::RecordRef| {
                (
                    i.ty(r.id_type).name.clone(),
                    r.external,
                    r.self_keyword.clone(),
                )
            };
            if shape(o, a) != shape(n, b) {
                out.breaking(format!("record reference `{name}` changed"));
            }
        }
        (TypeKind::ScalarUnion(a), TypeKind::ScalarUnion(b)) if a != b => {
            out.breaking(format!("scalar union `{name}` changed"));
        }
        (ok, nk) if std::mem::discriminant(ok) != std::mem::discriminant(nk) => {
            out.breaking(format!("type `{name}` is now another kind of type"))
        }
        _ => {}
    }
}

fn enumeration(out: &mut Out, name: &str, oe: &Enum, ne: &Enum) {
    for v in &oe.values {
        match ne.values.iter().find(|x| x.wire == v.wire) {
            None => out.breaking(format!("enum `{name}`: value `{}` removed", v.wire)),
            Some(x) if x.doc != v.doc => {
                out.docs(format!("enum `{name}`: value `{}` docs changed", v.wire))
            }
            Some(_) => {}
        }
    }
    for v in ne
        .values
        .iter()
        .filter(|v| !oe.values.iter().any(|x| x.wire == v.wire))
    {
        out.additive(format!("enum `{name}`: value `{}` added", v.wire));
    }
    if oe.open && !ne.open {
        out.breaking(format!("enum `{name}` closed"));
    } else if !oe.open && ne.open {
        out.additive(format!("enum `{name}` opened"));
    }
}

fn union(out: &mut Out, name: &str, o: &Interface, n: &Interface, ou: &Union, nu: &Union) {
    if ou.tag != nu.tag {
        out.breaking(format!(
            "union `{name}`: tag `{}` is now `{}`",
            ou.tag, nu.tag
        ));
    }
    for v in &ou.variants {
        match nu.variants.iter().find(|x| x.tag_value == v.tag_value) {
            None => out.breaking(format!("union `{name}`: member `{}` removed", v.tag_value)),
            Some(x) if o.ty(v.shape).name != n.ty(x.shape).name => out.breaking(format!(
                "union `{name}`: member `{}` is now `{}`",
                v.tag_value,
                n.ty(x.shape).name
            )),
            Some(x) if x.doc != v.doc => out.docs(format!(
                "union `{name}`: member `{}` docs changed",
                v.tag_value
            )),
            Some(_) => {}
        }
    }
    for v in nu
        .variants
        .iter()
        .filter(|v| !ou.variants.iter().any(|x| x.tag_value == v.tag_value))
    {
        out.additive(format!("union `{name}`: member `{}` added", v.tag_value));
    }
}

fn object(
    out: &mut Out,
    name: &str,
    oi: &Interface,
    ni: &Interface,
    o: &Object,
    n: &Object,
    usage: Usage,
) {
    let all = |obj: &Object| -> Vec<Field> {
        let mut fields = obj.fields.clone();
        if let Some(one) = &obj.one_of {
            for v in &one.variants {
                fields.extend(v.fields.iter().cloned().map(|mut f| {
                    f.required = false;
                    f
                }));
            }
        }
        fields
    };
    let (of, nf) = (all(o), all(n));
    for f in &of {
        let at = format!("`{name}.{}`", f.name);
        match nf.iter().find(|x| x.name == f.name) {
            None => out.breaking(format!("field {at} removed")),
            Some(x) => field(out, &at, oi, ni, f, x, usage),
        }
    }
    for f in nf.iter().filter(|f| !of.iter().any(|x| x.name == f.name)) {
        let at = format!("`{name}.{}`", f.name);
        if f.required && usage.request {
            out.breaking(format!("required field {at} added to a request"));
        } else if f.required {
            // Reading an answer with a new field breaks nothing, but every language's
            // record requires it when built (Rust's `new`, Python's keyword, a TypeScript
            // literal): code that builds the record, a test's fake answer, stops compiling.
            out.breaking(format!(
                "required field {at} added (code that builds the record must give it)"
            ));
        } else {
            out.additive(format!("field {at} added"));
        }
    }
    if o.envelope != n.envelope || o.not_shown != n.not_shown || o.source != n.source {
        out.docs(format!("type `{name}`: notes changed"));
    }
}

/// One field present on both sides (also a path or query parameter).
fn field(
    out: &mut Out,
    at: &str,
    oi: &Interface,
    ni: &Interface,
    o: &Field,
    n: &Field,
    usage: Usage,
) {
    let (ot, nt) = (oi.spelled(&o.ty), ni.spelled(&n.ty));
    if ot != nt {
        out.breaking(format!("{at}: type `{ot}` is now `{nt}`"));
    }
    if o.required != n.required {
        // A request field that becomes required breaks callers; a response field that is
        // no longer promised (or newly promised) changes its type in every language.
        let loosened = o.required && usage.request_only();
        let text = format!(
            "{at} is now {}",
            if n.required { "required" } else { "optional" }
        );
        if loosened {
            out.additive(text);
        } else {
            out.breaking(text);
        }
    }
    if o.nullable != n.nullable {
        let text = format!(
            "{at} is now {}",
            if n.nullable { "nullable" } else { "never null" }
        );
        if n.nullable && usage.request_only() {
            out.additive(text);
        } else {
            out.breaking(text);
        }
    }
    if o.sensitive != n.sensitive {
        out.breaking(format!(
            "{at}: sensitivity changed (its type is a secret or not)"
        ));
    }
    limit_change(out, at, &o.constraints, &n.constraints, usage.request);
    if o.doc != n.doc || o.not_shown != n.not_shown || o.source != n.source {
        out.docs(format!("{at}: docs changed"));
    }
}

/// A documented limit: tighter breaks requests that passed before, looser only adds;
/// limits are never checked on answers, so there they are documentation.
fn limit_change(out: &mut Out, at: &str, o: &Constraints, n: &Constraints, request: bool) {
    if o == n {
        return;
    }
    if !request {
        out.docs(format!("{at}: documented limits changed"));
        return;
    }
    let upper = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (None, Some(_)) => Some(true),
        (Some(_), None) => Some(false),
        (Some(a), Some(b)) if a != b => Some(b < a),
        _ => None,
    };
    let lower = |a: Option<i64>, b: Option<i64>| upper(a.map(|v| -v), b.map(|v| -v));
    let u = |v: Option<u32>| v.map(i64::from);
    let verdicts = [
        upper(u(o.max_length), u(n.max_length)),
        upper(u(o.max_items), u(n.max_items)),
        upper(o.max, n.max),
        lower(o.min, n.min),
        lower(u(o.min_items), u(n.min_items)),
        // An exact length or a character rule that changes at all may refuse old values.
        (o.length != n.length).then_some(n.length.is_some()),
        (o.chars != n.chars).then_some(n.chars.is_some()),
    ];
    if verdicts.iter().flatten().any(|tighter| *tighter) {
        out.breaking(format!("{at}: a request limit is tighter"));
    } else {
        out.additive(format!("{at}: a request limit is looser"));
    }
}

fn operations(out: &mut Out, oi: &Interface, ni: &Interface) {
    for o in &oi.operations {
        let Some(n) = ni.operations.iter().find(|x| x.name == o.name) else {
            out.breaking(format!("operation `{}` removed", o.name));
            continue;
        };
        operation(out, oi, ni, o, n);
    }
    for n in ni
        .operations
        .iter()
        .filter(|n| !oi.operations.iter().any(|o| o.name == n.name))
    {
        out.additive(format!("operation `{}` added", n.name));
    }
}

fn operation(out: &mut Out, oi: &Interface, ni: &Interface, o: &Operation, n: &Operation) {
    let name = &o.name;
    if o.method != n.method || o.path != n.path {
        out.breaking(format!("operation `{name}`: method or path changed"));
    }
    path_params(out, oi, ni, o, n);
    query(out, oi, ni, o, n);
    let body = |i: &Interface, op: &Operation| op.body.as_ref().map(|b| i.spelled(&b.ty));
    if body(oi, o) != body(ni, n) {
        out.breaking(format!("operation `{name}`: request body changed"));
    } else if let (Some(ob), Some(nb)) = (&o.body, &n.body)
        && ob.optional != nb.optional
    {
        // Either way the Rust builder's signature changes (a constructor argument becomes
        // a setter, or the reverse).
        let now = if nb.optional { "optional" } else { "required" };
        out.breaking(format!("operation `{name}`: request body now {now}"));
    }
    if answer(oi, o) != answer(ni, n) || o.answer.polls != n.answer.polls {
        out.breaking(format!("operation `{name}`: answer changed"));
    }
    match (&o.answer.alternative, &n.answer.alternative) {
        (Some(_), None) => out.breaking(format!("operation `{name}`: binary alternative removed")),
        (None, Some(_)) => out.additive(format!("operation `{name}`: binary alternative added")),
        _ => {}
    }
    let paging = |op: &Operation| op.paging.is_some();
    if paging(o) != paging(n) {
        out.breaking(format!("operation `{name}`: paging changed"));
    }
    if o.auth != n.auth {
        out.breaking(format!("operation `{name}`: authentication changed"));
    }
    if o.doc != n.doc
        || o.not_shown != n.not_shown
        || o.manager_only != n.manager_only
        || o.errors != n.errors
        || responses(oi, o) != responses(ni, n)
    {
        out.docs(format!("operation `{name}`: docs changed"));
    }
}

/// Parameters are only ever sent: their limits and requiredness count as a request's.
const PARAMETER: Usage = Usage {
    request: true,
    response: false,
};

fn path_params(out: &mut Out, oi: &Interface, ni: &Interface, o: &Operation, n: &Operation) {
    let name = &o.name;
    for p in &o.path_params {
        match n.path_params.iter().find(|x| x.name == p.name) {
            None => out.breaking(format!(
                "operation `{name}`: path parameter `{}` removed",
                p.name
            )),
            Some(x) => field(
                out,
                &format!("`{name}` path parameter `{}`", p.name),
                oi,
                ni,
                p,
                x,
                PARAMETER,
            ),
        }
    }
    for p in n
        .path_params
        .iter()
        .filter(|p| !o.path_params.iter().any(|x| x.name == p.name))
    {
        out.breaking(format!(
            "operation `{name}`: path parameter `{}` added",
            p.name
        ));
    }
}

fn query(out: &mut Out, oi: &Interface, ni: &Interface, o: &Operation, n: &Operation) {
    let name = &o.name;
    for q in &o.query {
        match n.query.iter().find(|x| x.name == q.name) {
            None => out.breaking(format!(
                "operation `{name}`: query parameter `{}` removed",
                q.name
            )),
            Some(x) => field(
                out,
                &format!("`{name}` query parameter `{}`", q.name),
                oi,
                ni,
                q,
                x,
                PARAMETER,
            ),
        }
    }
    for q in n
        .query
        .iter()
        .filter(|q| !o.query.iter().any(|x| x.name == q.name))
    {
        if q.required {
            out.breaking(format!(
                "operation `{name}`: required query parameter `{}` added",
                q.name
            ));
        } else {
            out.additive(format!(
                "operation `{name}`: query parameter `{}` added",
                q.name
            ));
        }
    }
}

/// An operation's resolved answer, by names.
fn answer(i: &Interface, op: &Operation) -> String {
    match &op.answer.kind {
        crate::AnswerKind::Json { body, list_shaped } => {
            format!("json {} {list_shaped}", i.spelled(body))
        }
        crate::AnswerKind::Upsert { body } => format!("upsert {}", i.spelled(body)),
        crate::AnswerKind::Bytes { content_type } => format!("bytes {content_type}"),
        crate::AnswerKind::Empty => "empty".to_string(),
    }
}

/// An operation's documented answers, by names.
fn responses(i: &Interface, op: &Operation) -> Vec<(u16, String, Option<String>, String)> {
    op.responses
        .iter()
        .map(|r| {
            (
                r.status,
                r.content_type.clone(),
                r.body.as_ref().map(|b| i.spelled(b)),
                r.doc.clone(),
            )
        })
        .collect()
}

/// JSON of an IR part, to compare parts that only matter as a whole.
fn json<T: Serialize>(value: &T) -> Option<serde_json::Value> {
    serde_json::to_value(value).ok()
}

/// `value` without what only documents it (`doc`, `source`, at any depth): what is left
/// says how the clients behave.
fn behaviour(value: Option<serde_json::Value>) -> Option<serde_json::Value> {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("doc");
                map.remove("source");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    value.map(|mut v| {
        strip(&mut v);
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(what: &str) -> Change {
        Change {
            interface: "v3".into(),
            impact: Impact::Breaking,
            what: what.into(),
        }
    }

    #[test]
    fn a_change_names_its_subject_and_type() {
        let field = change("field `Unit.vin` removed");
        assert_eq!(
            (field.subject(), field.type_name()),
            (Some("Unit.vin"), Some("Unit"))
        );
        let narrowed = change("`Unit.year`: type `integer` is now `string`");
        assert_eq!(narrowed.type_name(), Some("Unit"));
        let member = change("union `Result`: member `pdf_form` removed");
        assert_eq!(member.type_name(), Some("Result"));
        let op = change("operation `get_unit`: answer changed");
        assert_eq!((op.subject(), op.type_name()), (Some("get_unit"), None));
        let list = change("sync list `list_units` removed");
        assert_eq!(
            (list.subject(), list.type_name()),
            (Some("list_units"), None)
        );
        assert_eq!(change("pagination changed").subject(), None);
    }
}

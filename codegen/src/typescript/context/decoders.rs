//! The generated decoders of an interface (`decoders.ts`): per record, union and page of
//! records a straight-line function that reads a parsed answer in place exactly as the
//! runtime's walk over the descriptors does (ids sent as numbers become text, collections
//! left out become empty, `null`s of optional properties are removed, unknown members
//! are marked; everything else stays as sent). On anything else it gives up (`mismatch()`),
//! and the walk reads the answer again and names what does not fit. Enums need none: the
//! walk only asks for a string, and keeps unknown values as they are.

use serde::Serialize;

use crate::ir::{Builtin, Field, Interface, Object, TypeId, TypeKind, TypeRef};
use crate::typescript::names::{self, Scope};

/// The decoders of an interface, in the registry's order.
#[derive(Serialize, Default)]
pub struct DecodersCx {
    pub records: Vec<RecordDecoderCx>,
    pub unions: Vec<UnionDecoderCx>,
    /// Some record is an inferred envelope (its decoder then tells a bare record).
    pub envelopes: bool,
}

/// A record's decoder (`d_Unit`) and the function reading its fields in place (`f_Unit`),
/// which a union calls for its member.
#[derive(Serialize)]
pub struct RecordDecoderCx {
    /// What the record is (for the doc line): its spec name or the page's.
    pub what: String,
    pub name: String,
    pub fields_name: String,
    /// The envelope property (a literal) and the properties its record lists (literals):
    /// a bare record is read as wrapped.
    pub envelope: Option<(String, Vec<String>)>,
    pub fields: Vec<FieldReadCx>,
}

/// How one property is read: fetched (`read`) into `x`, then the first branch whose test
/// holds runs (a branch without a test: `else`).
#[derive(Serialize)]
pub struct FieldReadCx {
    pub read: String,
    pub branches: Vec<BranchCx>,
}

#[derive(Serialize)]
pub struct BranchCx {
    pub test: Option<String>,
    /// Statements, a line each (nested blocks indented).
    pub body: Vec<String>,
}

#[derive(Serialize)]
pub struct UnionDecoderCx {
    pub what: String,
    pub name: String,
    /// How the tag is fetched.
    pub tag: String,
    /// Each member: its tag value (a literal) and the statement reading its fields, or
    /// none when the decoder leaves it to the walk.
    pub members: Vec<(String, Option<String>)>,
}

/// The properties every object inherits from `Object.prototype`: fetched as the walk
/// fetches them (`own`: an inherited function reads as absent).
const INHERITED: &[&str] = &[
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

/// The names `decoders.ts` declares: per record its decoder and the function reading its
/// fields (`d_Unit`, `f_Unit`), per union its decoder, per page of records both
/// (`d_page_Unit`, `f_page_Unit`); each distinct, none an import's.
pub struct DecoderNames {
    types: Vec<Option<(String, String)>>,
    pages: Vec<(String, String)>,
}

/// What `decoders.ts` imports.
const IMPORTS: &[&str] = &["isObject", "markUnknown", "mismatch", "own", "readId"];

impl DecoderNames {
    /// The names for the declared types of `i` (their TypeScript names `type_names`) and
    /// the pages of `pages` (item types, in the registry's order).
    pub fn new(i: &Interface, type_names: &[String], pages: &[&TypeRef]) -> Self {
        let mut scope = Scope::new(IMPORTS, |_| false);
        let mut both = |base: &str| {
            (
                scope.claim(&format!("d_{base}")),
                scope.claim(&format!("f_{base}")),
            )
        };
        let types = i
            .types
            .iter()
            .zip(type_names)
            .map(|(t, name)| {
                // A type only ever sent is never decoded: it gets no decoder.
                let decoded = t.usage.response_side()
                    && matches!(t.kind, TypeKind::Object(_) | TypeKind::Union(_));
                decoded.then(|| both(name))
            })
            .collect();
        let pages = pages
            .iter()
            .enumerate()
            .map(|(n, item)| match item {
                TypeRef::Named(id) => both(&format!("page_{}", type_names[id.index()])),
                _ => both(&format!("page{n}")),
            })
            .collect();
        DecoderNames { types, pages }
    }

    /// The decoder of the record or union `id`.
    pub fn decoder(&self, id: TypeId) -> Option<&str> {
        self.types[id.index()].as_ref().map(|(d, _)| d.as_str())
    }

    fn fields(&self, id: TypeId) -> &str {
        self.types[id.index()]
            .as_ref()
            .map_or("", |(_, f)| f.as_str())
    }

    /// The decoder of the `n`th page.
    pub fn page(&self, n: usize) -> Option<&str> {
        self.pages.get(n).map(|(d, _)| d.as_str())
    }
}

/// The decoders of every record and union of `i`, and of each page of `pages` (item types,
/// in the registry's order), when the interface has a list envelope.
pub fn decoders(i: &Interface, dn: &DecoderNames, pages: &[&TypeRef]) -> DecodersCx {
    let mut out = DecodersCx::default();
    for (index, t) in i.types.iter().enumerate() {
        let id = TypeId(index as u32);
        // A type only ever sent has no decoder.
        let Some(name) = dn.decoder(id) else {
            continue;
        };
        match &t.kind {
            TypeKind::Object(o) => out.records.push(record(i, dn, id, o)),
            TypeKind::Union(u) => out.unions.push(UnionDecoderCx {
                what: format!("`{}`", t.name),
                name: name.to_string(),
                tag: read(&u.tag),
                members: u
                    .variants
                    .iter()
                    .map(|v| {
                        let call = matches!(i.ty(v.shape).kind, TypeKind::Object(_))
                            .then(|| format!("{}(v);", dn.fields(v.shape)));
                        (names::string(&v.tag_value), call)
                    })
                    .collect(),
            }),
            _ => {}
        }
    }
    if let Some((items, paging, paging_type)) = i.cursor_envelope() {
        for (n, item) in pages.iter().enumerate() {
            let (name, fields_name) = dn.pages[n].clone();
            let items = Field {
                name: items.to_string(),
                ty: TypeRef::Array(Box::new((*item).clone())),
                ..plain_field()
            };
            let paging = Field {
                name: paging.to_string(),
                ty: TypeRef::Named(paging_type),
                ..plain_field()
            };
            out.records.push(RecordDecoderCx {
                what: format!("`{}`", i.spelled(&TypeRef::Page(Box::new((*item).clone())))),
                name,
                fields_name,
                envelope: None,
                fields: [items, paging]
                    .iter()
                    .filter_map(|f| field(i, dn, f))
                    .collect(),
            });
        }
    }
    out.envelopes = out.records.iter().any(|r| r.envelope.is_some());
    out
}

fn plain_field() -> Field {
    Field {
        name: String::new(),
        doc: String::new(),
        ty: TypeRef::Builtin(Builtin::Json),
        required: false,
        nullable: false,
        sensitive: false,
        constraints: Default::default(),
        not_shown: None,
        source: Default::default(),
    }
}

fn record(i: &Interface, dn: &DecoderNames, id: TypeId, o: &Object) -> RecordDecoderCx {
    // As the descriptor lists them: the fields, then those of the one-of groups, which
    // their group requires, not each alone.
    let group = o.one_of.iter().flat_map(|one| {
        one.variants.iter().flat_map(|v| {
            v.fields.iter().map(|f| Field {
                required: false,
                ..f.clone()
            })
        })
    });
    let fields = o
        .fields
        .iter()
        .cloned()
        .chain(group)
        .filter_map(|f| field(i, dn, &f))
        .collect();
    RecordDecoderCx {
        what: format!("`{}`", i.ty(id).name),
        name: dn.decoder(id).unwrap_or_default().to_string(),
        fields_name: dn.fields(id).to_string(),
        envelope: envelope(i, o),
        fields,
    }
}

/// An inferred envelope's property and the properties of the record it wraps: an object
/// with another property that record lists is the bare record (a transaction holds its
/// nested `transaction`).
fn envelope(i: &Interface, o: &Object) -> Option<(String, Vec<String>)> {
    let field = o.envelope_field()?;
    let TypeKind::Object(inner) = &i.ty(field.ty.named()?).kind else {
        return None;
    };
    let listed = inner.wire_fields().map(|f| names::string(&f.name));
    Some((names::string(&field.name), listed.collect()))
}

/// How the property `name` of `v` is fetched.
fn read(name: &str) -> String {
    if INHERITED.contains(&name) {
        format!("own(v, {})", names::string(name))
    } else {
        format!("v[{}]", names::string(name))
    }
}

/// How the field `f` is read, as the walk's `decFields` reads it: absent, it is filled
/// (a collection the service may leave out), refused (required) or left absent; `null`, it
/// is kept (nullable), filled, refused (required) or removed; any other value is read as
/// its type. None: there is nothing to check or change.
fn field(i: &Interface, dn: &DecoderNames, f: &Field) -> Option<FieldReadCx> {
    let slot = format!("v[{}]", names::string(&f.name));
    let fill = match (&f.ty, f.required || f.nullable) {
        (TypeRef::Array(_), false) => Some(format!("{slot} = [];")),
        (TypeRef::Map(_), false) => Some(format!("{slot} = {{}};")),
        _ => None,
    };
    let refuse = || "mismatch();".to_string();
    let absent = match (&fill, f.required) {
        (Some(fill), _) => Some(fill.clone()),
        (None, true) => Some(refuse()),
        (None, false) => None,
    };
    let null = if f.nullable {
        None
    } else if let Some(fill) = &fill {
        Some(fill.clone())
    } else if f.required {
        Some(refuse())
    } else {
        Some(format!("delete {slot};"))
    };
    let value = value(i, dn, &f.ty, "x", &slot, 1);
    let mut branches = Vec::new();
    // The tests of the cases with nothing to do, which the value's branch then excludes.
    let mut skipped = Vec::new();
    for (test, other, action) in [
        ("x === undefined", "x !== undefined", absent),
        ("x === null", "x !== null", null),
    ] {
        match action {
            Some(action) => branches.push(BranchCx {
                test: Some(test.to_string()),
                body: vec![action],
            }),
            None => skipped.push(other),
        }
    }
    if !value.is_empty() {
        let test = (!skipped.is_empty() || branches.is_empty()).then(|| skipped.join(" && "));
        branches.push(BranchCx { test, body: value });
    }
    (!branches.is_empty()).then(|| FieldReadCx {
        read: read(&f.name),
        branches,
    })
}

/// The statements reading `var` (neither absent nor, for a property, `null`) as `ty`, and
/// writing what changes to `slot`; `depth` numbers the variables of nested collections.
fn value(
    i: &Interface,
    dn: &DecoderNames,
    ty: &TypeRef,
    var: &str,
    slot: &str,
    depth: usize,
) -> Vec<String> {
    let test = |t: &str| vec![format!("if ({t}) mismatch();")];
    let string = || test(&format!("typeof {var} !== \"string\""));
    match ty {
        TypeRef::Builtin(b) => match b {
            Builtin::String
            | Builtin::Url
            | Builtin::Date
            | Builtin::DateTime
            | Builtin::DateOrDateTime => string(),
            Builtin::Integer | Builtin::Int32 => test(&format!("!Number.isInteger({var})")),
            Builtin::Number => test(&format!("typeof {var} !== \"number\"")),
            Builtin::Boolean => test(&format!("typeof {var} !== \"boolean\"")),
            Builtin::DateTimeOrRange | Builtin::Json | Builtin::Binary => Vec::new(),
        },
        TypeRef::Named(id) => match &i.ty(*id).kind {
            TypeKind::Id { .. } => vec![format!(
                "if (typeof {var} !== \"string\") {slot} = readId({var});"
            )],
            TypeKind::Enum(_) => string(),
            TypeKind::ScalarUnion(_) | TypeKind::RecordRef(_) => Vec::new(),
            TypeKind::Object(o) if o.envelope.is_some() => {
                let r = format!("r{depth}");
                vec![
                    format!(
                        "const {r} = {}({var});",
                        dn.decoder(*id).unwrap_or_default()
                    ),
                    format!("if ({r} !== {var}) {slot} = {r};"),
                ]
            }
            TypeKind::Object(_) | TypeKind::Union(_) => {
                vec![format!("{}({var});", dn.decoder(*id).unwrap_or_default())]
            }
        },
        TypeRef::Array(inner) => {
            let (item, index) = (format!("y{depth}"), format!("i{depth}"));
            let inner = value(i, dn, inner, &item, &format!("{var}[{index}]"), depth + 1);
            let mut out = test(&format!("!Array.isArray({var})"));
            if !inner.is_empty() {
                out.push(format!(
                    "for (let {index} = 0; {index} < {var}.length; {index}++) {{"
                ));
                out.push(format!("  const {item}: unknown = {var}[{index}];"));
                out.extend(inner.into_iter().map(|line| format!("  {line}")));
                out.push("}".to_string());
            }
            out
        }
        TypeRef::Map(inner) => {
            let (item, key) = (format!("y{depth}"), format!("k{depth}"));
            let inner = value(i, dn, inner, &item, &format!("{var}[{key}]"), depth + 1);
            let mut out = test(&format!("!isObject({var})"));
            if !inner.is_empty() {
                out.push(format!("for (const {key} of Object.keys({var})) {{"));
                out.push(format!("  const {item}: unknown = {var}[{key}];"));
                out.extend(inner.into_iter().map(|line| format!("  {line}")));
                out.push("}".to_string());
            }
            out
        }
        // Read as `json` without a list envelope; a page nested in a record is left to the walk.
        TypeRef::Page(_) if i.cursor_envelope().is_none() => Vec::new(),
        TypeRef::Page(_) => vec!["mismatch();".to_string()],
        TypeRef::JsonEncoded(inner) => value(i, dn, inner, var, slot, depth),
    }
}

//! The types of an interface: declared types (records, enums, unions, ids, record
//! references, scalar unions), their fields and limits, and type references.

use serde::{Deserialize, Serialize};

use super::{CharClass, ScalarKind, Source, TypeId};

/// Which side of the wire uses a type. Request types are validated and closed; response
/// types are lenient and open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub request: bool,
    pub response: bool,
}

impl Usage {
    /// Only ever sent: checked strictly, never needs to tolerate what the service adds.
    pub fn request_only(&self) -> bool {
        self.request && !self.response
    }

    /// Read from answers, or from nothing: decoded tolerantly (unknown properties kept,
    /// unknown members and values kept).
    pub fn response_side(&self) -> bool {
        !self.request_only()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TypeDef {
    pub name: String,
    pub doc: String,
    pub kind: TypeKind,
    pub usage: Usage,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeKind {
    Object(Object),
    Enum(Enum),
    Union(Union),
    ScalarUnion(Vec<ScalarKind>),
    /// An opaque id, sent as a string. `accepts_integers`: the interface also takes one
    /// written as a JSON integer (the legacy examples show both); otherwise a number is
    /// not an id.
    Id {
        max_length: Option<u32>,
        #[serde(default)]
        accepts_integers: bool,
    },
    RecordRef(RecordRef),
}

/// A path reference: an id, an external id (`_<external id>`), or a self keyword.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordRef {
    pub id_type: TypeId,
    pub external: bool,
    pub self_keyword: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Object {
    pub fields: Vec<Field>,
    /// A record envelope: the field holding the record. An answer without it is the bare
    /// record, read as if wrapped. (Every object keeps properties the spec does not list.)
    pub envelope: Option<String>,
    pub one_of: Option<OneOf>,
    pub not_shown: Option<String>,
    pub source: Source,
}

impl Object {
    /// The field a record envelope holds its record in (`asset` of `{asset: ...}`).
    pub fn envelope_field(&self) -> Option<&Field> {
        let key = self.envelope.as_deref()?;
        self.fields.iter().find(|f| f.name == key)
    }

    /// Every property of the record on the wire: its fields, then the fields of each
    /// exactly-one-of variant (flattened into the record).
    pub fn wire_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().chain(
            self.one_of
                .iter()
                .flat_map(|one| one.variants.iter().flat_map(|v| &v.fields)),
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OneOf {
    /// Field name in generated code.
    pub name: String,
    /// Name of the generated choice type.
    pub type_name: String,
    pub doc: String,
    pub variants: Vec<OneOfVariant>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OneOfVariant {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Field {
    /// The name on the wire (JSON property or query/path parameter).
    pub name: String,
    pub doc: String,
    pub ty: TypeRef,
    pub required: bool,
    pub nullable: bool,
    pub sensitive: bool,
    pub constraints: Constraints,
    pub not_shown: Option<String>,
    pub source: Source,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraints {
    pub max_length: Option<u32>,
    pub length: Option<u32>,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub chars: Option<CharRule>,
    pub max_items: Option<u32>,
    pub min_items: Option<u32>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }

    /// The numeric limits that are set, by their snake_case names, in a fixed order (each
    /// backend spells the names its own way).
    pub fn numbers(&self) -> Vec<(&'static str, i64)> {
        [
            ("max_length", self.max_length.map(i64::from)),
            ("length", self.length.map(i64::from)),
            ("min", self.min),
            ("max", self.max),
            ("min_items", self.min_items.map(i64::from)),
            ("max_items", self.max_items.map(i64::from)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharRule {
    pub allow: CharClass,
    pub forbid: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Enum {
    /// Unknown values are kept (response side); a closed enum refuses them.
    pub open: bool,
    pub values: Vec<EnumValue>,
    pub not_shown: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnumValue {
    pub wire: String,
    pub doc: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Union {
    /// The discriminating property.
    pub tag: String,
    pub variants: Vec<Variant>,
    /// An unknown tag value is kept with its whole object (every union a response reaches:
    /// the service may add members at any time).
    pub open: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Variant {
    pub tag_value: String,
    /// The object carried by this tag value (the union's common fields first).
    pub shape: TypeId,
    pub doc: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Builtin {
    String,
    Integer,
    Int32,
    Boolean,
    Number,
    Date,
    DateTime,
    DateOrDateTime,
    DateTimeOrRange,
    Url,
    Json,
    Binary,
}

impl Builtin {
    pub const ALL: &'static [(&'static str, Builtin)] = &[
        ("string", Builtin::String),
        ("integer", Builtin::Integer),
        ("int64", Builtin::Integer),
        ("int32", Builtin::Int32),
        ("boolean", Builtin::Boolean),
        ("number", Builtin::Number),
        ("date", Builtin::Date),
        ("date-time", Builtin::DateTime),
        ("date-or-date-time", Builtin::DateOrDateTime),
        ("date-time-or-range", Builtin::DateTimeOrRange),
        ("url", Builtin::Url),
        ("json", Builtin::Json),
        ("binary", Builtin::Binary),
    ];

    /// Its name in the spec (`date-time`; `integer` for `int64` too).
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("json", |(n, _)| n)
    }

    pub fn from_name(name: &str) -> Option<Builtin> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    pub fn is_string_like(self) -> bool {
        matches!(self, Builtin::String | Builtin::Url)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Builtin::Integer | Builtin::Int32)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRef {
    Builtin(Builtin),
    Named(TypeId),
    Array(Box<TypeRef>),
    Map(Box<TypeRef>),
    /// The interface's list envelope around records of this type.
    Page(Box<TypeRef>),
    /// A query value sent as the JSON text of this type.
    JsonEncoded(Box<TypeRef>),
}

impl TypeRef {
    /// The declared type this reference mentions, looking through containers.
    pub fn named(&self) -> Option<TypeId> {
        match self {
            TypeRef::Named(n) => Some(*n),
            TypeRef::Array(t) | TypeRef::Map(t) | TypeRef::Page(t) | TypeRef::JsonEncoded(t) => {
                t.named()
            }
            TypeRef::Builtin(_) => None,
        }
    }
}

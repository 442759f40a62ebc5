//! Every generated model's serde impls (written out, not derived): records read in one pass
//! and written field by field, forward-compatible enums and unions, tolerant ids and
//! date-times, absent-versus-null fields, date-or-date-time values, and the properties a
//! record keeps beyond those the spec lists.

mod date;
mod encode;
mod fields;
mod kept;
mod open_enum;
mod record;
mod tagged;
mod text;
mod time_range;
mod timestamp;
mod union;
mod visit;

pub use date::DateOrDateTime;
pub use encode::{EncodeFields, encode_present, encode_record};
pub use fields::{deserialize_id, pick_one_of};
pub use open_enum::{ClosedVisitor, FromStrVisitor, UnknownValue};
pub use record::{Record, enveloped};
pub use tagged::{DecodeUnion, decode_union};
pub(crate) use text::without_position;
pub use time_range::TimeOrRange;
pub use timestamp::Tolerant;
pub use union::{UnknownMember, capture, decode_variant, read_tag, serialize_tagged};
pub use visit::{DecodeRecord, Fields, Key, decode_record, field, required};

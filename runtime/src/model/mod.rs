//! What generated models need beyond plain serde derives: forward-compatible enums and
//! unions, tolerant ids, absent-versus-null fields and date-or-date-time values.

mod date;
mod fields;
mod open_enum;
mod time_range;
mod union;

pub use date::DateOrDateTime;
pub use fields::{deserialize_id, null_as_default, nullable, pick_one_of};
pub use open_enum::{FromStrVisitor, UnknownValue};
pub use time_range::TimeOrRange;
pub(crate) use union::without_position;
pub use union::{UnknownMember, capture, decode_variant, read_tag, serialize_tagged};

//! Go names for spec names: exported identifiers in MixedCaps with Go's initialisms
//! (`UnitID`, `PdfShareURL`), unexported ones for the package's helpers, each distinct in
//! its scope and none a name the package or a type already declares (a trailing `_`).
//! Wire names are never changed: the JSON code keeps them.

pub use crate::scope::Scope;
use crate::scope::{Case, Casing};

/// Go's keywords (the spec, "Keywords").
pub const KEYWORDS: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];

/// The names an interface package declares whatever the spec: the runtime's types it
/// re-exports, its constructors, and the version constant.
pub const PACKAGE_NAMES: &[&str] = &[
    "APIError",
    "CallOption",
    "Client",
    "ConfigError",
    "ContextError",
    "Date",
    "DateOnly",
    "DateOrDateTime",
    "DateTimeOrRange",
    "DecodeError",
    "ErrBadRequest",
    "ErrConflict",
    "ErrForbidden",
    "ErrNotFound",
    "ErrRateLimited",
    "ErrServer",
    "ErrUnauthorized",
    "ErrUnprocessable",
    "ErrorKind",
    "Event",
    "ForeignOriginError",
    "Member",
    "Members",
    "NewClient",
    "NotReadyError",
    "Null",
    "Opt",
    "Option",
    "Pager",
    "PagingInterruptedError",
    "PagingStalledError",
    "ParseEvent",
    "ParseResume",
    "Resume",
    "Some",
    "TimeoutError",
    "TooLargeError",
    "TransportError",
    "Upserted",
    "ValidationError",
    "Version",
    "VerifyDelivery",
    "Violation",
    "WebhookError",
    "WithAttemptTimeout",
    "WithBackoff",
    "WithBaseURL",
    "WithCallAttemptTimeout",
    "WithCallAttempts",
    "WithHTTPClient",
    "WithHeader",
    "WithHook",
    "WithLogger",
    "WithContentType",
    "WithMaxAttempts",
    "WithMaxEmptyPages",
    "WithMaxErrorBytes",
    "WithMaxResponseBytes",
    "WithPolling",
    "WithRateLimit",
    "WithoutRateLimit",
    "WithoutValidation",
];

/// The methods every client has besides its operations' (`send` its own helper).
pub const CLIENT_METHODS: &[&str] = &[
    "FetchPresigned",
    "FetchPresignedTo",
    "LogIn",
    "PutParts",
    "PutPresigned",
    "send",
];

/// The methods every generated struct has: a field may not take their names.
pub const STRUCT_METHODS: &[&str] = &[
    "Extra",
    "MarshalJSON",
    "SetExtra",
    "String",
    "UnmarshalJSON",
    "Validate",
];

/// Words written all in capitals inside a name, as Go code writes them (the list
/// golint used, and PDF).
const INITIALISMS: &[&str] = &[
    "ACL", "API", "ASCII", "CPU", "CSS", "DNS", "EOF", "GUID", "HTML", "HTTP", "HTTPS", "ID", "IP",
    "JSON", "PDF", "QPS", "RAM", "RPC", "SLA", "SMTP", "SQL", "SSH", "TCP", "TLS", "TTL", "UDP",
    "UI", "UID", "UUID", "URI", "URL", "UTF8", "VM", "XML", "XMPP", "XSRF", "XSS",
];

/// Whether an interface cannot be a Go package folder of that name: a keyword, or a name
/// the go command treats specially (`internal` holds the runtime; `testdata` and `vendor`
/// folders are skipped).
pub fn reserved_module(name: &str) -> bool {
    KEYWORDS.contains(&name) || ["internal", "testdata", "vendor"].contains(&name)
}

/// The scope of an interface package's exported names (types, their constants and
/// members).
pub fn package_scope() -> Scope {
    Scope::new(PACKAGE_NAMES, |_| false)
}

/// The scope of one struct's fields.
pub fn field_scope() -> Scope {
    Scope::new(STRUCT_METHODS, |_| false)
}

/// An exported name: MixedCaps, Go's initialisms in capitals, a leading digit prefixed
/// (`3d_model` -> `T3dModel`).
pub const EXPORTED: Casing = Casing {
    case: Case::Initialisms(INITIALISMS),
    prefix: "T",
};

/// `name` as an exported name ([`EXPORTED`]).
pub fn exported(name: &str) -> String {
    EXPORTED.apply(name)
}

/// A Go string literal of `text`: JSON's escapes as serde writes them (`\"`, `\\`, the
/// control characters) are Go's too, and other characters are written as they are.
pub use crate::templates::quoted as string;

/// Every name the backend reserves, for the fuzzer.
pub const OWN_NAMES: &[&[&str]] = &[KEYWORDS, PACKAGE_NAMES, STRUCT_METHODS];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_exported_go_identifiers_with_initialisms() {
        assert_eq!(exported("unit_id"), "UnitID");
        assert_eq!(exported("pdf_share_url"), "PDFShareURL");
        assert_eq!(exported("Inspection"), "Inspection");
        assert_eq!(exported("3d_model"), "T3dModel");
        assert_eq!(exported("in-progress"), "InProgress");
        assert_eq!(exported("3/4"), "T34");
        assert_eq!(exported("ids"), "Ids");
        assert_eq!(exported("api_key_id"), "APIKeyID");
    }

    #[test]
    fn package_and_struct_names_are_never_taken_twice() {
        let mut package = package_scope();
        assert_eq!(package.claim(&exported("opt")), "Opt_");
        assert_eq!(package.claim(&exported("unit")), "Unit");
        assert_eq!(package.claim(&exported("Unit")), "Unit_");
        let mut fields = field_scope();
        assert_eq!(fields.claim(&exported("extra")), "Extra_");
        assert_eq!(fields.claim(&exported("name")), "Name");
        assert!(reserved_module("type"));
        assert!(reserved_module("internal"));
        assert!(!reserved_module("v3"));
    }
}

//! The change classification: one spec mutation per rule of the table in docs/maintainers.md, each asserting how users of the clients are affected.

use codegen::ir::Api;
use codegen::ir::diff::{Change, Impact, diff};

/// A small spec with a request record, a response record, an open enum, a union and two
/// operations (one with a limited path parameter and query parameters).
const BASE: &str = r#"
interface:
  name: shop
  title: Shop
  doc: A test interface.
  base_url: { placeholder: "{base_url}", example: "https://example.test", doc: Root. }
  auth:
    api_key_headers:
      doc: Keys.
      unauthorized_status: 401
      headers:
        key: { doc: The key id. }
        secret: { doc: The secret., sensitive: true }
  versioning: None.
types:
  Kind:
    enum:
      doc: Kinds.
      open: true
      values:
        small: Small.
        large: Large.
  NewItem:
    object:
      doc: A request body.
      fields:
        name: { type: string, doc: The name., required: true, max_length: 50 }
        note: { type: string, doc: A note. }
  Item:
    object:
      doc: A response record.
      fields:
        id: { type: string, doc: The id., required: true }
        kind: { type: Kind, doc: Its kind. }
        shape: { type: Shape, doc: Its shape. }
  Shape:
    union:
      doc: A shape.
      tag: form
      variants:
        round: { shape: Round, doc: Round. }
  Round:
    object:
      doc: A round shape.
      fields:
        radius: { type: integer, doc: The radius. }
operations:
  create_item:
    doc: Creates an item.
    method: POST
    path: /items
    body: { type: NewItem }
    responses:
      - { status: 201, body: Item, doc: The item. }
  find_item:
    doc: Finds an item.
    method: GET
    path: /items/{code}
    path_params:
      code: { type: string, doc: The code., max_length: 9 }
    query:
      color: { type: string, doc: A color. }
    responses:
      - { status: 200, body: Item, doc: The item. }
"#;

fn load(text: &str) -> Api {
    Api::new(vec![
        codegen::load_str("shop.yaml", text).unwrap_or_else(|d| panic!("{d}")),
    ])
}

/// The changes `edit` makes to the base spec.
fn changes(edit: impl Fn(&str) -> String) -> Vec<Change> {
    let edited = edit(BASE);
    assert_ne!(edited, BASE, "the mutation must change the spec");
    diff(&load(BASE), &load(&edited))
}

fn replace(from: &'static str, to: &'static str) -> impl Fn(&str) -> String {
    move |text: &str| {
        assert!(text.contains(from), "the base spec has no `{from}`");
        text.replacen(from, to, 1)
    }
}

/// The impact of the changes whose text names `what` (there must be one, and when several
/// name it they must agree).
fn classified(found: &[Change], what: &str) -> Impact {
    let named: Vec<Impact> = found
        .iter()
        .filter(|c| c.what.contains(what))
        .map(|c| c.impact)
        .collect();
    let Some(first) = named.first() else {
        panic!("no change names `{what}`: {found:#?}");
    };
    assert!(
        named.iter().all(|i| i == first),
        "the changes naming `{what}` disagree: {found:#?}"
    );
    *first
}

#[test]
fn an_unchanged_spec_has_no_changes() {
    assert!(diff(&load(BASE), &load(BASE)).is_empty());
}

#[test]
fn a_new_optional_request_field_is_additive() {
    let found = changes(replace(
        "        note: { type: string, doc: A note. }\n",
        "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New. }\n",
    ));
    assert_eq!(classified(&found, "NewItem.color"), Impact::Additive);
}

#[test]
fn a_new_required_request_field_is_breaking() {
    let found = changes(replace(
        "        note: { type: string, doc: A note. }\n",
        "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New., required: true }\n",
    ));
    assert_eq!(classified(&found, "NewItem.color"), Impact::Breaking);
}

#[test]
fn a_new_response_field_is_additive() {
    let found = changes(replace(
        "        shape: { type: Shape, doc: Its shape. }\n",
        "        shape: { type: Shape, doc: Its shape. }\n        size: { type: integer, doc: New., required: true }\n",
    ));
    assert_eq!(classified(&found, "Item.size"), Impact::Additive);
}

#[test]
fn a_new_union_member_is_additive() {
    let found = changes(|t: &str| {
        replace(
            "        round: { shape: Round, doc: Round. }\n",
            "        round: { shape: Round, doc: Round. }\n        square: { shape: Round, doc: Square. }\n",
        )(t)
    });
    assert_eq!(
        classified(&found, "member `square` added"),
        Impact::Additive
    );
}

#[test]
fn a_new_enum_value_is_additive() {
    let found = changes(replace(
        "        large: Large.\n",
        "        large: Large.\n        huge: Huge.\n",
    ));
    assert_eq!(classified(&found, "value `huge` added"), Impact::Additive);
}

#[test]
fn a_looser_request_limit_is_additive() {
    let found = changes(replace("max_length: 9 }", "max_length: 20 }"));
    assert_eq!(classified(&found, "limit is looser"), Impact::Additive);
}

#[test]
fn a_tighter_request_limit_is_breaking() {
    let found = changes(replace("max_length: 50 }", "max_length: 40 }"));
    assert_eq!(classified(&found, "limit is tighter"), Impact::Breaking);
}

#[test]
fn a_new_operation_is_additive() {
    let found = changes(|t: &str| {
        format!(
            "{t}  list_items:\n    doc: Lists items.\n    method: GET\n    path: /items\n    \
             responses:\n      - {{ status: 200, body: Item, doc: An item. }}\n"
        )
    });
    assert_eq!(
        classified(&found, "operation `list_items` added"),
        Impact::Additive
    );
}

#[test]
fn a_new_optional_query_parameter_is_additive() {
    let found = changes(replace(
        "      color: { type: string, doc: A color. }\n",
        "      color: { type: string, doc: A color. }\n      size: { type: integer, doc: A size. }\n",
    ));
    assert_eq!(
        classified(&found, "query parameter `size` added"),
        Impact::Additive
    );
}

#[test]
fn a_removed_operation_is_breaking() {
    let found = changes(|t: &str| t[..t.find("  find_item:").unwrap()].to_string());
    assert_eq!(
        classified(&found, "operation `find_item` removed"),
        Impact::Breaking
    );
}

#[test]
fn a_removed_field_is_breaking() {
    let found = changes(replace(
        "        note: { type: string, doc: A note. }\n",
        "",
    ));
    assert_eq!(
        classified(&found, "NewItem.note` removed"),
        Impact::Breaking
    );
}

#[test]
fn a_removed_enum_value_is_breaking() {
    let found = changes(replace("        large: Large.\n", ""));
    assert_eq!(
        classified(&found, "value `large` removed"),
        Impact::Breaking
    );
}

#[test]
fn a_changed_type_is_breaking() {
    let found = changes(replace(
        "        radius: { type: integer, doc: The radius. }",
        "        radius: { type: string, doc: The radius. }",
    ));
    assert_eq!(
        classified(&found, "type `integer` is now `string`"),
        Impact::Breaking
    );
}

#[test]
fn a_rename_is_breaking() {
    let found = changes(replace(
        "        note: { type: string",
        "        remark: { type: string",
    ));
    assert_eq!(
        classified(&found, "NewItem.note` removed"),
        Impact::Breaking
    );
    assert!(
        found
            .iter()
            .any(|c| c.what.contains("NewItem.remark` added"))
    );
}

#[test]
fn a_docs_change_is_docs_only() {
    let found = changes(replace(
        "doc: Finds an item.",
        "doc: Finds one item by its code.",
    ));
    assert_eq!(
        classified(&found, "operation `find_item`: docs changed"),
        Impact::Docs
    );
}

/// The auth's own doc and its headers' docs say nothing about how the clients behave.
#[test]
fn an_auth_docs_change_is_docs_only() {
    for (from, to) in [
        ("      doc: Keys.\n", "      doc: The key pair.\n"),
        (
            "key: { doc: The key id. }",
            "key: { doc: The id of the key. }",
        ),
    ] {
        let found = changes(replace(from, to));
        assert_eq!(classified(&found, "authentication"), Impact::Docs, "{from}");
    }
    let found = changes(replace(
        "unauthorized_status: 401",
        "unauthorized_status: 403",
    ));
    assert_eq!(classified(&found, "authentication"), Impact::Breaking);
}

#[test]
fn a_changed_rate_limit_is_additive() {
    let found = changes(replace(
        "  versioning: None.\n",
        "  versioning: None.\n  rate_limit:\n    requests: 10\n    window_seconds: 1\n    scope: key\n    status: 429\n    doc: Ten a second.\n",
    ));
    assert_eq!(classified(&found, "rate limit"), Impact::Additive);
}

#[test]
fn a_response_field_no_longer_promised_is_breaking() {
    let found = changes(replace(
        "        id: { type: string, doc: The id., required: true }",
        "        id: { type: string, doc: The id. }",
    ));
    assert_eq!(
        classified(&found, "Item.id` is now optional"),
        Impact::Breaking
    );
}

#[test]
fn a_changed_method_is_breaking() {
    let found = changes(replace("    method: POST\n", "    method: PUT\n"));
    assert_eq!(
        classified(&found, "method or path changed"),
        Impact::Breaking
    );
}

#[test]
fn a_closed_enum_is_breaking() {
    let found = changes(replace("      open: true\n", "      open: false\n"));
    assert_eq!(classified(&found, "enum `Kind` closed"), Impact::Breaking);
}

#[test]
fn a_new_type_is_additive() {
    let found = changes(replace(
        "types:\n",
        "types:\n  Color:\n    enum:\n      doc: Colors.\n      open: true\n      values:\n        red: Red.\n",
    ));
    assert_eq!(classified(&found, "type `Color` added"), Impact::Additive);
}

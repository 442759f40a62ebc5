//! The change classification: one spec mutation per rule of the table in docs/maintainers.md,
//! each with how users of the clients are affected, as a table of cases.

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

/// A mutation of the base spec.
enum Edit {
    /// The first `from` becomes `to`.
    Replace(&'static str, &'static str),
    /// Everything from `at` on is cut (the last operations).
    CutFrom(&'static str),
    /// Text added at the end (an operation).
    Append(&'static str),
}

impl Edit {
    fn apply(&self, base: &str) -> Result<String, String> {
        let find = |what: &str| {
            base.find(what)
                .ok_or_else(|| format!("the base spec has no `{what}`"))
        };
        let edited = match *self {
            Edit::Replace(from, to) => find(from).map(|_| base.replacen(from, to, 1)),
            Edit::CutFrom(at) => find(at).map(|i| base[..i].to_string()),
            Edit::Append(text) => Ok(format!("{base}{text}")),
        }?;
        match edited == base {
            true => Err("the edit leaves the spec as it was".into()),
            false => Ok(edited),
        }
    }
}

/// One rule: an edit, and the impact of the change whose text names `names`.
struct Case {
    rule: &'static str,
    edit: Edit,
    names: &'static str,
    impact: Impact,
}

use Edit::{Append, CutFrom, Replace};
use Impact::{Additive, Breaking, Docs};

const CASES: &[Case] = &[
    Case {
        rule: "a new optional request field is additive",
        edit: Replace(
            "        note: { type: string, doc: A note. }\n",
            "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New. }\n",
        ),
        names: "NewItem.color",
        impact: Additive,
    },
    Case {
        rule: "a new required request field is breaking",
        edit: Replace(
            "        note: { type: string, doc: A note. }\n",
            "        note: { type: string, doc: A note. }\n        color: { type: string, doc: New., required: true }\n",
        ),
        names: "NewItem.color",
        impact: Breaking,
    },
    Case {
        rule: "a new response field is additive",
        edit: Replace(
            "        shape: { type: Shape, doc: Its shape. }\n",
            "        shape: { type: Shape, doc: Its shape. }\n        size: { type: integer, doc: New., required: true }\n",
        ),
        names: "Item.size",
        impact: Additive,
    },
    Case {
        rule: "a new union member is additive",
        edit: Replace(
            "        round: { shape: Round, doc: Round. }\n",
            "        round: { shape: Round, doc: Round. }\n        square: { shape: Round, doc: Square. }\n",
        ),
        names: "member `square` added",
        impact: Additive,
    },
    Case {
        rule: "a new enum value is additive",
        edit: Replace(
            "        large: Large.\n",
            "        large: Large.\n        huge: Huge.\n",
        ),
        names: "value `huge` added",
        impact: Additive,
    },
    Case {
        rule: "a looser request limit is additive",
        edit: Replace("max_length: 9 }", "max_length: 20 }"),
        names: "limit is looser",
        impact: Additive,
    },
    Case {
        rule: "a tighter request limit is breaking",
        edit: Replace("max_length: 50 }", "max_length: 40 }"),
        names: "limit is tighter",
        impact: Breaking,
    },
    Case {
        rule: "a new operation is additive",
        edit: Append(
            "  list_items:\n    doc: Lists items.\n    method: GET\n    path: /items\n    \
             responses:\n      - { status: 200, body: Item, doc: An item. }\n",
        ),
        names: "operation `list_items` added",
        impact: Additive,
    },
    Case {
        rule: "a new optional query parameter is additive",
        edit: Replace(
            "      color: { type: string, doc: A color. }\n",
            "      color: { type: string, doc: A color. }\n      size: { type: integer, doc: A size. }\n",
        ),
        names: "query parameter `size` added",
        impact: Additive,
    },
    Case {
        rule: "a removed operation is breaking",
        edit: CutFrom("  find_item:"),
        names: "operation `find_item` removed",
        impact: Breaking,
    },
    Case {
        rule: "a removed field is breaking",
        edit: Replace("        note: { type: string, doc: A note. }\n", ""),
        names: "NewItem.note` removed",
        impact: Breaking,
    },
    Case {
        rule: "a removed enum value is breaking",
        edit: Replace("        large: Large.\n", ""),
        names: "value `large` removed",
        impact: Breaking,
    },
    Case {
        rule: "a changed type is breaking",
        edit: Replace(
            "        radius: { type: integer, doc: The radius. }",
            "        radius: { type: string, doc: The radius. }",
        ),
        names: "type `integer` is now `string`",
        impact: Breaking,
    },
    Case {
        rule: "a rename is breaking: the old name is removed",
        edit: Replace(
            "        note: { type: string",
            "        remark: { type: string",
        ),
        names: "NewItem.note` removed",
        impact: Breaking,
    },
    Case {
        rule: "a rename is breaking: the new name is added",
        edit: Replace(
            "        note: { type: string",
            "        remark: { type: string",
        ),
        names: "NewItem.remark` added",
        impact: Additive,
    },
    Case {
        rule: "a docs change is docs only",
        edit: Replace("doc: Finds an item.", "doc: Finds one item by its code."),
        names: "operation `find_item`: docs changed",
        impact: Docs,
    },
    // The auth's own doc and its headers' docs say nothing about how the clients behave.
    Case {
        rule: "the auth's doc changed is docs only",
        edit: Replace("      doc: Keys.\n", "      doc: The key pair.\n"),
        names: "authentication",
        impact: Docs,
    },
    Case {
        rule: "an auth header's doc changed is docs only",
        edit: Replace(
            "key: { doc: The key id. }",
            "key: { doc: The id of the key. }",
        ),
        names: "authentication",
        impact: Docs,
    },
    Case {
        rule: "another unauthorized status is breaking",
        edit: Replace("unauthorized_status: 401", "unauthorized_status: 403"),
        names: "authentication",
        impact: Breaking,
    },
    Case {
        rule: "a changed rate limit is additive",
        edit: Replace(
            "  versioning: None.\n",
            "  versioning: None.\n  rate_limit:\n    requests: 10\n    window_seconds: 1\n    scope: key\n    status: 429\n    doc: Ten a second.\n",
        ),
        names: "rate limit",
        impact: Additive,
    },
    Case {
        rule: "a response field no longer promised is breaking",
        edit: Replace(
            "        id: { type: string, doc: The id., required: true }",
            "        id: { type: string, doc: The id. }",
        ),
        names: "Item.id` is now optional",
        impact: Breaking,
    },
    Case {
        rule: "a changed method is breaking",
        edit: Replace("    method: POST\n", "    method: PUT\n"),
        names: "method or path changed",
        impact: Breaking,
    },
    Case {
        rule: "a closed enum is breaking",
        edit: Replace("      open: true\n", "      open: false\n"),
        names: "enum `Kind` closed",
        impact: Breaking,
    },
    Case {
        rule: "a new type is additive",
        edit: Replace(
            "types:\n",
            "types:\n  Color:\n    enum:\n      doc: Colors.\n      open: true\n      values:\n        red: Red.\n",
        ),
        names: "type `Color` added",
        impact: Additive,
    },
];

/// The impact of the changes whose text names `what` (there must be one, and when several
/// name it they must agree).
fn classified(found: &[Change], what: &str) -> Result<Impact, String> {
    let named: Vec<Impact> = found
        .iter()
        .filter(|c| c.what.contains(what))
        .map(|c| c.impact)
        .collect();
    let Some(first) = named.first() else {
        return Err(format!("no change names `{what}`: {found:#?}"));
    };
    if named.iter().any(|i| i != first) {
        return Err(format!("the changes naming `{what}` disagree: {found:#?}"));
    }
    Ok(*first)
}

#[test]
fn an_unchanged_spec_has_no_changes() {
    assert!(diff(&load(BASE), &load(BASE)).is_empty());
}

/// Every case runs; the failures are listed together, each under its rule.
#[test]
fn every_rule_classifies_its_change() {
    let base = load(BASE);
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| {
            let outcome = case.edit.apply(BASE).and_then(|edited| {
                let found = diff(&base, &load(&edited));
                let impact = classified(&found, case.names)?;
                match impact == case.impact {
                    true => Ok(()),
                    false => Err(format!("{impact:?}, not {:?}: {found:#?}", case.impact)),
                }
            });
            outcome.err().map(|e| format!("{}: {e}", case.rule))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

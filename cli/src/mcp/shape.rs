//! Answers sized for a context window: records trimmed to the fields asked for (large
//! fields left out unless named, sensitive ones always), a list's page cut short where it
//! would pass the budget with a cursor that goes on from there, and that cursor's text.

use serde_json::{Map, Value, json};

use super::{Next, Tool};

/// Where a list goes on: the service's page (`cursor:…`, `link:…`; none for the first)
/// and how many of its records were already given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cursor {
    pub resume: Option<String>,
    pub skip: usize,
}

impl Cursor {
    /// `skip=N;RESUME`, or the service's page alone.
    pub fn text(&self) -> String {
        let resume = self.resume.as_deref().unwrap_or("");
        if self.skip == 0 {
            resume.to_string()
        } else {
            format!("skip={};{resume}", self.skip)
        }
    }

    pub fn parse(text: &str) -> Result<Cursor, String> {
        let (skip, resume) = match text.strip_prefix("skip=").and_then(|t| t.split_once(';')) {
            Some((n, rest)) => (
                n.parse()
                    .map_err(|_| format!("`{text}` is not a cursor this server gave"))?,
                rest,
            ),
            None => (0, text),
        };
        let resume = (!resume.is_empty()).then(|| resume.to_string());
        if let Some(r) = &resume
            && !(r.starts_with("cursor:") || r.starts_with("link:"))
        {
            return Err(format!("`{text}` is not a cursor this server gave"));
        }
        Ok(Cursor { resume, skip })
    }
}

/// A record as the tool answers it: sensitive fields gone, then only `fields` (or every
/// field but the large ones). Gives the large fields left out.
pub fn trim(tool: &Tool, record: &mut Value, fields: Option<&[String]>) -> Vec<&'static str> {
    for path in tool.sensitive {
        remove(record, path);
    }
    match fields {
        Some(fields) => {
            *record = only(record, fields);
            Vec::new()
        }
        None => {
            let mut left = Vec::new();
            for field in tool.large {
                if record.get(field).is_some_and(|v| !v.is_null()) {
                    remove(record, field);
                    left.push(*field);
                }
            }
            left
        }
    }
}

fn remove(value: &mut Value, path: &str) {
    match path.split_once('.') {
        Some((head, rest)) => {
            if let Some(inner) = value.get_mut(head) {
                remove(inner, rest);
            }
        }
        None => {
            if let Value::Object(map) = value {
                map.remove(path);
            }
        }
    }
}

/// Only the values at `fields` (dotted paths) of `record`, nested as they were.
fn only(record: &Value, fields: &[String]) -> Value {
    let mut out = Map::new();
    for path in fields {
        let parts: Vec<&str> = path.split('.').collect();
        if let Some(found) = parts.iter().try_fold(record, |v, p| v.get(p)) {
            put(&mut out, &parts, found.clone());
        }
    }
    Value::Object(out)
}

fn put(map: &mut Map<String, Value>, parts: &[&str], value: Value) {
    match parts {
        [] => {}
        [last] => {
            map.insert(last.to_string(), value);
        }
        [head, rest @ ..] => {
            let inner = map.entry(head.to_string()).or_insert_with(|| json!({}));
            if let Value::Object(inner) = inner {
                put(inner, rest, value);
            }
        }
    }
}

/// The next page's cursor in a page's JSON, as the tool's cursor.
pub fn next_of(next: &Next, page: &Value) -> Option<String> {
    let (path, prefix) = match next {
        Next::Cursor(path) => (path, "cursor:"),
        Next::Link(path) => (path, "link:"),
    };
    let value = path.iter().try_fold(page, |v, p| v.get(p))?.as_str()?;
    (!value.is_empty()).then(|| format!("{prefix}{value}"))
}

/// A page of a list as the tool answers it: its records from `at.skip` on, as many as
/// fit `budget` and `max_items`, and the cursor that goes on after the last one given.
pub fn page(
    tool: &Tool,
    page: &Value,
    at: &Cursor,
    fields: Option<&[String]>,
    max_items: Option<usize>,
    budget: usize,
) -> Value {
    let (items_field, next) = match &tool.paged {
        Some(p) => (p.items, next_of(&p.next, page)),
        None => ("data", None),
    };
    let records = page
        .get(items_field)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let total = records.len();
    let mut given = Vec::new();
    let mut left_out: Vec<&'static str> = Vec::new();
    let mut size = 200;
    let mut taken = at.skip;
    for mut record in records.into_iter().skip(at.skip) {
        if max_items.is_some_and(|m| given.len() >= m) {
            break;
        }
        for f in trim(tool, &mut record, fields) {
            if !left_out.contains(&f) {
                left_out.push(f);
            }
        }
        let bytes = serde_json::to_string(&record).map_or(0, |t| t.len()) + 1;
        if size + bytes > budget && !given.is_empty() {
            break;
        }
        size += bytes;
        given.push(record);
        taken += 1;
    }
    let cursor = if taken < total {
        Some(
            Cursor {
                resume: at.resume.clone(),
                skip: taken,
            }
            .text(),
        )
    } else {
        next
    };
    let mut answer = json!({"items": given, "next_cursor": cursor});
    if !left_out.is_empty() {
        answer["left_out"] = json!(left_out);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Paged;

    static TOOL: Tool = Tool {
        name: "list_inspections",
        operation: "list_inspections",
        description: "",
        schema: "{}",
        read_only: true,
        destructive: false,
        idempotent: true,
        params: &[],
        body: false,
        paged: Some(Paged {
            items: "data",
            next: Next::Cursor(&["paging", "cursor"]),
            page_size: None,
        }),
        large: &["results"],
        sensitive: &["user.token"],
        document: false,
    };

    fn page_of(n: usize, cursor: Option<&str>) -> Value {
        let data: Vec<Value> = (0..n)
            .map(|k| json!({"id": format!("ins_{k}"), "results": [1, 2], "user": {"id": "u", "token": "t"}, "note": "x".repeat(100)}))
            .collect();
        json!({"data": data, "paging": {"cursor": cursor}})
    }

    #[test]
    fn a_page_stops_within_its_budget_and_goes_on_from_where_it_stopped() {
        let first = page(
            &TOOL,
            &page_of(100, Some("abc")),
            &Cursor::default(),
            None,
            None,
            2_000,
        );
        let given = first["items"].as_array().unwrap();
        assert!(given.len() < 100 && !given.is_empty(), "{}", given.len());
        assert!(serde_json::to_string(&first).unwrap().len() <= 2_000);
        assert_eq!(first["left_out"], json!(["results"]));
        assert!(
            given
                .iter()
                .all(|r| r.get("results").is_none() && r["user"].get("token").is_none())
        );
        let cursor = Cursor::parse(first["next_cursor"].as_str().unwrap()).unwrap();
        assert_eq!(
            cursor,
            Cursor {
                resume: None,
                skip: given.len()
            }
        );
        let rest = page(
            &TOOL,
            &page_of(100, Some("abc")),
            &cursor,
            None,
            Some(5),
            60_000,
        );
        assert_eq!(
            rest["items"][0]["id"],
            json!(format!("ins_{}", given.len()))
        );
        assert_eq!(rest["items"].as_array().unwrap().len(), 5);
        let last = page(
            &TOOL,
            &page_of(3, Some("abc")),
            &Cursor::default(),
            None,
            None,
            60_000,
        );
        assert_eq!(
            last["next_cursor"],
            json!("cursor:abc"),
            "a whole page goes on to the service's next"
        );
    }

    #[test]
    fn fields_select_nested_paths_and_bring_back_large_ones_but_never_a_secret() {
        let mut record = json!({"id": "i", "results": [1], "unit": {"id": "u", "reference_number": "A"}, "user": {"token": "t"}});
        let left = trim(
            &TOOL,
            &mut record,
            Some(&[
                "unit.reference_number".into(),
                "results".into(),
                "user.token".into(),
            ]),
        );
        assert!(left.is_empty());
        assert_eq!(
            record,
            json!({"unit": {"reference_number": "A"}, "results": [1]})
        );
        for bad in ["skip=x;cursor:a", "token:abc", "skip=2;other"] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Cursor::parse("skip=4;link:http://h/p").unwrap().text(),
            "skip=4;link:http://h/p"
        );
    }
}

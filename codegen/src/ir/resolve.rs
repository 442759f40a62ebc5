//! The resolve pass: after `check`, decides what follows from the spec's meaning, once for
//! every backend: how each operation's answer is read, how its pages are walked, which
//! field of an error body holds the message, which `Accept` requests send, which unions
//! are open.

use super::{
    Answer, AnswerKind, Builtin, CallPlan, Input, Interface, Method, Operation, OperationPaging,
    Pagination, Segment, TypeKind, TypeRef,
};

/// Fills the resolved parts of a checked interface.
pub fn resolve(i: &mut Interface) {
    i.error_message_field = error_message_field(i);
    i.default_accept = i
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("accept"))
        .and_then(|h| h.value.clone());
    for t in &mut i.types {
        let open = t.usage.response_side();
        if let TypeKind::Union(u) = &mut t.kind {
            u.open = open;
        }
    }
    let plans: Vec<(Answer, Option<OperationPaging>)> = i
        .operations
        .iter()
        .map(|op| (answer(op), paging(i, op)))
        .collect();
    for (op, (answer, paging)) in i.operations.iter_mut().zip(plans) {
        op.answer = answer;
        op.paging = paging;
        op.call = call_plan(op);
    }
}

/// The path's segments (`check` has made sure every `{param}` is declared) and the name
/// of the alternative form.
fn call_plan(op: &Operation) -> CallPlan {
    let segments = op
        .path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let param = s.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
            match param.and_then(|p| op.path_params.iter().position(|f| f.name == p)) {
                Some(index) => Segment::Param { index },
                None => Segment::Text {
                    text: s.to_string(),
                },
            }
        })
        .collect();
    let alternative = op.answer.alternative.as_deref().map(|media| {
        match media {
            "application/pdf" => "pdf",
            _ => "bytes",
        }
        .to_string()
    });
    let query = |required: bool| {
        let query = op.query.iter().enumerate();
        query
            .filter(move |(_, f)| f.required == required)
            .map(|(index, _)| Input::Query { index })
    };
    let inputs = (0..op.path_params.len())
        .map(|index| Input::Path { index })
        .chain(query(true))
        .chain(op.body.iter().map(|_| Input::Body))
        .chain(query(false))
        .collect();
    CallPlan {
        segments,
        inputs,
        alternative,
    }
}

/// The first field of the error body record.
fn error_message_field(i: &Interface) -> Option<String> {
    match &i.named(i.error_body.as_ref()?)?.kind {
        TypeKind::Object(o) => o.fields.first().map(|f| f.name.clone()),
        _ => None,
    }
}

/// An answer body read as bytes: not JSON by its media type (`+json` types are JSON), or
/// declared binary.
fn is_binary(content_type: &str, body: Option<&TypeRef>) -> bool {
    !super::is_json_media(content_type) || body == Some(&TypeRef::Builtin(Builtin::Binary))
}

/// The successful answers, read as one plan: a JSON body (or a 200/201 upsert of one), a
/// binary body, or none; a 202 among them means "ask again" for a GET.
fn answer(op: &Operation) -> Answer {
    let success: Vec<_> = op.responses.iter().filter(|r| r.is_success()).collect();
    let polls = op.method == Method::GET && success.iter().any(|r| r.status == 202);
    let json: Vec<_> = success
        .iter()
        .filter(|r| r.body.is_some() && !is_binary(&r.content_type, r.body.as_ref()))
        .collect();
    let binary = success
        .iter()
        .find(|r| is_binary(&r.content_type, r.body.as_ref()))
        .map(|r| r.content_type.clone());
    let Some(first) = json.first() else {
        let kind = match binary {
            Some(content_type) => AnswerKind::Bytes { content_type },
            None => AnswerKind::Empty,
        };
        return Answer {
            kind,
            polls,
            alternative: None,
        };
    };
    let body = first
        .body
        .clone()
        .unwrap_or(TypeRef::Builtin(Builtin::Json));
    let answers_with = |status: u16| {
        json.iter()
            .any(|r| r.status == status && r.body.as_ref() == Some(&body))
    };
    let kind = if answers_with(201) && answers_with(200) {
        AnswerKind::Upsert { body }
    } else {
        let list_shaped = !op.paginated && matches!(body, TypeRef::Page(_));
        AnswerKind::Json { body, list_shaped }
    };
    Answer {
        kind,
        polls,
        alternative: binary,
    }
}

/// How a paginated operation's pages are walked, from the interface's paging style.
fn paging(i: &Interface, op: &Operation) -> Option<OperationPaging> {
    if !op.paginated {
        return None;
    }
    let success_body = || {
        op.responses
            .iter()
            .filter(|r| r.is_success())
            .find_map(|r| r.body.clone())
    };
    match i.pagination.as_ref()? {
        Pagination::Cursor(_) => {
            let Some(TypeRef::Page(item)) = success_body() else {
                return None;
            };
            Some(OperationPaging::Cursor { item: *item })
        }
        Pagination::Links(_) => {
            let items_field = op.items_field.clone()?;
            let TypeRef::Named(envelope) = success_body()? else {
                return None;
            };
            let TypeKind::Object(o) = &i.ty(envelope).kind else {
                return None;
            };
            let TypeRef::Array(item) = &o.fields.iter().find(|f| f.name == items_field)?.ty else {
                return None;
            };
            Some(OperationPaging::Links {
                envelope,
                item: (**item).clone(),
                items_field,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `+json` answer is JSON like `application/json` (it was read as bytes); a binary
    /// declaration or another media type is bytes.
    #[test]
    fn an_answer_is_json_by_its_media_type_or_bytes() {
        let record = TypeRef::Builtin(Builtin::Json);
        assert!(!is_binary("application/json", Some(&record)));
        assert!(!is_binary("application/problem+json", Some(&record)));
        assert!(!is_binary("Application/JSON; charset=utf-8", Some(&record)));
        assert!(is_binary("application/pdf", Some(&record)));
        let bytes = TypeRef::Builtin(Builtin::Binary);
        assert!(is_binary("application/json", Some(&bytes)));
    }
}

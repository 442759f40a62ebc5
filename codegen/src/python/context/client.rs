//! The context of an interface's client: its `InterfaceInfo`, constructor, login, webhooks
//! and paging plans; each operation's is `operation`'s.

use crate::doc_text;
use crate::ir::{Auth, Interface, TokenLogin, TypeId, TypeKind};
use crate::python::names;
use crate::python::types::TypeNames;
use crate::templates;

use super::operation::operation_cx;
use super::{ClientCx, LoginCx, ModuleNames, OperationCx, WebhooksCx};

pub(super) fn client_cx(i: &Interface, names: &ModuleNames) -> Result<ClientCx, String> {
    let m = TypeNames {
        names: &names.types,
        prefix: "_m.",
    };
    let mut members = names::client_scope();
    let mut constants = names::module_scope();
    for n in &names.types {
        constants.reserve(n);
    }
    let mut operations = Vec::new();
    for op in &i.operations {
        operations.push(operation_cx(i, op, names, &m, &mut members, &mut constants));
    }
    let (auth, key_params, login) = match &i.auth {
        Auth::ApiKeyHeaders { headers, .. } => {
            let mut scope = names::params_scope();
            let params = templates::key_params(headers, |h| scope.claim(&names::snake(h)));
            ("headers", params, None)
        }
        Auth::TokenLogin { .. } => (
            "token",
            Vec::new(),
            Some(login_cx(i, names, &m, &operations)?),
        ),
    };
    Ok(ClientCx {
        doc: doc_text::client(
            i,
            "",
            "turn off with `ClientOptions(validate_requests=False)`",
            "shared by every thread or task using this client",
        ),
        info: templates::info(i),
        auth,
        key_params,
        login,
        operations,
        webhooks: webhooks_cx(i, &m),
    })
}

/// A token login: the operation's constant, what it sends and answers, the answer's
/// attribute holding the token, and how the token is sent.
fn login_cx(
    i: &Interface,
    names: &ModuleNames,
    m: &TypeNames,
    operations: &[OperationCx],
) -> Result<LoginCx, String> {
    let TokenLogin {
        index,
        body,
        answer,
        ..
    } = i.token_login()?;
    let Auth::TokenLogin {
        login_operation,
        token_field,
        header,
        scheme,
        doc,
        ..
    } = &i.auth
    else {
        unreachable!("`token_login` answers only for a token login")
    };
    let token_attr = answer
        .named()
        .and_then(|id| attr_of(i, names, id, token_field))
        .ok_or_else(|| {
            format!("the login answer of `{login_operation}` has no field `{token_field}`")
        })?;
    Ok(LoginCx {
        body_type: m.annotation(i, &body.ty, false),
        answer_desc: m.desc(i, answer, &Default::default(), false),
        constant: operations[index].constant.clone(),
        token_field: names::string(token_field),
        token_attr: names::string(&token_attr),
        header: names::string(header),
        scheme: names::string(scheme),
        doc: crate::doc_text::login(doc),
    })
}

fn webhooks_cx(i: &Interface, m: &TypeNames) -> Option<WebhooksCx> {
    let words = doc_text::WebhookWords {
        event: "",
        unknown: "is its `Unknown` member, kept whole",
        failure: "raises `DecodeError`",
        verify: "`inspection_client.verify_webhook`",
    };
    templates::webhooks(i, |t| m.named(t), |t| m.wire(t), words)
}

/// The attribute name of field `wire` of declared type `id` (a record). A record's
/// attributes are its union tags first, then its fields.
pub(super) fn attr_of(
    i: &Interface,
    module: &ModuleNames,
    id: TypeId,
    wire: &str,
) -> Option<String> {
    let TypeKind::Object(o) = &i.ty(id).kind else {
        return None;
    };
    let pos = o.fields.iter().position(|f| f.name == wire)?;
    let tags = module.tags[id.index()].len();
    module.attrs[id.index()]
        .as_ref()?
        .0
        .get(tags + pos)
        .cloned()
}

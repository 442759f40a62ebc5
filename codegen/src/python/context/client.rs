//! The context of an interface's client: its `InterfaceInfo`, constructor, login, webhooks
//! and paging plans; each operation's is `operation`'s.

use crate::doc_text;
use crate::ir::Interface;
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
    let mut params = names::params_scope();
    ClientCx::new(
        i,
        [
            "turn off with `ClientOptions(validate_requests=False)`",
            "shared by every thread or task using this client",
        ],
        |h| params.claim(&names::snake(h)),
        |operations| login_cx(i, names, &m, operations),
        operations,
        webhooks_cx(i, &m),
    )
}

/// A token login: the operation's constant, what it sends and answers, the answer's
/// attribute holding the token, and how the token is sent.
fn login_cx(
    i: &Interface,
    names: &ModuleNames,
    m: &TypeNames,
    operations: &[OperationCx],
) -> Result<LoginCx, String> {
    let login = i.token_login()?;
    let token_attr = login
        .answer
        .named()
        .and_then(|id| names.attr_of(i, id, login.token_field))
        .ok_or_else(|| {
            format!(
                "the login answer of `{}` has no field `{}`",
                login.op.name, login.token_field
            )
        })?;
    Ok(LoginCx {
        body_type: m.annotation(i, &login.body.ty, false),
        answer_desc: m.desc(i, login.answer, &Default::default(), false),
        constant: operations[login.index].constant.clone(),
        token_field: names::string(login.token_field),
        token_attr: names::string(&token_attr),
        header: names::string(login.header),
        scheme: names::string(login.scheme),
        doc: crate::doc_text::login(login.doc),
    })
}

fn webhooks_cx(i: &Interface, m: &TypeNames) -> Option<WebhooksCx> {
    let words = doc_text::WebhookWords {
        unknown: "is its `Unknown` member, kept whole",
        failure: "raises `DecodeError`",
        verify: "the package's `verify_webhook`",
    };
    templates::webhooks(i, |t| m.named(t), |t| m.wire(t), words)
}

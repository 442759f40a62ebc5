//! Each interface's route table, read from the IR: every operation the spec lists is
//! routed at its method and path, behind the checks the spec implies (a JSON content
//! type, then the strict query and body), to the handler its interface names for it. An
//! operation with no handler yet answers 501 naming it, after the same checks. So an
//! operation added to the spec is routed and validated with no edit to the sandbox; only
//! its behaviour is hand-written.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{MethodFilter, MethodRouter};

use crate::App;
use crate::http::{self, strict};
use crate::ir::{Interface, Ir, Method};

/// The handler of an operation, by the IR's name, routed for `method`; `None` for a name
/// the interface has no handler for.
pub type Handlers = fn(name: &str, method: MethodFilter) -> Option<MethodRouter<Arc<App>>>;

/// `handlers! { "list_units" => units::list, .. }` defines an interface's `handler`
/// (a [`Handlers`]) and `HANDLED`, the operation names it knows (a test holds them to the
/// IR).
macro_rules! handlers {
    ($($name:literal => $handler:expr),* $(,)?) => {
        #[cfg(test)]
        pub(crate) const HANDLED: &[&str] = &[$($name),*];

        pub(crate) fn handler(
            name: &str,
            method: axum::routing::MethodFilter,
        ) -> Option<axum::routing::MethodRouter<std::sync::Arc<crate::App>>> {
            match name {
                $($name => Some(axum::routing::on(method, $handler)),)*
                _ => None,
            }
        }
    };
}
pub(crate) use handlers;

/// An interface's routes, those called before logging in apart (they go around the
/// interface's credential check).
pub struct Routes {
    pub open: Router<Arc<App>>,
    pub authed: Router<Arc<App>>,
}

/// The routes of `interface` in `ir` (its paths as the IR writes them), each write asking
/// `probe` whether the record its path names exists before its body is checked.
pub fn of(
    ir: &Arc<Ir>,
    interface: &str,
    style: strict::PathStyle,
    handlers: Handlers,
    probe: strict::Probe,
) -> Routes {
    let mut open = BTreeMap::<&str, MethodRouter<Arc<App>>>::new();
    let mut authed = BTreeMap::<&str, MethodRouter<Arc<App>>>::new();
    let Some((index, found)) = ir
        .interfaces
        .iter()
        .enumerate()
        .find(|(_, i)| i.name == interface)
    else {
        return Routes {
            open: Router::new(),
            authed: Router::new(),
        };
    };
    for (n, op) in found.operations.iter().enumerate() {
        let served = strict::Served {
            ir: ir.clone(),
            interface: index,
            operation: n,
            style,
            probe: Some(probe.clone()),
        };
        let route = route(found, served, handlers);
        let table = if op.is_open() { &mut open } else { &mut authed };
        let merged = match table.remove(op.path.as_str()) {
            Some(other) => other.merge(route),
            None => route,
        };
        table.insert(&op.path, merged);
    }
    let router = |table: BTreeMap<&str, MethodRouter<Arc<App>>>| {
        table
            .into_iter()
            .fold(Router::new(), |r, (path, route)| r.route(path, route))
    };
    Routes {
        open: router(open),
        authed: router(authed),
    }
}

/// One operation's route: the content type first (415), then its query and body (400 or
/// 422), then its handler.
fn route(
    interface: &Interface,
    served: strict::Served,
    handlers: Handlers,
) -> MethodRouter<Arc<App>> {
    let op = &interface.operations[served.operation];
    let method = filter(op.method);
    let handler = handlers(&op.name, method).unwrap_or_else(|| not_implemented(&op.name, method));
    let checked = handler.route_layer(from_fn_with_state(served, strict::requests));
    // A body of another media type (a device log) is taken as sent, whatever its type.
    match op.body.is_none() || op.json_body().is_some() {
        true => checked.route_layer(from_fn(http::json_content)),
        false => checked,
    }
}

fn filter(method: Method) -> MethodFilter {
    match method {
        Method::GET => MethodFilter::GET,
        Method::POST => MethodFilter::POST,
        Method::PUT => MethodFilter::PUT,
        Method::PATCH => MethodFilter::PATCH,
        Method::DELETE => MethodFilter::DELETE,
    }
}

/// The answer of an operation the spec has and the sandbox does not implement yet.
fn not_implemented(name: &str, method: MethodFilter) -> MethodRouter<Arc<App>> {
    let message = format!("the sandbox does not implement `{name}` yet");
    axum::routing::on(method, move || {
        let message = message.clone();
        async move { http::error(StatusCode::NOT_IMPLEMENTED, message) }
    })
}

#[cfg(test)]
mod tests {

    /// Every operation of the built-in spec has a handler, and every handler an operation:
    /// a renamed or removed operation fails here, not as a 501 in a client's test.
    #[test]
    fn handlers_and_the_spec_name_the_same_operations() {
        let ir = crate::ir::embedded();
        for (interface, handled) in [
            ("v3", crate::v3::HANDLED),
            ("legacy", crate::legacy::HANDLED),
        ] {
            let mut spec: Vec<&str> = ir
                .interface(interface)
                .unwrap()
                .operations
                .iter()
                .map(|o| o.name.as_str())
                .collect();
            let mut handled = handled.to_vec();
            spec.sort_unstable();
            handled.sort_unstable();
            assert_eq!(handled, spec, "{interface}");
        }
    }
}

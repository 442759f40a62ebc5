//! Which types requests and responses reach: the usage each type records.

use crate::ir;

/// Marks each type with the side(s) of the wire that reach it.
pub(super) fn mark_usage(interface: &mut ir::Interface) {
    let mut request: Vec<ir::TypeId> = Vec::new();
    let mut response: Vec<ir::TypeId> = Vec::new();
    for op in &interface.operations {
        for f in op.path_params.iter().chain(&op.query) {
            request.extend(f.ty.named());
        }
        if let Some(b) = &op.body {
            request.extend(b.ty.named());
        }
        for r in &op.responses {
            if let Some(b) = &r.body {
                response.extend(b.named());
            }
        }
    }
    if let Some(cursor) = interface.cursor_paging() {
        response.push(cursor.paging_type);
    }
    if let Some(t) = &interface.error_body {
        response.extend(t.named());
    }
    // Webhook deliveries are read like answers.
    if let Some(w) = &interface.webhooks {
        response.push(w.event);
    }
    let reach = |roots: Vec<ir::TypeId>, types: &[ir::TypeDef]| -> Vec<bool> {
        let mut seen = vec![false; types.len()];
        let mut stack = roots;
        while let Some(id) = stack.pop() {
            // Ids past the end belong to names already reported as unknown.
            let Some(t) = types.get(id.index()) else {
                continue;
            };
            if !std::mem::replace(&mut seen[id.index()], true) {
                stack.extend(referenced_types(t));
            }
        }
        seen
    };
    let req = reach(request, &interface.types);
    let resp = reach(response, &interface.types);
    for (t, (req, resp)) in interface.types.iter_mut().zip(req.into_iter().zip(resp)) {
        t.usage.request = req;
        t.usage.response = resp;
    }
}

fn referenced_types(t: &ir::TypeDef) -> Vec<ir::TypeId> {
    match &t.kind {
        ir::TypeKind::Object(o) => o.wire_fields().filter_map(|f| f.ty.named()).collect(),
        ir::TypeKind::Union(u) => u.variants.iter().map(|v| v.shape).collect(),
        ir::TypeKind::RecordRef(r) => vec![r.id_type],
        _ => Vec::new(),
    }
}

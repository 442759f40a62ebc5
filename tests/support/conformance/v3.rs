//! The v3 adapter: a step's `call`, `args` and `mode` onto the generated builders.

use chrono::{DateTime, Utc};
use inspection_client::v3::*;

use super::call::{
    Args, Outcome, binary, list, optional, presigned_action, single, unsupported, upserted,
};
use super::format::Mode;

type Time = DateTime<Utc>;

pub async fn call(client: &Client, op: &str, mut a: Args, mode: Mode) -> Result<Outcome, String> {
    let outcome = match op {
        "list_units" => {
            let mut b = client.list_units();
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "referenceNumber" => reference_number: String,
                "serialNumber" => serial_number: String,
            );
            list!(op, a, b, mode)
        }
        "create_unit" => single!(op, client.create_unit(a.body()?), mode),
        "get_unit" => single!(op, client.get_unit(a.path::<UnitId>("unit_id")?), mode),
        "update_unit" => {
            let id: UnitId = a.path("unit_id")?;
            single!(op, client.update_unit(id, a.body()?), mode)
        }
        "get_unit_by_reference_number" => {
            let r: String = a.path("reference_number")?;
            single!(op, client.get_unit_by_reference_number(r), mode)
        }
        "update_unit_by_reference_number" => {
            let r: String = a.path("reference_number")?;
            single!(
                op,
                client.update_unit_by_reference_number(r, a.body()?),
                mode
            )
        }
        "upsert_unit_by_reference_number" => {
            let r: String = a.path("reference_number")?;
            let b = client.upsert_unit_by_reference_number(r, a.body()?);
            match mode {
                Mode::Send => upserted(b.send().await),
                mode => return unsupported(op, mode),
            }
        }
        "list_unit_inspections" => {
            let mut b = client.list_unit_inspections(a.path::<UnitId>("unit_id")?);
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "created_after" => created_after: Time,
                "created_before" => created_before: Time,
                "type" => r#type: InspectionTypeFilter,
                "department_name" => department_name: String,
            );
            list!(op, a, b, mode)
        }
        "list_unit_inspections_by_reference_number" => {
            let r: String = a.path("reference_number")?;
            let mut b = client.list_unit_inspections_by_reference_number(r);
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "created_after" => created_after: Time,
                "created_before" => created_before: Time,
                "type" => r#type: InspectionTypeFilter,
                "department_name" => department_name: String,
            );
            list!(op, a, b, mode)
        }
        "list_inspections" => {
            let mut b = client.list_inspections();
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "created_after" => created_after: Time,
                "created_before" => created_before: Time,
                "type" => r#type: InspectionTypeFilter,
                "department_name" => department_name: String,
            );
            list!(op, a, b, mode)
        }
        "get_inspection" => {
            let b = client.get_inspection(a.path::<InspectionId>("inspection_id")?);
            match mode {
                Mode::Send => super::call::done(b.send().await),
                Mode::Pdf => binary(b.pdf().await),
                mode => return unsupported(op, mode),
            }
        }
        "get_inspection_share_url" => {
            let id: InspectionId = a.path("inspection_id")?;
            single!(op, client.get_inspection_share_url(id), mode)
        }
        "get_form" => {
            let b = client.get_form(a.path::<FormId>("form_id")?);
            match mode {
                Mode::Send | Mode::Pdf => binary(b.send().await),
                mode => return unsupported(op, mode),
            }
        }
        "list_tasks" => {
            let mut b = client.list_tasks();
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "created_after" => created_after: Time,
                "created_before" => created_before: Time,
                "updated_after" => updated_after: Time,
                "updated_before" => updated_before: Time,
                "completed_after" => completed_after: Time,
                "completed_before" => completed_before: Time,
                "due_after" => due_after: Time,
                "due_before" => due_before: Time,
                "status" => status: TaskStatusFilter,
            );
            list!(op, a, b, mode)
        }
        "create_task" => single!(op, client.create_task(a.body()?), mode),
        "get_task" => single!(op, client.get_task(a.path::<TaskId>("task_id")?), mode),
        "update_task" => {
            let id: TaskId = a.path("task_id")?;
            single!(op, client.update_task(id, a.body()?), mode)
        }
        "delete_task" => single!(op, client.delete_task(a.path::<TaskId>("task_id")?), mode),
        "list_workflows" => {
            let mut b = client.list_workflows();
            optional!(a, b,
                "page" => page: String,
                "per_page" => per_page: i32,
                "location_id" => location_id: LocationId,
                "department_name" => department_name: String,
            );
            list!(op, a, b, mode)
        }
        "list_locations" => {
            let mut b = client.list_locations();
            optional!(a, b, "page" => page: String, "per_page" => per_page: i32);
            list!(op, a, b, mode)
        }
        "list_users" => {
            let mut b = client.list_users();
            optional!(a, b, "page" => page: String, "per_page" => per_page: i32);
            list!(op, a, b, mode)
        }
        "update_user" => {
            let id: UserId = a.path("user_id")?;
            single!(op, client.update_user(id, a.body()?), mode)
        }
        "list_user_groups" => {
            let mut b = client.list_user_groups();
            optional!(a, b, "page" => page: String, "per_page" => per_page: i32);
            list!(op, a, b, mode)
        }
        other => match presigned_action!(client, other, &mut a) {
            Some(outcome) => outcome,
            None => return Err(format!("`{other}` is no v3 operation or client action")),
        },
    };
    a.finish()?;
    Ok(outcome)
}

//! The legacy adapter: a step's `call`, `args` and `mode` onto the generated builders.

use inspection_client::legacy::*;
use serde_json::{Map, Value};

use super::call::{
    Args, Outcome, PathRef, binary, done, list, optional, presigned_action, single, unsupported,
};
use super::format::Mode;

type JsonFilter = Map<String, Value>;

fn asset(r: PathRef) -> Result<AssetRef, String> {
    match r {
        PathRef::Id(id) => Ok(AssetRef::from(id)),
        PathRef::External(x) => Ok(AssetRef::external(x)),
        PathRef::Me => Err("an asset cannot be named `self`".into()),
    }
}

fn user(r: PathRef) -> UserPathRef {
    match r {
        PathRef::Id(id) => UserPathRef::from(id),
        PathRef::External(x) => UserPathRef::external(x),
        PathRef::Me => UserPathRef::Me,
    }
}

pub async fn call(client: &Client, op: &str, mut a: Args, mode: Mode) -> Result<Outcome, String> {
    let outcome = match op {
        "list_assets" => {
            let mut b = client.list_assets();
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: AssetFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "get_asset" => single!(op, client.get_asset(asset(a.path_ref("id")?)?), mode),
        "list_asset_transactions" => {
            let mut b = client.list_asset_transactions(asset(a.path_ref("id")?)?);
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: AssetTransactionFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "find_or_create_asset" => single!(op, client.find_or_create_asset(a.body()?), mode),
        "update_asset" => {
            let id = asset(a.path_ref("id")?)?;
            single!(op, client.update_asset(id, a.body()?), mode)
        }
        "replace_asset" => {
            let id = asset(a.path_ref("id")?)?;
            single!(op, client.replace_asset(id, a.body()?), mode)
        }
        "delete_asset" => single!(op, client.delete_asset(asset(a.path_ref("id")?)?), mode),
        "upload_device_log" => {
            let dev: String = a.path("dev_id")?;
            let text: String = a.take("body_text")?.ok_or("`args.body_text` is required")?;
            let mut b = client.upload_device_log(dev, text.into_bytes());
            if let Some(content_type) = a.take::<String>("content_type")? {
                b = b.content_type(content_type);
            }
            single!(op, b, mode)
        }
        "list_form_templates" => single!(op, client.list_form_templates(), mode),
        "get_form_template" => {
            let b = client.get_form_template(a.path::<FormTemplateId>("id")?);
            match mode {
                Mode::Send => done(b.send().await),
                Mode::Pdf => binary(b.pdf().await),
                mode => return unsupported(op, mode),
            }
        }
        "exchange_guest_token" => single!(op, client.exchange_guest_token(a.body()?), mode),
        "list_locations" => {
            let mut b = client.list_locations();
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: JsonFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "get_location" => single!(op, client.get_location(a.path::<LocationId>("id")?), mode),
        "create_location" => single!(op, client.create_location(a.body()?), mode),
        "update_location" => {
            let id: LocationId = a.path("id")?;
            single!(op, client.update_location(id, a.body()?), mode)
        }
        "replace_location" => {
            let id: LocationId = a.path("id")?;
            single!(op, client.replace_location(id, a.body()?), mode)
        }
        "delete_location" => {
            single!(
                op,
                client.delete_location(a.path::<LocationId>("id")?),
                mode
            )
        }
        "list_tasks" => {
            let mut b = client.list_tasks();
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: TaskFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "get_task" => single!(op, client.get_task(a.path::<TaskId>("id")?), mode),
        "create_task" => single!(op, client.create_task(a.body()?), mode),
        "update_task" => {
            let id: TaskId = a.path("id")?;
            single!(op, client.update_task(id, a.body()?), mode)
        }
        "replace_task" => {
            let id: TaskId = a.path("id")?;
            single!(op, client.replace_task(id, a.body()?), mode)
        }
        "delete_task" => single!(op, client.delete_task(a.path::<TaskId>("id")?), mode),
        "list_transactions" => {
            let mut b = client.list_transactions();
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: TransactionFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "get_transaction" => {
            single!(
                op,
                client.get_transaction(a.path::<TransactionId>("id")?),
                mode
            )
        }
        "create_transaction" => single!(op, client.create_transaction(a.body()?), mode),
        "update_transaction" => {
            let id: TransactionId = a.path("id")?;
            single!(op, client.update_transaction(id, a.body()?), mode)
        }
        "replace_transaction" => {
            let id: TransactionId = a.path("id")?;
            single!(op, client.replace_transaction(id, a.body()?), mode)
        }
        "delete_transaction" => {
            single!(
                op,
                client.delete_transaction(a.path::<TransactionId>("id")?),
                mode
            )
        }
        "get_transaction_form" => {
            let id: TransactionId = a.path("id")?;
            let form: FormId = a.path("form_id")?;
            let b = client.get_transaction_form(id, form);
            match mode {
                Mode::Send => done(b.send().await),
                Mode::Pdf => binary(b.pdf().await),
                mode => return unsupported(op, mode),
            }
        }
        "send_transaction_summary_email" => {
            let id: TransactionId = a.path("id")?;
            single!(
                op,
                client.send_transaction_summary_email(id, a.body()?),
                mode
            )
        }
        "authenticate" => single!(op, client.authenticate(a.body()?), mode),
        "get_upload_url" => single!(
            op,
            client.get_upload_url(a.path::<FileId>("file_id")?),
            mode
        ),
        "get_upload_url_with_nonce" => {
            let nonce: String = a.path("nonce")?;
            let file: FileId = a.path("file_id")?;
            single!(op, client.get_upload_url_with_nonce(nonce, file), mode)
        }
        "start_multipart_upload" => {
            let file: FileId = a.path("file_id")?;
            let mut b = client.start_multipart_upload(file, a.required_query("part_count")?);
            optional!(a, b, "content_type" => content_type: String);
            single!(op, b, mode)
        }
        "complete_multipart_upload" => {
            let file: FileId = a.path("file_id")?;
            single!(op, client.complete_multipart_upload(file, a.body()?), mode)
        }
        "list_users" => {
            let mut b = client.list_users();
            optional!(a, b,
                "after_id" => after_id: String,
                "before_id" => before_id: String,
                "limit" => limit: i32,
                "filter" => filter: JsonFilter,
            );
            list!(op, a, b, mode, backward)
        }
        "get_user" => single!(op, client.get_user(user(a.path_ref("id")?)), mode),
        "create_user" => single!(op, client.create_user(a.body()?), mode),
        "create_one_time_user" => single!(op, client.create_one_time_user(a.body()?), mode),
        "update_user" => {
            let id = user(a.path_ref("id")?);
            single!(op, client.update_user(id, a.body()?), mode)
        }
        "replace_user" => {
            let id = user(a.path_ref("id")?);
            single!(op, client.replace_user(id, a.body()?), mode)
        }
        "delete_user" => single!(op, client.delete_user(user(a.path_ref("id")?)), mode),
        "reset_user_password" => {
            let id = user(a.path_ref("id")?);
            single!(op, client.reset_user_password(id, a.body()?), mode)
        }
        "get_workflow" => single!(op, client.get_workflow(a.path::<WorkflowId>("id")?), mode),
        other => match presigned_action!(client, other, &mut a) {
            Some(outcome) => outcome,
            None => return Err(format!("`{other}` is no legacy operation or client action")),
        },
    };
    a.finish()?;
    Ok(outcome)
}

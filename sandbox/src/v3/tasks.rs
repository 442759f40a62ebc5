//! Tasks: lists with filters, the three assignment variants, extended-data rule 7, delete,
//! and completion (`task.completed` to the v3 listeners and the task's `webhook_url`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveTime, Utc};
use inspection_client::runtime::DateOrDateTime;
use inspection_client::v3::*;
use serde_json::Value;

use super::list::{ListQuery, page};
use crate::App;
use crate::http::{Reject, body, error, json};
use crate::store::Store;
use crate::webhooks::{self, Interface};

type Pairs = Query<Vec<(String, String)>>;

fn not_found(id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("The Task {id} could not be found"),
    )
}

pub async fn list(
    State(app): State<Arc<App>>,
    OriginalUri(uri): OriginalUri,
    Query(pairs): Pairs,
) -> Result<Response, Reject> {
    let parsed = (|| {
        let q = ListQuery::parse(pairs)?;
        let mut bounds = Vec::new();
        for name in ["created", "updated", "completed", "due"] {
            bounds.push((
                q.date_time(&format!("{name}_after"))?,
                q.date_time(&format!("{name}_before"))?,
            ));
        }
        let status = q.get("status").map(str::to_string);
        Ok::<_, Reject>((q, bounds, status))
    })();
    let (q, bounds, status) = parsed?;
    let within =
        |t: Option<DateTime<Utc>>,
         (after, before): (Option<DateTime<Utc>>, Option<DateTime<Utc>>)| {
            (after.is_none() && before.is_none())
                || t.is_some_and(|t| after.is_none_or(|a| t >= a) && before.is_none_or(|b| t < b))
        };
    let store = app.store().lock().await;
    let rows = store
        .tasks
        .iter()
        .filter(|r| {
            let t = &r.record.task;
            let done = matches!(t.status, Some(TaskStatus::Completed | TaskStatus::Complete));
            within(t.created_at, bounds[0])
                && within(t.updated_at, bounds[1])
                && within(t.completed_at.flatten(), bounds[2])
                && within(t.due_by, bounds[3])
                && status.as_deref().is_none_or(|s| (s == "complete") == done)
        })
        .map(|r| (r.seq, &r.record.task))
        .collect();
    Ok(page(&app, uri.path(), &q, rows))
}

pub async fn create(State(app): State<Arc<App>>, bytes: Bytes) -> Result<Response, Reject> {
    let request: TaskRequest = body(&bytes)?;
    let hook = webhooks::task_url(request.webhook_url.clone().map(Value::String).as_ref())?;
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    let id = TaskId::new(store.new_id("tsk"));
    let mut task = Task::new(id);
    task.object = Some("task".into());
    task.status = Some(TaskStatus::Idle);
    task.priority = Some(false);
    task.completed_at = Some(None);
    task.created_at = Some(now);
    task.updated_at = Some(now);
    if let Err(e) = apply(&store, &mut task, request) {
        return Ok(e.into_response());
    }
    store.push_task(task.clone(), false).webhook_url = hook.flatten();
    Ok(json(StatusCode::CREATED, &task))
}

pub async fn get(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let store = app.store().lock().await;
    match store.tasks.iter().find(|r| r.record.task.id.as_str() == id) {
        Some(r) => json(StatusCode::OK, &r.record.task),
        None => not_found(&id),
    }
}

pub async fn patch(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Response, Reject> {
    let mut request: TaskRequest = body(&bytes)?;
    let status = new_status(request.status.take())?;
    // Read again only to tell `"webhook_url": null` (remove it) from no `webhook_url`.
    let raw: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let hook = webhooks::task_url(raw.get("webhook_url"))?;
    let now = app.clock.now();
    let mut store = app.store().lock().await;
    let Some(index) = store
        .tasks
        .iter()
        .position(|r| r.record.task.id.as_str() == id)
    else {
        return Ok(not_found(&id));
    };
    let has_extended = request
        .extended_data
        .as_ref()
        .is_some_and(|d| !d.is_empty());
    if has_extended && store.tasks[index].record.draft_inspection {
        return Ok(error(
            StatusCode::BAD_REQUEST,
            format!(
                "Extended data cannot be added to Task {id}: it has a draft inspection attached"
            ),
        ));
    }
    let mut task = store.tasks[index].record.task.clone();
    if let Err(e) = apply(&store, &mut task, request) {
        return Ok(e.into_response());
    }
    let completes = status.is_some_and(|s| set_status(&mut task, s, now));
    task.updated_at = Some(now);
    let stored = &mut store.tasks[index].record;
    stored.task = task.clone();
    if let Some(url) = hook {
        stored.webhook_url = url;
    }
    if completes {
        // Enqueued under the store lock, so listeners get events in the order they happened.
        let data = serde_json::to_value(&task).unwrap_or(Value::Null);
        let url = stored.webhook_url.as_deref();
        app.webhooks
            .publish(Interface::V3, "task.completed", data, now, url);
    }
    Ok(json(StatusCode::OK, &task))
}

/// An update's `status`, if it names one this sandbox knows (absent or null: unchanged).
fn new_status(status: Option<TaskStatus>) -> Result<Option<TaskStatus>, Reject> {
    match status {
        Some(s) if s.is_unknown() => Err(Reject::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "status: `{}` is not one of {}",
                s.as_str(),
                TaskStatus::VALUES.join(", ")
            ),
        )),
        other => Ok(other),
    }
}

/// Sets the status and `completed_at`; `true` when this completes the task (it moves to
/// completed/complete from another status).
fn set_status(task: &mut Task, status: TaskStatus, now: DateTime<Utc>) -> bool {
    let was_done = webhooks::is_done(task.status.as_ref().map(TaskStatus::as_str));
    let done = webhooks::is_done(Some(status.as_str()));
    if !done {
        task.completed_at = Some(None);
    } else if !was_done {
        task.completed_at = Some(Some(now));
    }
    task.status = Some(status);
    done && !was_done
}

pub async fn delete(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut store = app.store().lock().await;
    let before = store.tasks.len();
    store.tasks.retain(|r| r.record.task.id.as_str() != id);
    if store.tasks.len() == before {
        return not_found(&id);
    }
    StatusCode::NO_CONTENT.into_response()
}

/// Writes a task request into `task`, resolving its unit and assignee (422 when either
/// does not exist).
fn apply(store: &Store, task: &mut Task, r: TaskRequest) -> Result<(), Reject> {
    task.unit = Some(unit_ref(store, &r.reference_number)?);
    task.assignee = assignee(store, &r.assignee)?;
    task.name = Some(r.name);
    task.due_by = Some(match r.due_by {
        DateOrDateTime::DateTime(t) => t,
        DateOrDateTime::Date(d) => d.and_time(NaiveTime::MIN).and_utc(),
    });
    if r.description.is_some() {
        task.description = r.description;
    }
    task.r#type = Some(if r.requires_inspection == Some(true) {
        TaskType::Inspection
    } else {
        TaskType::Task
    });
    if let Some(w) = r.workflow_id {
        let name = store
            .workflows
            .iter()
            .find(|x| x.record.id.as_ref() == Some(&w))
            .and_then(|x| x.record.name.clone());
        let mut workflow = WorkflowRef::default();
        workflow.id = Some(w);
        workflow.name = name;
        task.workflow = Some(workflow);
    }
    if let Some(d) = r.department_id {
        let mut department = DepartmentRef::default();
        department.id = Some(d);
        task.department = Some(department);
    }
    if let Some(data) = r.extended_data {
        task.extended_data.extend(data);
    }
    Ok(())
}

/// The unit a task names by its reference number (422 when there is none).
fn unit_ref(store: &Store, reference: &str) -> Result<UnitRef, Reject> {
    let unit = store
        .units
        .iter()
        .map(|row| &row.record)
        .find(|u| u.reference_number.as_deref() == Some(reference))
        .ok_or_else(|| {
            Reject::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "reference_number: the Unit {} could not be found",
                    reference
                ),
            )
        })?;
    let mut unit_ref = UnitRef::default();
    unit_ref.id = Some(unit.id.clone());
    unit_ref.reference_number = unit.reference_number.clone();
    Ok(unit_ref)
}

/// The assignee a task names: a user by username (its reference), or a location or user
/// group by id (checked to exist, no reference kept); 422 when it does not exist.
fn assignee(store: &Store, assignee: &TaskAssignee) -> Result<Option<TaskAssigneeRef>, Reject> {
    Ok(match assignee {
        TaskAssignee::User(a) => {
            let user = store
                .user_by_username(&a.assignee_username)
                .ok_or_else(|| {
                    Reject::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        format!("assignee_username: no user {}", a.assignee_username),
                    )
                })?;
            let mut assignee = TaskAssigneeRef::default();
            assignee.id = user.id.clone();
            assignee.username = user.username.clone();
            Some(assignee)
        }
        TaskAssignee::Location(a) => {
            let id = a.location_id.to_string();
            if !store
                .locations
                .iter()
                .any(|l| l.record.id.as_ref().is_some_and(|x| x.as_str() == id))
            {
                return Err(Reject::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("location_id: no location {id}"),
                ));
            }
            None
        }
        TaskAssignee::UserGroup(a) => {
            let id = a.user_group_id.to_string();
            if !store
                .user_groups
                .iter()
                .any(|g| g.record.id.as_ref().is_some_and(|x| x.as_str() == id))
            {
                return Err(Reject::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("user_group_id: no user group {id}"),
                ));
            }
            None
        }
        _ => None,
    })
}

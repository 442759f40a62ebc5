//! The sandbox's records, in memory, in creation order.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use inspection_client::v3::*;

/// A record with the sequence number that orders it in lists and cursors.
#[derive(Debug, Clone)]
pub struct Row<T> {
    pub seq: u64,
    pub record: T,
}

#[derive(Debug, Clone)]
pub struct StoredTask {
    pub task: Task,
    /// A draft inspection is attached: extended data is refused (seed rule 7).
    pub draft_inspection: bool,
    /// Called with `task.completed` when the task completes; never echoed (a URL may carry
    /// a token).
    pub webhook_url: Option<String>,
}

/// Render state of a PDF: the first request starts rendering and is answered 202.
#[derive(Debug, Default)]
pub struct Renders {
    started: BTreeMap<String, ()>,
}

impl Renders {
    /// `true` when the PDF is ready; the first call for a key starts rendering.
    pub fn ready(&mut self, key: &str) -> bool {
        self.started.insert(key.to_string(), ()).is_some()
    }
}

#[derive(Debug, Clone)]
pub struct Share {
    pub inspection: InspectionId,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
pub struct Store {
    next_seq: u64,
    pub units: Vec<Row<Unit>>,
    pub inspections: Vec<Row<Inspection>>,
    pub tasks: Vec<Row<StoredTask>>,
    pub workflows: Vec<Row<Workflow>>,
    pub locations: Vec<Row<Location>>,
    pub users: Vec<Row<User>>,
    pub user_groups: Vec<Row<UserGroup>>,
    /// Form ids that exist (their PDFs are rendered on demand).
    pub forms: Vec<String>,
    pub renders: Renders,
    pub shares: BTreeMap<String, Share>,
    /// Units created by POST, counted for tests.
    pub units_created: u64,
    /// POST /units requests that reached the handler (a repeated POST would show here).
    pub unit_posts: u64,
}

impl Store {
    pub fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// A new opaque id with a readable prefix.
    pub fn new_id(&mut self, prefix: &str) -> String {
        let n = self.seq();
        format!("{prefix}_{n:06}")
    }

    pub fn push_unit(&mut self, unit: Unit) {
        let seq = self.seq();
        self.units.push(Row { seq, record: unit });
    }

    pub fn push_inspection(&mut self, inspection: Inspection) {
        let seq = self.seq();
        self.inspections.push(Row {
            seq,
            record: inspection,
        });
    }

    pub fn push_task(&mut self, task: Task, draft_inspection: bool) -> &mut StoredTask {
        let seq = self.seq();
        let index = self.tasks.len();
        self.tasks.push(Row {
            seq,
            record: StoredTask {
                task,
                draft_inspection,
                webhook_url: None,
            },
        });
        &mut self.tasks[index].record
    }

    pub fn unit_by_id(&mut self, id: &str) -> Option<&mut Unit> {
        self.units
            .iter_mut()
            .map(|r| &mut r.record)
            .find(|u| u.id.as_str() == id)
    }

    pub fn unit_by_reference(&mut self, reference: &str) -> Option<&mut Unit> {
        self.units
            .iter_mut()
            .map(|r| &mut r.record)
            .find(|u| u.reference_number.as_deref() == Some(reference))
    }

    pub fn user_by_username(&self, username: &str) -> Option<&User> {
        self.users
            .iter()
            .map(|r| &r.record)
            .find(|u| u.username.as_deref() == Some(username))
    }
}

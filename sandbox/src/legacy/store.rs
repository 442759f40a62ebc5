//! The legacy interface's records. Most legacy payloads are only partly documented, so
//! records are kept as JSON objects shaped like the public examples.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value, json};

use super::spill::Spilled;

/// A user who can log in.
#[derive(Debug, Clone)]
pub struct Account {
    pub id: String,
    pub username: String,
    pub password: String,
    pub manager: bool,
    pub first_name: String,
    pub last_name: String,
    pub external_id: Option<String>,
    /// The user's location (every seeded account is at `89`, Main Office).
    pub location_id: String,
    /// A one-time user (`POST /api/users/one_time_user`): found again by e-mail, and never
    /// logs in with a password (the service sends a launch URL instead).
    pub one_time: Option<OneTime>,
}

/// What a one-time user has beyond an account.
#[derive(Debug, Clone)]
pub struct OneTime {
    pub phone_number: Option<Value>,
    pub transaction_limit: Value,
}

impl Account {
    /// The record as the users pages show it.
    pub fn record(&self, location: &Value) -> Value {
        let mut record = json!({
            "id": self.id, "username": self.username, "first_name": self.first_name,
            "last_name": self.last_name, "phone_number": self.phone_number(),
            "role": if self.manager { "manager" } else { "user" },
            "external_id": self.external_id, "location": location,
            "created_at": "2016-05-23T22:16:43.000Z", "updated_at": "2016-05-23T22:16:43.000Z",
        });
        // What a user does not have is left out: the spec gives these fields no null.
        if let Value::Object(fields) = &mut record {
            fields.retain(|_, v| !v.is_null());
        }
        record
    }

    /// A one-time user's own (none when none was sent); the seeded one otherwise.
    fn phone_number(&self) -> Value {
        match &self.one_time {
            Some(one_time) => one_time.phone_number.clone().unwrap_or(Value::Null),
            None => json!("366.555.1570"),
        }
    }

    pub fn summary(&self) -> Value {
        json!({ "id": self.id, "username": self.username,
                "first_name": self.first_name, "last_name": self.last_name })
    }
}

/// A media file a user uploads through a pre-signed URL.
#[derive(Debug, Clone, Default)]
pub struct Upload {
    /// Its bytes on disk, once uploaded (or assembled).
    pub file: Option<Arc<Spilled>>,
    pub content_type: Option<String>,
    /// Referenced by a transaction: no further upload URL is given.
    pub attached: bool,
}

#[derive(Debug, Clone)]
pub struct Multipart {
    pub owner: String,
    pub file_id: String,
    pub part_count: u32,
    pub content_type: Option<String>,
    /// Parts uploaded so far, by part number (1-based).
    pub parts: BTreeMap<u32, Arc<Spilled>>,
}

/// The file a pre-signed upload URL writes.
#[derive(Debug, Clone)]
pub struct Target {
    pub owner: String,
    pub file_id: String,
}

/// The first id handed out at run time, unless a loaded record has a higher one.
const FIRST_ID: u64 = 1001;

#[derive(Debug, Default)]
pub struct LegacyStore {
    next_id: u64,
    pub accounts: Vec<Account>,
    pub tokens: HashMap<String, String>,
    /// Collections by name (`assets`, `locations`, `tasks`, `transactions`), id order.
    pub records: BTreeMap<&'static str, Vec<Map<String, Value>>>,
    pub workflows: Vec<Value>,
    pub form_templates: Vec<Value>,
    /// Uploads by (owner, file id).
    pub uploads: HashMap<(String, String), Upload>,
    pub presigned: HashMap<String, Target>,
    pub multiparts: HashMap<String, Multipart>,
    pub device_logs: u64,
    pub summary_emails: u64,
    /// Pre-signed requests that carried a credential (tests assert none ever does).
    pub presigned_with_credentials: u64,
    /// Restores requested, by transaction id: when each is done (sandbox clock).
    pub restores: HashMap<String, DateTime<Utc>>,
    /// Tasks' `webhook_url`s by task id, kept beside the records so they are never echoed.
    pub task_webhooks: HashMap<String, String>,
}

impl LegacyStore {
    /// A fresh numeric id, above every id the store holds (so above seeded ones too, and
    /// records created at run time sort after them in the id order of index pages).
    pub fn next_id(&mut self) -> String {
        self.next_id = self.next_id.max(FIRST_ID - 1) + 1;
        self.next_id.to_string()
    }

    /// Makes `next_id` answer ids above every record and account loaded so far.
    fn reserve_loaded_ids(&mut self) {
        let records = self.records.values().flatten().filter_map(|r| r.get("id"));
        let ids = records
            .filter_map(Value::as_str)
            .chain(self.accounts.iter().map(|a| a.id.as_str()))
            .filter_map(|id| id.parse::<u64>().ok());
        self.next_id = ids.fold(self.next_id, u64::max);
    }

    pub fn collection(&mut self, name: &'static str) -> &mut Vec<Map<String, Value>> {
        self.records.entry(name).or_default()
    }

    pub fn find(&self, name: &str, id: &str) -> Option<&Map<String, Value>> {
        self.records
            .get(name)?
            .iter()
            .find(|r| r.get("id").and_then(Value::as_str) == Some(id))
    }

    pub fn account_by_token(&self, token: &str) -> Option<&Account> {
        let id = self.tokens.get(token)?;
        self.accounts.iter().find(|a| &a.id == id)
    }

    pub fn new_token(&mut self, account: &str) -> String {
        let n = self.next_id();
        let token = format!("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.{n}.c2FuZGJveA");
        self.tokens.insert(token.clone(), account.to_string());
        token
    }

    /// The full record of a user's location (the seeded Main Office if it was deleted).
    pub fn location_of(&self, account: &Account) -> Value {
        self.find("locations", &account.location_id)
            .map(|l| Value::Object(l.clone()))
            .unwrap_or_else(|| self.location())
    }

    pub fn location(&self) -> Value {
        json!({ "id": "89", "name": "Main Office", "address1": "4726 Thackeray Pl NE",
                "city": "Seattle", "state": "WA", "zipcode": "98105", "timezone": "PST",
                "created_at": "2014-04-01T19:00:00.000Z", "updated_at": "2016-04-14T21:46:56.000Z",
                "workflow": { "id": "4099", "name": "Pickup" } })
    }
}

/// Accounts from `--legacy-user` (or a manager and a user), two locations, two assets,
/// `transactions` transactions a day apart ending now, a task, a workflow, a form template.
pub fn load(
    store: &mut LegacyStore,
    accounts: &[(String, String, bool)],
    transactions: usize,
    now: DateTime<Utc>,
) {
    for (i, (username, password, manager)) in accounts.iter().enumerate() {
        store.accounts.push(Account {
            id: (42 + i).to_string(),
            username: username.clone(),
            password: password.clone(),
            manager: *manager,
            first_name: if *manager { "Morgan" } else { "Sam" }.into(),
            last_name: "Example".into(),
            external_id: Some(format!("s_user{}", 42 + i)),
            location_id: "89".into(),
            one_time: None,
        });
    }
    let location = store.location();
    store.collection("locations").push(object(location));
    store.collection("locations").push(object(json!({
        "id": "90", "name": "Branch Office", "city": "Rockford", "state": "IL", "zipcode": "61101",
        "timezone": "CST", "created_at": "2014-04-01T19:00:00.000Z", "updated_at": "2016-04-14T21:46:56.000Z"
    })));
    for (id, external, make, model, year) in [
        ("43", "WMWMF33519TW73378", "MINI", "Cooper", 2009),
        ("44", "0011110384607", "Caterpillar", "320", 2019),
    ] {
        store.collection("assets").push(object(json!({
            "id": id, "external_id": external, "make": make, "model": model, "year": year,
            "check_in": true, "notations": {}, "geo_coord": [122.289139, 47.612417],
            "email_sent_to": [], "location": { "id": "89", "name": "Main Office" },
            "photos": [], "videos": [], "damages": [], "signatures": [], "extended": {},
            "created_at": "2014-02-19T06:46:29.000Z"
        })));
    }
    load_transactions(store, transactions, now);
    // Requested by a manager for a plain user (either, when only one kind is loaded).
    let person = |manager: bool| {
        let accounts = &store.accounts;
        let found = accounts.iter().find(|a| a.manager == manager);
        found.or(accounts.first()).map(person)
    };
    let (assignee, requester) = (person(false), person(true));
    let created = stamp(now - Duration::days(1));
    store.collection("tasks").push(object(json!({
        "id": "42", "due_by": stamp(now + Duration::days(3)), "name": "Inspect Bulldozer",
        "status": "idle", "created_at": created, "updated_at": created, "high_priority": false,
        "asset": { "id": "44", "external_id": "0011110384607" },
        "location": { "id": "89", "name": "Main Office" },
        "assignee": assignee, "requester": requester,
        "activities": [{ "event": "Created Task", "user": requester, "created_at": created }]
    })));
    store.workflows.push(json!({ "id": "4099", "name": "Pickup",
        "workflow_modules": ["RC2", "LB1", "LB2", "M1", "N2", "F01", "E1", "C2"] }));
    store
        .form_templates
        .push(json!({ "id": "7", "name": "Rental Agreement" }));
    store.reserve_loaded_ids();
}

/// `count` transactions a day apart ending at `now`, by the first account, on the two
/// assets in turn.
fn load_transactions(store: &mut LegacyStore, count: usize, now: DateTime<Utc>) {
    let user = store
        .accounts
        .first()
        .map(Account::summary)
        .unwrap_or(Value::Null);
    for n in 0..count {
        let created = now - Duration::days((count - n) as i64);
        let id = (100 + n).to_string();
        let (asset_id, external) = if n % 2 == 0 {
            ("43", "WMWMF33519TW73378")
        } else {
            ("44", "0011110384607")
        };
        store.collection("transactions").push(object(json!({
            "id": id, "check_in": n % 3 != 0, "damage": n % 5 == 0, "draft": false,
            "group_id": format!("g{}", n / 3), "notations": {}, "geo_coord": [122.289139, 47.612417],
            "email_sent_to": [], "workflow_id": "4099", "workflow_name": "Pickup",
            "archive_status": "active", "created_at": stamp(created),
            "asset": { "id": asset_id, "external_id": external },
            "user": user, "location": { "id": "89", "name": "Main Office" },
            "extended": { "contract": { "id": n } }, "photos": [], "videos": []
        })));
    }
}

pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A JSON date-time string as a time, if it is one.
pub(super) fn time(v: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A task's person: `{id, email, name}`.
pub(super) fn person(account: &Account) -> Value {
    json!({ "id": account.id, "email": account.username,
            "name": format!("{} {}", account.first_name, account.last_name) })
}

/// An asset by numeric id or `_<external id>`.
pub(super) fn asset_by_ref<'s>(
    store: &'s LegacyStore,
    reference: &str,
) -> Option<&'s Map<String, Value>> {
    let assets = store.records.get("assets")?;
    match reference.strip_prefix('_') {
        Some(external) => assets
            .iter()
            .find(|a| a.get("external_id").and_then(Value::as_str) == Some(external)),
        None => assets
            .iter()
            .find(|a| a.get("id").and_then(Value::as_str) == Some(reference)),
    }
}

//! A logged-in caller of the legacy interface over plain HTTP, for the legacy test files.
#![allow(dead_code)] // each test file uses a different part of it

use serde_json::{Value, json};

use sandbox::{Options, Sandbox};

/// A logged-in caller of the legacy interface.
pub struct Api<'s> {
    pub sandbox: &'s Sandbox,
    pub token: String,
}

/// An answer: its status and JSON body (`Null` for an empty one).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    /// The `errors` text of an error body.
    pub fn errors(&self) -> &str {
        self.body["errors"].as_str().unwrap_or_default()
    }
}

impl<'s> Api<'s> {
    pub async fn login(sandbox: &'s Sandbox, (username, password): (&str, &str)) -> Api<'s> {
        let mut api = Api {
            sandbox,
            token: String::new(),
        };
        let login = json!({ "user": { "username": username, "password": password } });
        let answer = api
            .call("POST", "/api/users/authenticate", Some(login))
            .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        api.token = answer.body["auth_token"].as_str().unwrap().to_string();
        api
    }

    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let token = format!("Token {}", self.token);
        let mut headers = vec![("accept", "application/json; version=1")];
        if !self.token.is_empty() {
            headers.push(("authorization", token.as_str()));
        }
        let (status, body) = super::call(self.sandbox, method, path, &headers, body).await;
        Answer { status, body }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call("GET", path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.call("POST", path, Some(body)).await
    }

    /// Every record of an index whose records match `filter` (none: `{}`), `limit` at a
    /// time, following `links.next`.
    pub async fn all(&self, path: &str, key: &str, filter: Value, limit: u32) -> Vec<Value> {
        let origin = self.sandbox.legacy_base_url();
        let mut params = vec![("limit", limit.to_string())];
        if filter != json!({}) {
            params.push(("filter", filter.to_string()));
        }
        let first = reqwest::Url::parse_with_params(&format!("{origin}{path}"), &params).unwrap();
        let mut url = first.as_str().strip_prefix(&origin).unwrap().to_string();
        let mut records = Vec::new();
        loop {
            let page = self.get(&url).await;
            assert_eq!(page.status, 200, "{url}: {page:?}");
            records.extend(page.body[key].as_array().unwrap().iter().cloned());
            match page.body["links"]["next"].as_str() {
                Some(next) => url = next.strip_prefix(&origin).unwrap().to_string(),
                None => return records,
            }
        }
    }
}

pub fn ids(records: &[Value]) -> Vec<&str> {
    records.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

pub async fn start() -> Sandbox {
    Sandbox::start(Options::default()).await.unwrap()
}

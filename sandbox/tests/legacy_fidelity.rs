//! The legacy `/api` sandbox as seed 001 and the public docs' examples describe it, over
//! plain HTTP: the nested records of transactions and tasks, filters that find records
//! created at run time, ids that never collide with seeded ones.

use std::time::Duration;

use serde_json::{Value, json};

use sandbox::{LEGACY_MANAGER, LEGACY_USER, Options, Sandbox};

mod common;

use common::legacy::{Api, ids, start};
#[tokio::test]
async fn a_created_transaction_answers_its_asset_location_and_user() {
    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let created = user
        .post(
            "/api/transactions",
            json!({ "transaction": { "asset_id": "43", "location_id": "90", "check_in": true } }),
        )
        .await;
    assert_eq!(created.status, 201, "{created:?}");
    let t = &created.body["transaction"];
    assert_eq!(
        t["location"],
        json!({ "id": "90", "name": "Branch Office" })
    );
    assert_eq!(
        t["asset"],
        json!({ "id": "43", "external_id": "WMWMF33519TW73378" })
    );
    assert_eq!(
        t["user"],
        json!({ "id": "43", "username": "user@example.com", "first_name": "Sam", "last_name": "Example" })
    );
    assert_eq!(t["archive_status"], "active");
    // Shown again as created.
    let shown = user
        .get(&format!("/api/transactions/{}", t["id"].as_str().unwrap()))
        .await;
    assert_eq!(shown.body["transaction"]["location"], t["location"]);

    // Without a location_id: the caller's location; by `_<external id>` and a numeric id.
    let at_home = user
        .post(
            "/api/transactions",
            json!({ "transaction": { "asset_id": "_0011110384607", "location_id": 89 } }),
        )
        .await;
    assert_eq!(at_home.status, 201, "{at_home:?}");
    assert_eq!(
        at_home.body["transaction"]["location"],
        json!({ "id": "89", "name": "Main Office" })
    );
    assert_eq!(at_home.body["transaction"]["asset"]["id"], "44");
    let no_location = user
        .post(
            "/api/transactions",
            json!({ "transaction": { "asset_id": "43" } }),
        )
        .await;
    assert_eq!(
        no_location.body["transaction"]["location"],
        json!({ "id": "89", "name": "Main Office" })
    );

    // Ids that name nothing are refused, naming the field.
    for (field, value) in [("location_id", "999"), ("asset_id", "999")] {
        let refused = user
            .post(
                "/api/transactions",
                json!({ "transaction": { "asset_id": "43", field: value } }),
            )
            .await;
        assert_eq!(refused.status, 422, "{refused:?}");
        assert!(refused.errors().contains(field), "{refused:?}");
    }
}

#[tokio::test]
async fn location_filters_find_records_created_at_run_time() {
    let sandbox = start().await;
    let manager = Api::login(&sandbox, LEGACY_MANAGER).await;
    let yard = manager
        .post(
            "/api/locations",
            json!({ "location": { "name": "Yard 3" } }),
        )
        .await;
    assert_eq!(yard.status, 201, "{yard:?}");
    let yard_id = yard.body["location"]["id"].as_str().unwrap().to_string();
    let asset = manager
        .post(
            "/api/assets",
            json!({ "asset": { "external_id": "NEW-ASSET-1" } }),
        )
        .await;
    let asset_id = asset.body["asset"]["id"].as_str().unwrap().to_string();
    let mut created = Vec::new();
    for check_in in [false, true] {
        let t = manager
            .post(
                "/api/transactions",
                json!({ "transaction": { "asset_id": asset_id, "location_id": yard_id, "check_in": check_in } }),
            )
            .await;
        assert_eq!(t.status, 201, "{t:?}");
        created.push(t.body["transaction"]["id"].as_str().unwrap().to_string());
    }
    // One at the seeded location too, which the yard's filter must leave out.
    manager
        .post(
            "/api/transactions",
            json!({ "transaction": { "asset_id": "43" } }),
        )
        .await;

    for want in [json!(yard_id), json!(yard_id.parse::<u64>().unwrap())] {
        let found = manager
            .all(
                "/api/transactions",
                "transactions",
                json!({ "location_id": want }),
                1,
            )
            .await;
        assert_eq!(ids(&found), created, "by {want}");
    }
    // The seeded location finds the seeded transactions and the one created there.
    let main = manager
        .all(
            "/api/transactions",
            "transactions",
            json!({ "location_id": "89" }),
            50,
        )
        .await;
    assert_eq!(main.len(), 6);

    // The asset is where its latest transaction left it: at the yard, checked in.
    let assets = manager
        .all(
            "/api/assets",
            "assets",
            json!({ "location_id": yard_id }),
            50,
        )
        .await;
    assert_eq!(ids(&assets), [asset_id.as_str()]);
    assert_eq!(assets[0]["check_in"], true);
    assert_eq!(assets[0]["transaction"]["id"], json!(created[1]));
    let checked_in = manager
        .all(
            "/api/assets",
            "assets",
            json!({ "location_id": yard_id, "check_in": true }),
            50,
        )
        .await;
    assert_eq!(checked_in.len(), 1);
}

#[tokio::test]
async fn ids_made_at_run_time_never_repeat_a_seeded_one() {
    // Seeded transactions 100..=1149 pass the first id handed out at run time (1001).
    let sandbox = Sandbox::start(Options {
        legacy_transactions: 1_050,
        ..Options::default()
    })
    .await
    .unwrap();
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let made = user
        .post(
            "/api/transactions",
            json!({ "transaction": { "asset_id": "43" } }),
        )
        .await;
    assert_eq!(made.status, 201, "{made:?}");
    let all = user
        .all("/api/transactions", "transactions", json!({}), 50)
        .await;
    assert_eq!(all.len(), 1_051);
    let mut seen = std::collections::HashSet::new();
    for id in ids(&all) {
        assert!(seen.insert(id), "id {id} answered twice");
    }
    // In id order, the new one last.
    assert_eq!(all.last().unwrap()["id"], made.body["transaction"]["id"]);
}

#[tokio::test]
async fn a_task_carries_its_asset_location_and_people() {
    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let sam = json!({ "id": "43", "email": "user@example.com", "name": "Sam Example" });
    let morgan = json!({ "id": "42", "email": "manager@example.com", "name": "Morgan Example" });
    let body = json!({ "task": { "name": "Inspect Mini", "asset_id": "43", "location_id": "90" } });
    let created = user.post("/api/tasks", body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let task = &created.body["task"];
    assert_eq!(
        task["asset"],
        json!({ "id": "43", "external_id": "WMWMF33519TW73378" })
    );
    assert_eq!(
        task["location"],
        json!({ "id": "90", "name": "Branch Office" })
    );
    assert_eq!(task["assignee"], sam);
    assert_eq!(task["requester"], sam);
    assert_eq!(task["status"], "idle");
    assert_eq!(task["high_priority"], false);
    assert_eq!(task["activities"][0]["event"], "Created Task");
    assert_eq!(task["activities"][0]["user"], sam);
    let id = task["id"].as_str().unwrap().to_string();

    // Assigned to someone else, at the caller's location by default.
    let body = json!({ "task": { "name": "Inspect loader", "asset_id": "_0011110384607", "assignee_id": "42" } });
    let other = user.post("/api/tasks", body).await;
    assert_eq!(other.status, 201, "{other:?}");
    assert_eq!(other.body["task"]["assignee"], morgan);
    assert_eq!(
        other.body["task"]["location"],
        json!({ "id": "89", "name": "Main Office" })
    );

    // The seeded task has the same shape (assigned to the user, requested by the manager).
    let seeded = user.get("/api/tasks/42").await;
    assert_eq!(seeded.body["task"]["assignee"], sam);
    assert_eq!(seeded.body["task"]["requester"], morgan);
    assert_eq!(seeded.body["task"]["activities"][0]["user"], morgan);

    // The documented filters find tasks created at run time.
    let tasks = |f: Value| user.all("/api/tasks", "tasks", f, 1);
    assert_eq!(
        ids(&tasks(json!({ "location_id": "90" })).await),
        [id.as_str()]
    );
    let by_reference = tasks(json!({ "reference_number": "WMWMF33519TW73378" })).await;
    assert_eq!(ids(&by_reference), [id.as_str()]);
    assert_eq!(tasks(json!({ "location_id": 89 })).await.len(), 2);

    // An update moves it; ids naming nothing are refused, naming the field.
    let moved = user
        .call(
            "PATCH",
            &format!("/api/tasks/{id}"),
            Some(json!({ "task": { "location_id": "89" } })),
        )
        .await;
    assert_eq!(moved.status, 200, "{moved:?}");
    assert_eq!(moved.body["task"]["location"]["name"], "Main Office");
    for field in ["asset_id", "location_id", "assignee_id"] {
        let refused = user
            .post(
                "/api/tasks",
                json!({ "task": { "name": "x", field: "999" } }),
            )
            .await;
        assert_eq!(refused.status, 422, "{refused:?}");
        assert!(
            refused.errors().contains(&format!("task[{field}]")),
            "{refused:?}"
        );
    }
}

#[tokio::test]
async fn an_unknown_form_is_a_404_never_an_invented_form() {
    let sandbox = start().await;
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let form = user.get("/api/transactions/100/forms/7").await;
    assert_eq!(form.status, 200, "{form:?}");
    assert_eq!(form.body["form"]["id"], "7");
    assert_eq!(form.body["form"]["name"], "Rental Agreement");
    let token = format!("Token {}", user.token);
    let pdf = [
        ("accept", "application/pdf"),
        ("authorization", token.as_str()),
    ];

    for (path, named) in [
        ("/api/transactions/100/forms/f-1", "Form f-1"),
        ("/api/transactions/999/forms/7", "Transaction 999"),
        ("/api/form_templates/999", "Form template 999"),
    ] {
        let missing = user.get(path).await;
        assert_eq!(missing.status, 404, "{path}: {missing:?}");
        assert!(missing.errors().contains(named), "{path}: {missing:?}");
        // Asked for as a PDF: the same JSON error, not a document.
        let (status, body) = common::call(&sandbox, "GET", path, &pdf, None).await;
        assert_eq!(status, 404, "{path}");
        assert!(body["errors"].as_str().unwrap().contains(named), "{body}");
    }
    // A form that exists comes as a PDF when asked for one.
    let (status, _) =
        common::call(&sandbox, "GET", "/api/transactions/100/forms/7", &pdf, None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn one_time_users_are_upserted_by_email_and_need_a_location() {
    let sandbox = start().await;
    let manager = Api::login(&sandbox, LEGACY_MANAGER).await;
    let path = "/api/users/one_time_user";
    let body = json!({ "user": { "email": "guest@example.com", "location_id": "90",
                                 "phone_number": "+12345678900" },
                       "reference_number": "12345", "notify_user": true });
    let first = manager.post(path, body).await;
    assert_eq!(first.status, 201, "{first:?}");
    let user = &first.body["user"];
    assert_eq!(user["email"], "guest@example.com");
    assert_eq!(user["username"], "guest@example.com");
    assert_eq!(user["phone_number"], "+12345678900");
    assert_eq!(user["transaction_limit"], 1);
    let id = user["id"].as_str().unwrap().to_string();

    // Again with the same address: the same user, updated; the phone only when sent.
    let body = json!({ "user": { "email": "guest@example.com", "location_id": 89, "transaction_limit": 3 } });
    let again = manager.post(path, body).await;
    assert_eq!(again.status, 201, "{again:?}");
    assert_eq!(again.body["user"]["id"], json!(id));
    assert_eq!(again.body["user"]["transaction_limit"], 3);
    assert!(
        again.body["user"].get("phone_number").is_none(),
        "{again:?}"
    );
    let users = manager.all("/api/users", "users", json!({}), 50).await;
    let guests: Vec<&Value> = users
        .iter()
        .filter(|u| u["username"] == "guest@example.com")
        .collect();
    assert_eq!(guests.len(), 1, "{users:?}");
    assert_eq!(guests[0]["id"], json!(id));

    // Each required field refused by name; an unknown location and a full user's address too.
    for (user, field) in [
        (json!({ "email": "other@example.com" }), "user[location_id]"),
        (json!({ "location_id": "89" }), "user[email]"),
        (
            json!({ "email": "other@example.com", "location_id": null }),
            "user[location_id]",
        ),
        (
            json!({ "email": "other@example.com", "location_id": "999" }),
            "user[location_id]",
        ),
        (
            json!({ "email": "user@example.com", "location_id": "89" }),
            "user[email]",
        ),
    ] {
        let refused = manager.post(path, json!({ "user": user })).await;
        assert_eq!(refused.status, 422, "{user}: {refused:?}");
        assert!(refused.errors().contains(field), "{user}: {refused:?}");
    }
    // A one-time user gets a launch URL, never a password login.
    let login = json!({ "user": { "username": "guest@example.com", "password": "" } });
    let refused = manager.post("/api/users/authenticate", login).await;
    assert_eq!(refused.status, 401, "{refused:?}");
}

#[tokio::test]
async fn the_api_has_a_rate_limit_of_its_own_with_retry_after() {
    let sandbox = Sandbox::start(Options {
        legacy_rate_limit: Some((3, Duration::from_secs(30))),
        ..Options::default()
    })
    .await
    .unwrap();
    let user = Api::login(&sandbox, LEGACY_USER).await;
    let upload = user.get("/api/users/uploads/sig-9").await;
    let url = upload.body["upload_url"].as_str().unwrap().to_string();
    assert_eq!(user.get("/api/locations").await.status, 200);
    // The fourth /api request in the window: 429, with how long to wait.
    let token = format!("Token {}", user.token);
    let headers = [
        ("accept", "application/json; version=1"),
        ("authorization", token.as_str()),
    ];
    let refused = common::send(&sandbox, "GET", "/api/locations", &headers, None).await;
    assert_eq!(refused.status().as_u16(), 429);
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&wait), "Retry-After: {wait}");
    let body: Value = serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
    assert_eq!(body, json!({ "errors": "Rate limit exceeded" }));
    // Also before the token is looked at, and for the login.
    assert_eq!(
        common::call(&sandbox, "GET", "/api/tasks", &[], None)
            .await
            .0,
        429
    );
    assert_eq!(sandbox.stats().await.legacy_rate_limited, 2);

    // v3 has its own budget, and a pre-signed upload is the storage's, not /api's.
    let keys = [
        ("api-key-id", "demo-key"),
        ("api-key-secret", "demo-secret"),
    ];
    assert_eq!(
        common::call(&sandbox, "GET", "/v3/units", &keys, None)
            .await
            .0,
        200
    );
    let path = url.strip_prefix(&sandbox.legacy_base_url()).unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let put = client.put(url.as_str()).body("PNG").send().await.unwrap();
    assert_eq!(put.status().as_u16(), 200, "PUT {path}");

    // Off, and the default.
    assert_eq!(
        Options::default().legacy_rate_limit,
        Some((100, Duration::from_secs(10)))
    );
    let flags = |v: &[&str]| sandbox::cli::parse(v.iter().map(|s| s.to_string()).collect());
    let off = flags(&["--legacy-rate-limit", "off"]).unwrap().unwrap();
    assert_eq!(off.legacy_rate_limit, None);
    let five = flags(&["--legacy-rate-limit", "5/2"]).unwrap().unwrap();
    assert_eq!(five.legacy_rate_limit, Some((5, Duration::from_secs(2))));
    let bad = flags(&["--legacy-rate-limit", "fast"]).unwrap_err();
    assert!(bad.contains("--legacy-rate-limit"), "{bad}");
}

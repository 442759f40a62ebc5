//! The v3 sandbox with records made at run time: `--empty` with `--inspections N`, and list
//! filters, order and paging over records created after start-up, each exactly once.

use serde_json::{Value, json};

use sandbox::{Options, Sandbox};

mod common;

use common::DEMO_KEYS as KEYS;

async fn v3(sandbox: &Sandbox, method: &str, path: &str, body: Option<Value>) -> Value {
    let (status, answer) = common::call(sandbox, method, &format!("/v3{path}"), &KEYS, body).await;
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {answer}"
    );
    answer
}

/// Every record of a list, page after page by `paging.next`, and how many pages it took.
async fn walk(sandbox: &Sandbox, path: &str) -> (Vec<Value>, usize) {
    let origin = sandbox.legacy_base_url();
    let mut url = format!("/v3{path}");
    let (mut records, mut pages) = (Vec::new(), 0);
    loop {
        let (status, page) = common::call(sandbox, "GET", &url, &KEYS, None).await;
        assert_eq!(status, 200, "{url}: {page}");
        pages += 1;
        records.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["paging"]["next"].as_str() {
            Some(next) => url = next.strip_prefix(&origin).unwrap().to_string(),
            None => return (records, pages),
        }
    }
}

fn field<'v>(records: &'v [Value], name: &str) -> Vec<&'v str> {
    records.iter().map(|r| r[name].as_str().unwrap()).collect()
}

fn flags(args: &[&str]) -> Options {
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.extend(["--addr".into(), "127.0.0.1:0".into()]);
    sandbox::cli::parse(args).unwrap().unwrap()
}

#[tokio::test]
async fn empty_with_inspections_seeds_exactly_those_inspections() {
    for args in [
        ["--empty", "--inspections", "7"],
        ["--inspections", "7", "--empty"],
    ] {
        let sandbox = Sandbox::start(flags(&args)).await.unwrap();
        let (inspections, pages) = walk(&sandbox, "/inspections?per_page=3").await;
        let want: Vec<String> = (0..7).map(|n| format!("ins_{n:06}")).collect();
        assert_eq!(field(&inspections, "id"), want, "{args:?}");
        assert_eq!(pages, 3);
        // Nothing else: no demo units, tasks or demo inspections.
        assert_eq!(walk(&sandbox, "/units").await.0, Vec::<Value>::new());
        assert_eq!(walk(&sandbox, "/tasks").await.0, Vec::<Value>::new());
        // Inspections made at run time follow them, each once.
        for _ in 0..2 {
            common::call(&sandbox, "POST", "/_sandbox/v3/inspections", &[], None).await;
        }
        let (all, _) = walk(&sandbox, "/inspections?per_page=2").await;
        assert_eq!(all.len(), 9);
        assert_eq!(field(&all, "id")[..7], want);
    }
}

#[tokio::test]
async fn runtime_units_are_filtered_ordered_and_paged_exactly_once() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let mut made = Vec::new();
    for n in 1..=7 {
        let serial = if n % 2 == 0 { "SN-EVEN" } else { "SN-ODD" };
        let body = json!({ "reference_number": format!("RT-{n}"), "serial_number": serial });
        let unit = v3(&sandbox, "POST", "/units", Some(body)).await;
        made.push(unit["reference_number"].as_str().unwrap().to_string());
    }
    // Upserts that create, too.
    for n in 8..=9 {
        let path = format!("/units/by_reference_number/RT-{n}");
        v3(
            &sandbox,
            "PUT",
            &path,
            Some(json!({ "serial_number": "SN-ODD" })),
        )
        .await;
        made.push(format!("RT-{n}"));
    }
    let (units, pages) = walk(&sandbox, "/units?per_page=2").await;
    let mut want = vec!["EX-0117", "FL-0042", "TR-0208"];
    want.extend(made.iter().map(String::as_str));
    assert_eq!(field(&units, "reference_number"), want);
    assert_eq!(pages, 6);
    let (odd, _) = walk(&sandbox, "/units?serialNumber=SN-ODD&per_page=1").await;
    assert_eq!(
        field(&odd, "reference_number"),
        ["RT-1", "RT-3", "RT-5", "RT-7", "RT-8", "RT-9"]
    );
    let (one, _) = walk(&sandbox, "/units?referenceNumber=RT-4").await;
    assert_eq!(field(&one, "reference_number"), ["RT-4"]);

    // A unit made while a walk is under way comes at its end, once.
    let origin = sandbox.legacy_base_url();
    let first = v3(&sandbox, "GET", "/units?per_page=4", None).await;
    v3(
        &sandbox,
        "POST",
        "/units",
        Some(json!({ "reference_number": "RT-LATE" })),
    )
    .await;
    let next = first["paging"]["next"].as_str().unwrap();
    let rest = walk(
        &sandbox,
        next.strip_prefix(&format!("{origin}/v3")).unwrap(),
    )
    .await
    .0;
    let mut seen: Vec<&str> = field(first["data"].as_array().unwrap(), "reference_number");
    seen.extend(field(&rest, "reference_number"));
    want.push("RT-LATE");
    assert_eq!(seen, want);
}

#[tokio::test]
async fn runtime_tasks_are_filtered_ordered_and_paged_exactly_once() {
    let sandbox = Sandbox::start(Options::default()).await.unwrap();
    let (_, advanced) =
        common::call(&sandbox, "POST", "/_sandbox/advance?seconds=1", &[], None).await;
    let since = advanced["now"].as_str().unwrap().to_string();
    let body = |n: usize| {
        json!({ "name": format!("Runtime task {n}"), "reference_number": "FL-0042",
                "due_by": "2030-01-01", "assignee_username": "sam.lee@example.com" })
    };
    let mut made = Vec::new();
    for n in 1..=5 {
        let task = v3(&sandbox, "POST", "/tasks", Some(body(n))).await;
        made.push(task["id"].as_str().unwrap().to_string());
    }
    let (all, _) = walk(&sandbox, "/tasks?per_page=2").await;
    assert_eq!(all.len(), 10, "the five demo tasks, then the five made");
    assert_eq!(field(&all, "id")[5..], made);
    let after = format!("/tasks?created_after={since}&per_page=2");
    assert_eq!(field(&walk(&sandbox, &after).await.0, "id"), made);

    // Two completed: the status and completed_at filters see them, in order.
    for n in [4, 2] {
        let mut done = body(n);
        done["status"] = json!("completed");
        v3(
            &sandbox,
            "PATCH",
            &format!("/tasks/{}", made[n - 1]),
            Some(done),
        )
        .await;
    }
    let done = format!("/tasks?status=complete&completed_after={since}&per_page=1");
    assert_eq!(
        field(&walk(&sandbox, &done).await.0, "id"),
        [&made[1], &made[3]]
    );
    let open = format!("/tasks?status=incomplete&created_after={since}&per_page=1");
    assert_eq!(
        field(&walk(&sandbox, &open).await.0, "id"),
        [&made[0], &made[2], &made[4]]
    );
}

use inspection_client::TryStreamExt;
use inspection_client::v3::{ApiKey, Client, InspectionResult, NewUnit};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), inspection_client::Error> {
    let base_url = std::env::var("INSPECTION_URL").unwrap_or("http://127.0.0.1:8080/v3".into());
    let key_id = std::env::var("INSPECTION_KEY_ID").unwrap_or("demo-key".into());
    let secret = std::env::var("INSPECTION_KEY_SECRET").unwrap_or("demo-secret".into());
    let client = Client::new(&base_url, ApiKey::new(key_id, secret))?;

    // Checked against the documented limits before it is sent.
    let reference = format!("A-{}", std::process::id()); // unique per run
    let unit = NewUnit::new(reference).make("Cat").model("320").year(2021);
    let unit = client.create_unit(unit).send().await?;
    println!("created unit {}", unit.id);

    // Every page, paced under the rate limit, one page in memory at a time.
    let since = chrono::Utc::now() - chrono::Duration::days(7);
    let mut inspections = client
        .list_inspections()
        .created_after(since)
        .per_page(100)
        .stream();
    while let Some(inspection) = inspections.try_next().await? {
        for result in &inspection.results {
            match result {
                InspectionResult::Checklist(c) => {
                    println!("{}: {} fields", inspection.id, c.data.len())
                }
                other => println!("{}: a {} result", inspection.id, other.tag()),
            }
        }
        // Accept: application/pdf; a 202 (still rendering) is waited out.
        let pdf = client.get_inspection(inspection.id.clone()).pdf().await?;
        println!("{}: {} PDF bytes", inspection.id, pdf.len());
    }
    Ok(())
}

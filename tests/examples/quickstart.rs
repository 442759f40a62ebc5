use inspection_client::TryStreamExt;
use inspection_client::v3::{ApiKey, Client, NewUnit};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), inspection_client::Error> {
    let url = std::env::var("INSPECTION_URL").unwrap_or("http://127.0.0.1:8080/v3".into());
    let client = Client::new(&url, ApiKey::new("demo-key", "demo-secret"))?;
    let unit = NewUnit::new(format!("A-{}", std::process::id())).make("Cat");
    let unit = client.create_unit(unit).send().await?;
    println!("created unit {}", unit.id);
    let mut inspections = client.list_inspections().per_page(100).stream();
    while let Some(inspection) = inspections.try_next().await? {
        println!("{}, results: {}", inspection.id, inspection.results.len());
    }
    Ok(())
}

use inspection_client::TryStreamExt;
use inspection_client::legacy::{
    AuthenticateRequest, Client, Credentials, NewTransaction, NewTransactionRequest,
    SignatureUpload, TransactionFilter,
};
use inspection_client::runtime::TimeOrRange;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), inspection_client::Error> {
    let base_url = std::env::var("INSPECTION_LEGACY_URL").unwrap_or("http://127.0.0.1:8080".into());
    let login = Credentials::new("user@example.com", "user-pass");
    // Logs in; the token goes as `Authorization: Token <jwt>`, renewed once on a 401.
    let client = Client::login(&base_url, AuthenticateRequest::new(login)).await?;

    // Every transaction of the last week, 50 per page, following `links.next`.
    let week = chrono::Utc::now() - chrono::Duration::days(7);
    let filter = TransactionFilter::default().created_at(TimeOrRange::Since(week));
    let mut transactions = client.list_transactions().filter(filter).limit(50).stream();
    while let Some(t) = transactions.try_next().await? {
        let archived = t.archive_status.as_ref().is_some_and(|s| s.is_archived());
        println!("{} archived: {archived}", t.id);
    }

    // Media first: an upload URL for a file id we choose, the bytes PUT without
    // credentials, then the transaction that references the file.
    let upload = client.get_upload_url("signature-0001").send().await?;
    if let Some(url) = upload.upload_url {
        client
            .put_presigned(&url, b"...png bytes...".to_vec(), Some("image/png"))
            .await?;
    }
    let signature = SignatureUpload::new("signature-0001");
    let body = NewTransaction::default()
        .asset_id("43")
        .signatures(vec![signature]);
    let created = client
        .create_transaction(NewTransactionRequest::new(body))
        .send()
        .await?;
    println!("created transaction {}", created.transaction.id);
    Ok(())
}

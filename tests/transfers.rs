//! Files in and out in bounded memory (issue 14, point 7): a PDF or pre-signed download as
//! a stream of chunks, a file uploaded as it is read (and read again for a retry), and
//! multipart parts read from any `AsyncRead` no faster than they are sent.

#[path = "support/mod.rs"]
mod support;

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::TryStreamExt;
use inspection_client::v3::*;
use inspection_client::{Config, Error, RetryPolicy};
use support::server::{Canned, Server};
use tokio::io::{AsyncRead, ReadBuf};

fn client(base: &str, attempts: u32) -> Client {
    let config: Config = Client::default_config().no_pacing().retry(RetryPolicy::new(
        attempts,
        Duration::from_millis(1),
        Duration::from_secs(1),
    ));
    Client::with_config(base, ApiKey::new("key-id", "key-secret-123"), config).unwrap()
}

async fn collect(stream: inspection_client::BoxStream<inspection_client::Bytes>) -> Vec<u8> {
    let chunks: Vec<_> = stream.try_collect().await.unwrap();
    chunks.concat()
}

#[tokio::test]
async fn downloads_stream_as_chunks() {
    let pdf: Vec<u8> = [b"%PDF-1.7\n".as_slice(), &[b'p'; 300_000], b"%%EOF\n"].concat();
    let server = Server::start().await;
    // A 202 first: the stream waits it out like `pdf()` does.
    server.push(Canned::status(202));
    server.push(Canned::bytes(200, "application/pdf", &pdf));
    server.push(Canned::bytes(200, "application/pdf", &pdf));
    let client = client(&server.base(), 1);
    let streamed = collect(client.get_inspection("i1").pdf_stream()).await;
    assert_eq!(streamed, pdf);
    let sent = server.recorded();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].header("accept"), Some("application/pdf"));

    let link = format!("{}/files/share.pdf?sig=abc", server.base());
    assert_eq!(collect(client.fetch_presigned_stream(&link)).await, pdf);
    assert_eq!(server.recorded()[2].header("api-key-secret"), None);

    // A failure is the stream's one item, with the service's status.
    server.push(Canned::json(404, r#"{"errors": "no such inspection"}"#));
    let mut failed = client.get_inspection("nope").pdf_stream();
    let err = failed.try_next().await.unwrap_err();
    assert_eq!(err.status(), Some(404), "{err}");
    assert!(failed.try_next().await.unwrap().is_none());
}

#[tokio::test]
async fn a_file_upload_is_read_as_sent_and_again_for_a_retry() {
    let path = std::env::temp_dir().join(format!("inspection-upload-{}.bin", std::process::id()));
    let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &content).unwrap();
    let server = Server::start().await;
    server.push(Canned::status(503));
    server.push(Canned::status(200).header("etag", "\"e-1\""));
    let client = client(&server.base(), 2);
    let url = format!("{}/storage/file?X-Amz-Signature=s", server.base());
    let etag = client
        .put_presigned_file(&url, &path, Some("video/mp4"))
        .await
        .unwrap();
    assert_eq!(etag.as_deref(), Some("\"e-1\""));
    let sent = server.recorded();
    assert_eq!(sent.len(), 2, "one retry");
    for put in &sent {
        assert_eq!(put.method, "PUT");
        assert_eq!(
            put.body.as_ref(),
            content.as_slice(),
            "the whole file, each time"
        );
        assert_eq!(put.header("content-length"), Some("200000"));
        assert_eq!(put.header("content-type"), Some("video/mp4"));
        assert_eq!(put.header("api-key-secret"), None);
    }

    // A file that cannot be read is an error naming it; nothing is sent.
    std::fs::remove_file(&path).unwrap();
    let err = client
        .put_presigned_file(&url, &path, None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Transport { message, .. } if message.contains("cannot read")),
        "{err}"
    );
    assert_eq!(server.recorded().len(), 2);
}

/// A reader of `data` that notes, at every read, how many parts it is ahead of the parts
/// the server has received.
struct Watched {
    data: Vec<u8>,
    at: usize,
    part: usize,
    server: Server,
    most_ahead: Arc<AtomicUsize>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        let n = buf.remaining().min(this.data.len() - this.at);
        buf.put_slice(&this.data[this.at..this.at + n]);
        this.at += n;
        let arrived = this.server.recorded().len();
        let ahead = this.at.div_ceil(this.part).saturating_sub(arrived);
        this.most_ahead.fetch_max(ahead, Ordering::Relaxed);
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn multipart_parts_are_read_no_faster_than_they_are_sent() {
    const PART: usize = 64 * 1024;
    let server = Server::start().await;
    for n in 1..=8 {
        let canned = Canned::status(200).header("etag", &format!("\"p{n}\""));
        server.push(canned.delayed(Duration::from_millis(20)));
    }
    let client = client(&server.base(), 1);
    let urls: Vec<String> = (1..=8)
        .map(|n| format!("{}/storage/part?n={n}&sig=s", server.base()))
        .collect();
    let data: Vec<u8> = (0..7 * PART + 100).map(|i| (i % 253) as u8).collect();
    let most_ahead = Arc::new(AtomicUsize::new(0));
    let reader = Watched {
        data: data.clone(),
        at: 0,
        part: PART,
        server: server.clone(),
        most_ahead: most_ahead.clone(),
    };
    let etags = client
        .put_parts_from(&urls, reader, PART, None, 2)
        .await
        .unwrap();
    let numbers: Vec<u32> = etags.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, (1..=8).collect::<Vec<_>>());
    let mut sent = server.recorded();
    sent.sort_by_key(|r| r.uri.clone());
    let joined: Vec<u8> = sent.iter().flat_map(|r| r.body.to_vec()).collect();
    assert_eq!(joined, data, "every byte once, in its part");
    assert_eq!(sent[7].body.len(), 100, "the last part is the rest");
    // Two in flight and the one being read: never the whole input.
    let ahead = most_ahead.load(Ordering::Relaxed);
    assert!(ahead <= 3, "read {ahead} parts ahead of the uploads");

    // More data than URLs, or less, is refused by name (once the parts before are sent:
    // a reader's length is known only at its end).
    for n in 1..=2 {
        server.push(Canned::status(200).header("etag", &format!("\"x{n}\"")));
    }
    let err = client
        .put_parts_from(&urls[..1], &data[..2 * PART], PART, None, 1)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("more than 1 parts")),
        "{err}"
    );
    let err = client
        .put_parts_from(&urls[..2], &data[..10], PART, None, 1)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Config(m) if m.contains("ended after 1 parts")),
        "{err}"
    );
}

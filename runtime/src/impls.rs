//! The impls every generated id, string enum, request builder and client share, as
//! macros: one line in the generated code instead of the same ten to forty per type or
//! operation. What differs between them (names, wire values, query parameters, the
//! request itself) stays in the generated code; what each macro assumes of the type it
//! is given is said on the macro.

/// An id newtype `$ty(String)`: `new`, `as_str`, `into_inner`, `Display`, `AsRef<str>`,
/// `From<String>`, `From<&str>`, `Serialize` as its text, and a `Deserialize` that takes the
/// id as sent.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_id {
    ($ty:ident) => {
        impl $ty {
            /// Wraps an id.
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id as an owned string.
            pub fn into_inner(self) -> String {
                self.0
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $ty {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $ty {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $ty {
            fn from(id: &str) -> Self {
                Self(id.to_string())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                $crate::__private::deserialize_id(deserializer).map(Self)
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }
    };
}

/// A string enum with `as_str` and `try_parse`: `Display` and `Serialize` as its wire
/// value. With `open`, the enum also has `Unknown(UnknownValue)`, and gets `is_unknown`,
/// `From<&str>` (an unknown value kept) and a `Deserialize` that never refuses a string.
/// With `closed` and its wire values, a `Deserialize` that refuses any other, naming them.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_enum {
    ($ty:ident, closed, [$($wire:literal),+ $(,)?]) => {
        $crate::impl_enum!($ty);

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::__private::ClosedVisitor::new(
                    concat!("a ", stringify!($ty), " value"),
                    &[$($wire),+],
                    Self::try_parse,
                ))
            }
        }
    };
    ($ty:ident, open) => {
        $crate::impl_enum!($ty);

        impl $ty {
            /// Whether this is a value this version of the client does not know.
            pub fn is_unknown(&self) -> bool {
                matches!(self, Self::Unknown(_))
            }
        }

        impl From<&str> for $ty {
            fn from(value: &str) -> Self {
                Self::try_parse(value)
                    .unwrap_or_else(|| Self::Unknown($crate::UnknownValue::new(value)))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::__private::FromStrVisitor::new(concat!(
                    "a ",
                    stringify!($ty),
                    " value"
                )))
            }
        }
    };
    ($ty:ident) => {
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

/// What every request builder `$ty { core: Core, request_options: RequestOptions, .. }`
/// with a `to_request` has: `request_options`, and `send` by what the answer is:
///
/// - `json, T` (`json_ready, T` to wait out 202 answers): the answer decoded as a `T`;
/// - `empty` (`empty_ready`): success has no body;
/// - `upsert, T` (`upsert_ready, T`): `Upserted<T>`, created (201) or replaced (200);
/// - `bytes, "media/type"` (`bytes_ready, ..`): the body's bytes, with `send_to` (into an
///   `AsyncWrite`) and `send_stream` (chunks as they arrive).
///
/// `resume, ` before the answer adds the `resume` setter of a paged request, whose
/// `resume: Option<Resume>` field `to_request` reads.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_request {
    ($ty:ident, resume, $($answer:tt)+) => {
        $crate::impl_request!($ty, $($answer)+);

        impl $ty {
            /// Starts at the page a failed walk stopped at (`Error::resume` of an
            /// `Error::Interrupted`), so a resumed walk fetches nothing twice.
            pub fn resume(mut self, from: $crate::Resume) -> Self {
                self.resume = Some(from);
                self
            }
        }
    };
    ($ty:ident, $($answer:tt)+) => {
        $crate::__request_send!(@send $ty, $($answer)+);

        impl $ty {
            /// Settings for this request only (timeout, retries, extra headers), over the
            /// client's `Config`.
            pub fn request_options(mut self, options: $crate::RequestOptions) -> Self {
                self.request_options = options;
                self
            }
        }
    };
}

/// The `send` of [`impl_request!`], by answer.
#[doc(hidden)]
#[macro_export]
macro_rules! __request_send {
    (@send $ty:ident, json, $out:ty) => {
        impl $ty {
            /// Sends the request and decodes the answer.
            pub async fn send(self) -> Result<$out, $crate::Error> {
                let request = self.to_request()?;
                self.core.json(&request).await
            }
        }
    };
    (@send $ty:ident, json_ready, $out:ty) => {
        impl $ty {
            /// Sends the request and decodes the answer.
            /// A 202 (still preparing) is asked again with backoff, up to the client's
            /// polling limit.
            pub async fn send(self) -> Result<$out, $crate::Error> {
                let request = self.to_request()?;
                self.core.json_ready(&request).await
            }
        }
    };
    (@send $ty:ident, empty) => {
        impl $ty {
            /// Sends the request; success has no body.
            pub async fn send(self) -> Result<(), $crate::Error> {
                let request = self.to_request()?;
                self.core.execute(&request).await.map(drop)
            }
        }
    };
    (@send $ty:ident, empty_ready) => {
        impl $ty {
            /// Sends the request; success has no body. A 202 (still preparing) is asked
            /// again with backoff, up to the client's polling limit.
            pub async fn send(self) -> Result<(), $crate::Error> {
                let request = self.to_request()?;
                self.core.execute_ready(&request).await.map(drop)
            }
        }
    };
    (@send $ty:ident, upsert, $out:ty) => {
        $crate::__request_send!(@upsert $ty, $out, execute);
    };
    (@send $ty:ident, upsert_ready, $out:ty) => {
        $crate::__request_send!(@upsert $ty, $out, execute_ready);
    };
    (@upsert $ty:ident, $out:ty, $execute:ident) => {
        impl $ty {
            /// Sends the request; the answer tells whether the record was created (201)
            /// or replaced (200).
            pub async fn send(self) -> Result<$crate::Upserted<$out>, $crate::Error> {
                let request = self.to_request()?;
                let response = self.core.$execute(&request).await?;
                let value = self.core.decode(&response)?;
                Ok(if response.status == 201 {
                    $crate::Upserted::Created(value)
                } else {
                    $crate::Upserted::Replaced(value)
                })
            }
        }
    };
    (@send $ty:ident, bytes, $media:literal) => {
        $crate::__request_send!(@bytes $ty, $media, execute);
    };
    (@send $ty:ident, bytes_ready, $media:literal) => {
        $crate::__request_send!(@bytes $ty, $media, execute_ready);
    };
    (@bytes $ty:ident, $media:literal, $execute:ident) => {
        impl $ty {
            #[doc = concat!(" Sends the request and returns the `", $media, "` bytes.")]
            pub async fn send(self) -> Result<$crate::Bytes, $crate::Error> {
                let request = self.to_request()?;
                Ok(self.core.$execute(&request).await?.body)
            }

            #[doc = concat!(
                " Sends the request and writes the `", $media, "` bytes to `out` as they ",
                "arrive, in bounded memory whatever their size; returns how many were written."
            )]
            pub async fn send_to<W: $crate::AsyncWrite + Unpin + ?Sized>(
                self,
                out: &mut W,
            ) -> Result<u64, $crate::Error> {
                let request = self.to_request()?;
                self.core.download(&request, out).await
            }

            /// Like [`Self::send`], as a stream of byte chunks as they arrive, one in
            /// memory at a time (to hand the body on without holding it).
            pub fn send_stream(self) -> $crate::BoxStream<$crate::Bytes> {
                self.core.download_stream(self.to_request())
            }
        }
    };
}

/// The second form of an answer a request builder may ask for with `Accept`, waiting out
/// 202 answers: `$method` (the bytes), `$method_to` (into an `AsyncWrite`) and
/// `$method_stream` (chunks as they arrive).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_alternative {
    ($ty:ident, $media:literal, $method:ident, $method_to:ident, $method_stream:ident) => {
        impl $ty {
            #[doc = concat!(
                " Asks for the `", $media, "` form instead (`Accept: ", $media,
                "`), waiting out 202 answers."
            )]
            pub async fn $method(self) -> Result<$crate::Bytes, $crate::Error> {
                let request = self.to_request()?.accept($media);
                Ok(self.core.execute_ready(&request).await?.body)
            }

            #[doc = concat!(
                " Like [`Self::", stringify!($method), "`], writing the bytes to `out` as ",
                "they arrive, in bounded memory whatever their size; returns how many were ",
                "written."
            )]
            pub async fn $method_to<W: $crate::AsyncWrite + Unpin + ?Sized>(
                self,
                out: &mut W,
            ) -> Result<u64, $crate::Error> {
                let request = self.to_request()?.accept($media);
                self.core.download(&request, out).await
            }

            #[doc = concat!(
                " Like [`Self::", stringify!($method), "`], as a stream of byte chunks as ",
                "they arrive, one in memory at a time (to hand the body on without holding it)."
            )]
            pub fn $method_stream(self) -> $crate::BoxStream<$crate::Bytes> {
                self.core
                    .download_stream(self.to_request().map(|r| r.accept($media)))
            }
        }
    };
}

/// The walks of a paged request builder:
///
/// - `cursor, Page, Item, "page", "per_page"`: `pages` and `stream`, sending the page
///   cursor back in the first parameter and keeping the page size of the second;
/// - `links, Envelope, Item`: `pages` and `stream` following `next` links, and
///   `pages_backward` and `stream_backward` following `prev` links.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_pages {
    ($ty:ident, cursor, $page:ty, $item:ty, $page_param:literal, $per_page_param:literal) => {
        impl $ty {
            /// Every page, following the service's paging until it ends; one page in memory
            /// at a time.
            pub fn pages(self) -> $crate::BoxStream<$page> {
                let request = self.to_request();
                $crate::__private::pages(self.core, request, $page_param, $per_page_param)
            }

            /// Every record of every page, in order; one page in memory at a time.
            pub fn stream(self) -> $crate::BoxStream<$item> {
                let request = self.to_request();
                $crate::__private::items::<$page>(self.core, request, $page_param, $per_page_param)
            }

            /// Every page with where the walk goes after it (`None` after the last): store
            /// it beside what became of the page's records, and a later walk started there
            /// with [`Self::resume`] fetches nothing twice, in this process or another.
            pub fn pages_resumable(self) -> $crate::BoxStream<($page, Option<$crate::Resume>)> {
                let request = self.to_request();
                $crate::__private::pages_resumable(self.core, request, $page_param, $per_page_param)
            }
        }
    };
    ($ty:ident, links, $envelope:ty, $item:ty) => {
        impl $ty {
            /// Every page, following `next` links until there is none; one page in memory at
            /// a time.
            pub fn pages(self) -> $crate::BoxStream<$envelope> {
                let request = self.to_request();
                $crate::__private::links_pages(
                    self.core,
                    request,
                    $crate::__private::Direction::Forward,
                )
            }

            /// Every record of every page, following `next` links.
            pub fn stream(self) -> $crate::BoxStream<$item> {
                let request = self.to_request();
                $crate::__private::links_items::<$envelope>(
                    self.core,
                    request,
                    $crate::__private::Direction::Forward,
                )
            }

            /// Every page with the `next` link the walk follows after it (`None` after the
            /// last): store it beside what became of the page's records, and a later walk
            /// started there with [`Self::resume`] fetches nothing twice.
            pub fn pages_resumable(self) -> $crate::BoxStream<($envelope, Option<$crate::Resume>)> {
                let request = self.to_request();
                $crate::__private::links_pages_resumable(
                    self.core,
                    request,
                    $crate::__private::Direction::Forward,
                )
            }

            /// Every page, following `prev` links towards earlier records.
            pub fn pages_backward(self) -> $crate::BoxStream<$envelope> {
                let request = self.to_request();
                $crate::__private::links_pages(
                    self.core,
                    request,
                    $crate::__private::Direction::Backward,
                )
            }

            /// Every record of every page, following `prev` links.
            pub fn stream_backward(self) -> $crate::BoxStream<$item> {
                let request = self.to_request();
                $crate::__private::links_items::<$envelope>(
                    self.core,
                    request,
                    $crate::__private::Direction::Backward,
                )
            }
        }
    };
}

/// A client `$ty { core: Core, .. }`'s `core` and its pre-signed transfers, which need no
/// credential and are the same for every interface.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_client {
    ($ty:ident) => {
        impl $ty {
            /// The transport core, for raw requests the generated methods do not cover.
            pub fn core(&self) -> &$crate::Core {
                &self.core
            }

            /// A client over a core made elsewhere: a dry run's, whose credentials are
            /// placeholders, or a tool's that builds requests it never sends. No login
            /// happens; a token interface's calls carry whatever the core's auth holds.
            #[doc(hidden)]
            pub fn from_core(core: $crate::Core) -> Self {
                Self { core }
            }

            /// Downloads a pre-signed URL (a share link, a `pdf_share_url`). No credential
            /// is sent with it, whatever its origin.
            pub async fn fetch_presigned(&self, url: &str) -> Result<$crate::Bytes, $crate::Error> {
                self.core.fetch_presigned(url).await
            }

            /// Downloads a pre-signed URL like `fetch_presigned`, writing the bytes to `out`
            /// as they arrive (a file of any size in bounded memory); returns how many.
            pub async fn fetch_presigned_to<W: $crate::AsyncWrite + Unpin + ?Sized>(
                &self,
                url: &str,
                out: &mut W,
            ) -> Result<u64, $crate::Error> {
                self.core.fetch_presigned_to(url, out).await
            }

            /// Downloads a pre-signed URL like `fetch_presigned`, as a stream of byte
            /// chunks as they arrive, one in memory at a time.
            pub fn fetch_presigned_stream(&self, url: &str) -> $crate::BoxStream<$crate::Bytes> {
                self.core.fetch_presigned_stream(url)
            }

            /// Uploads bytes to a pre-signed URL (an upload URL) with a PUT, without any
            /// credential; retried on failure. Returns the storage's `ETag`, if any.
            pub async fn put_presigned(
                &self,
                url: &str,
                bytes: impl Into<$crate::Bytes>,
                content_type: Option<&str>,
            ) -> Result<Option<String>, $crate::Error> {
                self.core
                    .put_presigned(url, bytes.into(), content_type)
                    .await
            }

            /// Uploads the file at `path` to a pre-signed URL like `put_presigned`, read as
            /// it is sent (bounded memory whatever its size) and again for a retry.
            pub async fn put_presigned_file(
                &self,
                url: &str,
                path: impl AsRef<::std::path::Path>,
                content_type: Option<&str>,
            ) -> Result<Option<String>, $crate::Error> {
                self.core.put_presigned_file(url, path, content_type).await
            }

            /// Uploads the parts of a multipart upload to their pre-signed URLs, at most
            /// `concurrency` at a time, without any credential. Returns `(part number, ETag)`
            /// in part order, ready for the completing call.
            pub async fn put_parts(
                &self,
                urls: &[String],
                parts: Vec<$crate::Bytes>,
                content_type: Option<&str>,
                concurrency: usize,
            ) -> Result<Vec<(u32, String)>, $crate::Error> {
                self.core
                    .put_parts(urls, parts, content_type, concurrency)
                    .await
            }

            /// Like `put_parts`, reading the parts from `reader`, `part_size` bytes each
            /// (the last may be shorter, one per URL): at most `concurrency` parts in
            /// memory at a time, whatever the total size (a file, a socket).
            pub async fn put_parts_from<R: $crate::AsyncRead + Unpin + Send>(
                &self,
                urls: &[String],
                reader: R,
                part_size: usize,
                content_type: Option<&str>,
                concurrency: usize,
            ) -> Result<Vec<(u32, String)>, $crate::Error> {
                self.core
                    .put_parts_from(urls, reader, part_size, content_type, concurrency)
                    .await
            }
        }
    };
}

#[cfg(test)]
// The stand-ins' methods are there to be compiled; most are never called.
#[allow(dead_code)]
mod tests {
    //! Every arm, expanded on stand-ins of the generated types (an arm no spec uses yet
    //! would otherwise first be compiled by a user's spec), and the behaviour of the impls
    //! a type gets.

    use crate::{Core, Error, Request, RequestOptions, Resume};

    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    struct ThingId(String);
    crate::impl_id!(ThingId);

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Color {
        Red,
        Unknown(crate::UnknownValue),
    }
    impl Color {
        fn as_str(&self) -> &str {
            match self {
                Self::Red => "red",
                Self::Unknown(value) => value.as_str(),
            }
        }
        fn try_parse(value: &str) -> Option<Self> {
            (value == "red").then_some(Self::Red)
        }
    }
    crate::impl_enum!(Color, open);

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Size {
        Small,
    }
    impl Size {
        fn as_str(&self) -> &'static str {
            "small"
        }
        fn try_parse(value: &str) -> Option<Self> {
            (value == "small").then_some(Self::Small)
        }
    }
    crate::impl_enum!(Size, closed, ["small"]);

    /// A request builder of each answer kind.
    macro_rules! builders {
        ($($ty:ident: [$($answer:tt)+])*) => {$(
            struct $ty {
                core: Core,
                request_options: RequestOptions,
                resume: Option<Resume>,
            }
            impl $ty {
                fn to_request(&self) -> Result<Request, Error> {
                    Ok(Request::new(crate::Method::GET, "/things"))
                }
            }
            crate::impl_request!($ty, $($answer)+);
        )*};
    }
    builders! {
        Json: [resume, json, ThingId]
        JsonReady: [json_ready, ThingId]
        Empty: [empty]
        EmptyReady: [empty_ready]
        Upsert: [upsert, ThingId]
        UpsertReady: [upsert_ready, ThingId]
        Bytes: [bytes, "text/csv"]
        BytesReady: [bytes_ready, "application/pdf"]
    }
    crate::impl_alternative!(JsonReady, "application/pdf", pdf, pdf_to, pdf_stream);

    struct Client {
        core: Core,
    }
    crate::impl_client!(Client);

    fn core() -> Core {
        Core::new(
            "http://127.0.0.1:9",
            crate::__private::Auth::None,
            crate::Config::default(),
        )
        .unwrap()
    }

    #[test]
    fn an_id_reads_writes_and_converts_as_its_text() {
        let id: ThingId = serde_json::from_str("\"t-1\"").unwrap();
        assert_eq!((id.as_str(), id.to_string()), ("t-1", "t-1".to_string()));
        assert_eq!(ThingId::from("t-1"), ThingId::new(String::from("t-1")));
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"t-1\"");
        assert_eq!(id.into_inner(), "t-1");
    }

    #[test]
    fn an_open_enum_keeps_an_unknown_value_and_a_closed_one_writes_its_own() {
        let known: Color = serde_json::from_str("\"red\"").unwrap();
        let unknown: Color = serde_json::from_str("\"teal\"").unwrap();
        assert!(!known.is_unknown() && unknown.is_unknown());
        assert_eq!(serde_json::to_string(&unknown).unwrap(), "\"teal\"");
        assert_eq!(Color::from("red"), Color::Red);
        let refused = serde_json::from_str::<Color>("3").unwrap_err().to_string();
        assert!(refused.contains("expected a Color value"), "{refused}");
        assert_eq!(Size::Small.to_string(), "small");
        assert_eq!(serde_json::to_string(&Size::Small).unwrap(), "\"small\"");
        let small: Size = serde_json::from_str("\"small\"").unwrap();
        assert_eq!(small, Size::Small);
        let refused = serde_json::from_str::<Size>("\"huge\"")
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("unknown variant `huge`, expected `small`"),
            "{refused}"
        );
        let refused = serde_json::from_str::<Size>("3").unwrap_err().to_string();
        assert!(refused.contains("expected a Size value"), "{refused}");
    }

    #[test]
    fn a_builder_takes_its_options_and_a_client_hands_out_its_core() {
        let options = RequestOptions::new().timeout(std::time::Duration::from_secs(3));
        let built = Empty {
            core: core(),
            request_options: RequestOptions::default(),
            resume: None,
        }
        .request_options(options.clone());
        assert_eq!(built.request_options, options);
        let client = Client { core: core() };
        assert_eq!(client.core().base_url(), core().base_url());
    }
}

//! The sync twin of an async runtime module: the runtime's I/O is written once, async, and
//! the blocking version is derived from it by whole-token replacements (as `unasync` does
//! for httpcore), so the two cannot drift apart.

/// `(async text, sync text, whole word)`, applied in order. A rule that is not whole-word
/// only needs a boundary on its left (`AsyncCore` -> `Core`, `._async_core` -> `._sync_core`).
const RULES: &[(&str, &str, bool)] = &[
    ("async def ", "def ", false),
    ("async for ", "for ", false),
    ("async with ", "with ", false),
    ("await ", "", false),
    ("__aiter__", "__iter__", true),
    ("__anext__", "__next__", true),
    ("__aenter__", "__enter__", true),
    ("__aexit__", "__exit__", true),
    ("StopAsyncIteration", "StopIteration", true),
    ("AsyncIterator", "Iterator", true),
    ("AsyncIterable", "Iterable", true),
    ("AsyncGenerator", "Generator", true),
    ("AsyncClient", "Client", true),
    ("AsyncBaseTransport", "BaseTransport", true),
    ("aclose", "close", true),
    ("aiter_bytes", "iter_bytes", true),
    ("_async_", "_sync_", false),
    ("Async", "", false),
    ("asyncio.sleep", "time.sleep", true),
    ("asyncio.Lock", "threading.Lock", true),
    ("import asyncio", "import threading, time", true),
];

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The sync version of an async module's text.
pub fn to_sync(text: &str) -> String {
    let mut out = text.to_string();
    for (from, to, whole) in RULES {
        out = replace_tokens(&out, from, to, *whole);
    }
    out
}

fn replace_tokens(text: &str, from: &str, to: &str, whole: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(at) = rest.find(from) {
        let before = rest[..at]
            .chars()
            .next_back()
            .or(if at == 0 { prev } else { None });
        let after = rest[at + from.len()..].chars().next();
        let left_ok = !before.is_some_and(is_ident) || !from.starts_with(is_ident);
        let right_ok = !whole || !after.is_some_and(is_ident) || !from.ends_with(is_ident);
        // `Async` as a prefix only: `AsyncCore`, never `Asynchronous`.
        let prefix_ok = from != "Async" || after.is_some_and(|c| c.is_ascii_uppercase());
        out.push_str(&rest[..at]);
        if left_ok && right_ok && prefix_ok {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        prev = from.chars().next_back();
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::to_sync;

    #[test]
    fn async_code_becomes_its_sync_twin() {
        let text = "import asyncio\nfrom ._async_pacing import AsyncPacer\n\nclass AsyncCore:\n    \
                    async def send(self) -> AsyncIterator[int]:\n        await asyncio.sleep(1)\n        \
                    async with self._lock:\n            pass\n        async for x in y:\n            \
                    yield x\n    async def aclose(self) -> None:\n        await self._http.aclose()\n";
        let want = "import threading, time\nfrom ._sync_pacing import Pacer\n\nclass Core:\n    \
                    def send(self) -> Iterator[int]:\n        time.sleep(1)\n        \
                    with self._lock:\n            pass\n        for x in y:\n            \
                    yield x\n    def close(self) -> None:\n        self._http.close()\n";
        assert_eq!(to_sync(text), want);
    }

    #[test]
    fn only_whole_tokens_change() {
        assert_eq!(
            to_sync("Asynchronous awaited aclosed"),
            "Asynchronous awaited aclosed"
        );
        assert_eq!(to_sync("httpx.AsyncClient("), "httpx.Client(");
        assert_eq!(to_sync("x.__aiter__()"), "x.__iter__()");
        assert_eq!(
            to_sync("async for c in r.aiter_bytes():"),
            "for c in r.iter_bytes():"
        );
        assert_eq!(to_sync("myawait x"), "myawait x");
    }
}

//! Several companies in one sandbox: each its own key and its own v3 data, all under the
//! one rate limit per client address (the service counts its quota per address, so a
//! process syncing many companies shares it; tests of that need companies to share it).
//!
//! The key check says which company a request is for, and the handler runs within that
//! company's scope: `App::store` then gives its data. Outside a request (the controls,
//! `/shared` links) the scope is the first company, the one `--key` and `--inspections`
//! describe.

use std::future::Future;

/// A company beside the first: its key, and the generated inspections it has on top of
/// the demo fleet (none with `--empty`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    pub key: (String, String),
    pub inspections: usize,
}

impl Company {
    /// `ID:SECRET:INSPECTIONS`, as `--company` takes it.
    pub fn parse(text: &str) -> Result<Company, String> {
        let mut parts = text.splitn(3, ':');
        let (Some(id), Some(secret), Some(count)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!("`{text}` is not ID:SECRET:INSPECTIONS"));
        };
        if id.is_empty() || secret.is_empty() {
            return Err(format!(
                "`{text}`: the key id and its secret may not be empty"
            ));
        }
        let inspections = count
            .parse()
            .map_err(|_| format!("`{count}` (in `{text}`) is not a number of inspections"))?;
        Ok(Company {
            key: (id.to_string(), secret.to_string()),
            inspections,
        })
    }
}

tokio::task_local! {
    static COMPANY: usize;
}

/// Runs `handler` as a request of company `index` (0: the first).
pub async fn within<F: Future>(index: usize, handler: F) -> F::Output {
    COMPANY.scope(index, handler).await
}

/// The company of the request under way; the first outside one.
pub fn current() -> usize {
    COMPANY.try_with(|c| *c).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_company_is_a_key_and_a_count() {
        let c = Company::parse("acme-key:acme:secret:250").unwrap_err();
        assert!(c.contains("is not a number"), "{c}");
        let c = Company::parse("acme-key:s3cret:250").unwrap();
        assert_eq!(c.key, ("acme-key".into(), "s3cret".into()));
        assert_eq!(c.inspections, 250);
        assert!(Company::parse("acme-key:s3cret").is_err());
        assert!(Company::parse(":s3cret:1").is_err());
    }

    #[test]
    fn outside_a_request_the_company_is_the_first() {
        assert_eq!(current(), 0);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(runtime.block_on(within(2, async { current() })), 2);
    }
}

//! `--rate-limit` and `--link-rate`: a pace other than the documented one, as the command
//! line gives it (`N/SECONDS` or `off`).

/// A pace other than the documented one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateLimit {
    Off,
    Limit(u32, std::time::Duration),
}

impl RateLimit {
    /// `N/SECONDS` (`200/10`) or `off`.
    pub fn parse(text: &str) -> Result<RateLimit, String> {
        if text == "off" {
            return Ok(RateLimit::Off);
        }
        let parsed = text.split_once('/').and_then(|(n, secs)| {
            Some((
                n.trim().parse::<u32>().ok()?,
                secs.trim().parse::<u64>().ok()?,
            ))
        });
        match parsed {
            Some((n, secs)) if n > 0 && secs > 0 => {
                Ok(RateLimit::Limit(n, std::time::Duration::from_secs(secs)))
            }
            _ => Err(format!(
                "`{text}` is not `REQUESTS/SECONDS` (such as `200/10`) or `off`"
            )),
        }
    }
}

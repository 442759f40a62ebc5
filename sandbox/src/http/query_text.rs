//! Query text: whether a query decodes to UTF-8, and percent-encoding a value.

/// Every name and value of an `application/x-www-form-urlencoded` query is UTF-8 once
/// decoded, else the message naming the first one that is not.
pub(super) fn check_query(query: &str) -> Result<(), String> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = form_decode(name);
        let Ok(name) = String::from_utf8(name) else {
            return Err(format!(
                "the query parameter name `{pair}` is not valid UTF-8 once percent-decoded"
            ));
        };
        if std::str::from_utf8(&form_decode(value)).is_err() {
            return Err(format!(
                "the query parameter `{name}` is not valid UTF-8 once percent-decoded (`{value}`)"
            ));
        }
    }
    Ok(())
}

/// `+` as a space and `%XX` as that byte; a `%` not followed by two hex digits stays.
fn form_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16);
    while i < bytes.len() {
        let escaped = match bytes.get(i + 1..i + 3) {
            Some(&[h, l]) if bytes[i] == b'%' => hex(h).zip(hex(l)),
            _ => None,
        };
        match (escaped, bytes[i]) {
            (Some((h, l)), _) => {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
            (None, b'+') => out.push(b' '),
            (None, b) => out.push(b),
        }
        i += 1;
    }
    out
}

/// Percent-encodes a query value.
pub fn encode(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

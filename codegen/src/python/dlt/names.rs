//! dlt's default naming convention (`snake_case`), as dlt applies it to every table and
//! column name a source's data and hints carry: written out here so that the generator
//! knows the names a load ends with (the hints' keys, the clashes it must avoid, the
//! docs), and checked against dlt itself by the tests that load the sandbox.

/// dlt's separator of a nested path: a child table's name after its parent's, a nested
/// record's column after the record's (`unit__reference_number`).
pub const PATH: &str = "__";

/// One identifier as dlt's `snake_case` convention normalizes it: `+-*@|` read as
/// `x_xal`, every run of other characters that are not ASCII letters, digits or `_` an
/// `_`, camelCase broken into words and lowered, a leading digit prefixed with `_`, each
/// trailing `_` an `x`, and runs of `_` made one (so no name holds the path separator).
pub fn identifier(name: &str) -> String {
    let reduced: String = name
        .trim()
        .chars()
        .map(|c| match c {
            '+' | '*' => 'x',
            '-' => '_',
            '@' => 'a',
            '|' => 'l',
            c => c,
        })
        .collect();
    let mut alnum = String::with_capacity(reduced.len());
    for c in reduced.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            alnum.push(c);
        } else if !alnum.ends_with('_') || alnum.is_empty() {
            // A run of other characters becomes one `_` (`[^a-zA-Z\d_]+`).
            alnum.push('_');
        }
    }
    let mut snake = break_words(&alnum).to_ascii_lowercase();
    if snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake.insert(0, '_');
    }
    let kept = snake.trim_end_matches('_').len();
    let trailing = snake.len() - kept;
    snake.truncate(kept);
    snake.push_str(&"x".repeat(trailing));
    let mut out = String::with_capacity(snake.len());
    for c in snake.chars() {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

/// dlt's two word breaks, in its order: `([^_])([A-Z][a-z]+)` then `([a-z0-9])([A-Z])`,
/// each an `_` between the two groups.
fn break_words(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    // The first: before an uppercase letter followed by lowercase ones, after anything but `_`.
    let mut first = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        first.push(c);
        let next_is_word = chars.get(i + 1).is_some_and(char::is_ascii_uppercase)
            && chars.get(i + 2).is_some_and(char::is_ascii_lowercase);
        if c != '_' && next_is_word {
            // The match consumes the word, so the next match starts after it.
            first.push('_');
            let mut j = i + 1;
            first.push(chars[j]);
            j += 1;
            while j < chars.len() && chars[j].is_ascii_lowercase() {
                first.push(chars[j]);
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    let chars: Vec<char> = first.chars().collect();
    let mut second = String::with_capacity(first.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        second.push(c);
        let lower_or_digit = c.is_ascii_lowercase() || c.is_ascii_digit();
        if lower_or_digit && chars.get(i + 1).is_some_and(char::is_ascii_uppercase) {
            // Both characters are consumed by the match.
            second.push('_');
            second.push(chars[i + 1]);
            i += 2;
            continue;
        }
        i += 1;
    }
    second
}

/// A nested path of normalized identifiers, as dlt joins them.
pub fn path(parts: &[String]) -> String {
    parts.join(PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case as dlt 1.31's `snake_case.NamingConvention().normalize_identifier` gives it.
    #[test]
    fn identifiers_are_normalized_as_dlt_does() {
        for (name, normalized) in [
            ("id", "id"),
            ("reference_number", "reference_number"),
            ("referenceNumber", "reference_number"),
            ("HTTPServer", "http_server"),
            ("getHTTPResponseCode", "get_http_response_code"),
            ("ABCdef", "ab_cdef"),
            ("3d", "_3d"),
            ("a__b", "a_b"),
            ("trailing_", "trailingx"),
            ("a-b", "a_b"),
            ("a+b", "axb"),
            ("e@mail", "eamail"),
            ("a b  c", "a_b_c"),
            ("über", "_ber"),
            ("_private", "_private"),
            ("value1Name", "value1_name"),
        ] {
            assert_eq!(identifier(name), normalized, "{name}");
        }
        assert_eq!(path(&["results".into(), "data".into()]), "results__data");
    }
}

//! Opaque page cursors: base64 of the sequence number of the last record sent.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(after: u64) -> String {
    base64(format!("after:{after}").as_bytes())
}

/// The sequence number a cursor stands for; `None` when it is not one of ours.
pub fn decode(cursor: &str) -> Option<u64> {
    let bytes = unbase64(cursor)?;
    let text = String::from_utf8(bytes).ok()?;
    text.strip_prefix("after:")?.parse().ok()
}

fn base64(input: &[u8]) -> String {
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(input: &str) -> Option<Vec<u8>> {
    let input = input.trim_end_matches('=');
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in input.bytes() {
        let v = ALPHABET.iter().position(|a| *a == c)? as u32;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip() {
        for n in [0, 7, 1999, u64::MAX] {
            assert_eq!(decode(&encode(n)), Some(n));
        }
        assert_eq!(base64(b"any carnal pleas"), "YW55IGNhcm5hbCBwbGVhcw==");
        assert_eq!(decode("not base64!"), None);
        assert_eq!(decode(&base64(b"before:3")), None);
    }
}

//! Unknown type names, with the nearest declared or builtin name as a did-you-mean.

use serde_saphyr::Spanned;

use crate::ir::Builtin;

use super::Checker;

impl<'a> Checker<'a> {
    pub(super) fn unknown_type(&mut self, at: &Spanned<String>, name: &str) {
        if self.scalars.contains_key(name) {
            self.error(
                at,
                format!(
                    "the scalar `{}` can only be a field's whole type",
                    super::clip(name)
                ),
                "use it as `type: Name`, not inside `array<...>`, `map<...>` or `json<...>`; \
                 or declare the inner values' limits on the field",
            );
            return;
        }
        let candidates = self
            .ids
            .keys()
            .map(String::as_str)
            .chain(Builtin::ALL.iter().map(|(n, _)| *n));
        let shown = super::clip(name);
        let help = match closest(name, candidates) {
            Some(near) => format!(
                "did you mean `{near}`? Otherwise declare `{shown}` under `types:` or use a builtin"
            ),
            None => format!(
                "declare `{shown}` under `types:`, or use a builtin ({})",
                Builtin::ALL
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        self.error(at, format!("unknown type `{shown}`"), help);
    }
}

/// The candidate nearest to `name` by edit distance, if it is close enough to be a typo.
/// Only candidates of about the same length are compared (the distance is at least the
/// difference in length), so a very long name costs nothing.
fn closest<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    const MAX: usize = 2;
    // The distance costs the product of the two lengths: past this, no suggestion (two
    // names of 200,000 characters would take minutes).
    const LONGEST: usize = 100;
    let len = name.chars().count();
    if len > LONGEST {
        return None;
    }
    let lower = name.to_lowercase();
    candidates
        .filter(|c| c.chars().count().abs_diff(len) <= MAX)
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= MAX)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_type() {
        let names = ["Unit", "Task", "Inspection"];
        assert_eq!(closest("Untit", names.into_iter()), Some("Unit"));
        assert_eq!(closest("Zebra", names.into_iter()), None);
        // A long name is compared with nothing, even beside a long candidate of about its
        // length (the distance of two 200,000-character names takes minutes).
        let long = "A".repeat(200_000);
        let candidate = format!("{long}B");
        assert_eq!(closest(&long, [candidate.as_str()].into_iter()), None);
        // Up to the cap, a typo is still found.
        let name = "A".repeat(100);
        let typo = format!("{}B", "A".repeat(99));
        assert_eq!(
            closest(&typo, [name.as_str()].into_iter()),
            Some(name.as_str())
        );
    }
}

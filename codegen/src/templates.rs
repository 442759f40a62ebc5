//! The minijinja environment the template backends render with: templates are embedded in
//! the generator binary (output never depends on the working directory), and a handful of
//! filters do what layout needs (doc comments, indentation). Names and types are computed
//! in Rust before a template sees them.

use minijinja::Environment;

/// A template embedded in the binary: its name and its text.
pub type Embedded = (&'static str, &'static str);

/// An environment holding `templates`, with the shared filters.
pub fn environment(templates: &[Embedded]) -> Result<Environment<'static>, String> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("jsdoc", jsdoc);
    env.add_filter("pydoc", pydoc);
    for (name, text) in templates {
        env.add_template(name, text)
            .map_err(|e| format!("template {name}: {e}"))?;
    }
    Ok(env)
}

/// Renders `name` with `context`.
pub fn render(
    env: &Environment<'static>,
    name: &str,
    context: impl serde::Serialize,
) -> Result<String, String> {
    env.get_template(name)
        .and_then(|t| t.render(context))
        .map_err(|e| format!("template {name}: {e:#}"))
}

/// A `/** ... */` doc comment (JSDoc / TSDoc) of `text`, indented by `indent` spaces; empty
/// text gives nothing. `*/` inside the text is broken up so it cannot end the comment.
fn jsdoc(text: String, indent: usize) -> String {
    let text = text.trim().replace("*/", "*\\/");
    if text.is_empty() {
        return String::new();
    }
    let pad = " ".repeat(indent);
    let lines: Vec<&str> = text.lines().collect();
    if let [line] = lines.as_slice() {
        return format!("{pad}/** {line} */\n");
    }
    let mut out = format!("{pad}/**\n");
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str(&format!("{pad} *\n"));
        } else {
            out.push_str(&format!("{pad} * {line}\n"));
        }
    }
    out.push_str(&format!("{pad} */\n"));
    out
}

/// A Python docstring of `text` (`"""..."""`), indented by `indent` spaces, ending in a
/// newline; empty text gives nothing. Backslashes and quotes that could end it early are
/// escaped.
fn pydoc(text: String, indent: usize) -> String {
    let text = text
        .trim()
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    if text.is_empty() {
        return String::new();
    }
    let pad = " ".repeat(indent);
    let text = if text.ends_with('"') {
        format!("{text} ")
    } else {
        text
    };
    let lines: Vec<&str> = text.lines().collect();
    if let [line] = lines.as_slice() {
        return format!("{pad}\"\"\"{line}\"\"\"\n");
    }
    let mut out = format!("{pad}\"\"\"");
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim_end();
        if n > 0 && !line.is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!("{pad}\"\"\"\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_cannot_be_closed_early() {
        assert_eq!(jsdoc("One line.".into(), 2), "  /** One line. */\n");
        assert_eq!(
            jsdoc("A */ B\n\nC".into(), 0),
            "/**\n * A *\\/ B\n *\n * C\n */\n"
        );
        assert_eq!(jsdoc("  ".into(), 0), "");
    }

    #[test]
    fn docstrings_cannot_be_closed_early() {
        assert_eq!(pydoc("One line.".into(), 4), "    \"\"\"One line.\"\"\"\n");
        assert_eq!(
            pydoc("A \"\"\" B\\n\n\nC".into(), 0),
            "\"\"\"A \\\"\\\"\\\" B\\\\n\n\nC\n\"\"\"\n"
        );
        assert_eq!(
            pydoc("ends with \"x\"".into(), 0),
            "\"\"\"ends with \"x\" \"\"\"\n"
        );
        assert_eq!(pydoc(" ".into(), 0), "");
    }
}
